package access

import (
	"slices"
	"strings"
)

// Table privileges. Unlike roles and branch privileges they are not kept
// in this catalog: a table's owner and ACL are part of its definition
// (the SQL layer's table metadata), versioned with the branch's schema as
// PostgreSQL keeps relacl in the per-database pg_class. This file holds
// the rules that read them: which privileges a role holds, who is the
// grantor of a grant, how an ACL changes and how it prints.
type TablePrivs uint16

// The table privileges, in PostgreSQL's ACL bit order (the order aclitem
// text prints them: arwdDxt).
const (
	PrivInsert TablePrivs = 1 << iota
	PrivSelect
	PrivUpdate
	PrivDelete
	PrivTruncate
	PrivReferences
	PrivTrigger
	// PrivExecute is a function's EXECUTE (function_privileges.go).
	PrivExecute
	// PrivUsage is a sequence's USAGE (nextval, currval); sequences use
	// PrivSelect and PrivUpdate too, as PostgreSQL's ACL bits do.
	PrivUsage

	AllTablePrivs = PrivInsert | PrivSelect | PrivUpdate | PrivDelete | PrivTruncate | PrivReferences | PrivTrigger
	// AllSequencePrivs are the privileges a sequence has.
	AllSequencePrivs = PrivUsage | PrivSelect | PrivUpdate

	// allRelationPrivs are every privilege an ACL of this file's rules
	// may hold (schemas' CREATE too: schema_privileges.go).
	allRelationPrivs = AllTablePrivs | AllSequencePrivs | PrivSchemaCreate | PrivExecute
)

var tablePrivNames = []struct {
	p      TablePrivs
	name   string
	letter byte
}{
	{PrivInsert, "INSERT", 'a'}, {PrivSelect, "SELECT", 'r'}, {PrivUpdate, "UPDATE", 'w'}, {PrivDelete, "DELETE", 'd'},
	{PrivTruncate, "TRUNCATE", 'D'}, {PrivReferences, "REFERENCES", 'x'}, {PrivTrigger, "TRIGGER", 't'}, {PrivExecute, "EXECUTE", 'X'},
	{PrivUsage, "USAGE", 'U'}, {PrivSchemaCreate, "CREATE", 'C'},
}

// ParseTablePriv reads a privilege name as GRANT and has_table_privilege
// spell it (case-insensitive).
func ParseTablePriv(name string) (TablePrivs, bool) {
	p, ok := parsePriv(name)
	return p, ok && p&AllTablePrivs != 0
}

// ParseSequencePriv reads a sequence privilege name (USAGE, SELECT,
// UPDATE) as GRANT and has_sequence_privilege spell it.
func ParseSequencePriv(name string) (TablePrivs, bool) {
	p, ok := parsePriv(name)
	return p, ok && p&AllSequencePrivs != 0
}

func parsePriv(name string) (TablePrivs, bool) {
	n := strings.ToUpper(strings.TrimSpace(name))
	for _, x := range tablePrivNames {
		if x.name == n {
			return x.p, true
		}
	}
	return 0, false
}

// Name is the SQL name of one privilege.
func (p TablePrivs) Name() string {
	for _, x := range tablePrivNames {
		if x.p == p {
			return x.name
		}
	}
	return "?"
}

// TableACLItem is one aclitem of a table: Grantee (0 = PUBLIC) holds
// Privs, granted by Grantor, and may grant GrantOption on.
type TableACLItem struct {
	Grantee     uint32     `json:"grantee"`
	Grantor     uint32     `json:"grantor"`
	Privs       TablePrivs `json:"privs"`
	GrantOption TablePrivs `json:"grant_option,omitempty"`
}

// TableACL is a table's relacl once someone granted or revoked on it; a
// table without one (nil) has DefaultTableACL.
type TableACL struct {
	Items []TableACLItem `json:"items"`
}

// OwnerOID is the owner a table records: 0 means the bootstrap superuser
// (tables created before roles existed, or by the bootstrap superuser).
func OwnerOID(owner uint32) uint32 {
	if owner == 0 {
		return BootstrapOID
	}
	return owner
}

// DefaultTableACL is PostgreSQL's acldefault for a relation: the owner
// holds every privilege, PUBLIC none.
func DefaultTableACL(owner uint32) []TableACLItem {
	owner = OwnerOID(owner)
	return []TableACLItem{{Grantee: owner, Grantor: owner, Privs: AllTablePrivs}}
}

// DefaultSequenceACL is PostgreSQL's acldefault for a sequence: the
// owner holds USAGE, SELECT and UPDATE, PUBLIC none. A sequence's nil
// ACL stands for it; callers pass it explicitly (SequenceACL), since
// the functions here take a nil ACL as a table's default.
func DefaultSequenceACL(owner uint32) []TableACLItem {
	owner = OwnerOID(owner)
	return []TableACLItem{{Grantee: owner, Grantor: owner, Privs: AllSequencePrivs}}
}

// SequenceACL is a sequence's effective ACL: acl, or the default when
// it has none.
func SequenceACL(owner uint32, acl *TableACL) *TableACL {
	if acl != nil {
		return acl
	}
	return &TableACL{Items: DefaultSequenceACL(owner)}
}

// Items is the effective ACL (the default when acl is nil); the result
// is a copy the caller may change.
func (acl *TableACL) items(owner uint32) []TableACLItem {
	if acl == nil {
		return DefaultTableACL(owner)
	}
	return slices.Clone(acl.Items)
}

// TablePrivileges are the privileges role holds on a table owned by
// owner with acl, directly, through PUBLIC or through roles it inherits,
// and the grant options it holds: PostgreSQL's aclmask. Superusers hold
// everything; the owner (and whoever inherits the owner's privileges)
// holds every grant option, but only the privileges the ACL gives (an
// owner may revoke its own). A root without a role catalog grants all.
func (c *Catalog) TablePrivileges(role, owner uint32, acl *TableACL) (held, grantable TablePrivs) {
	if c.Bootstrap() {
		return allRelationPrivs, allRelationPrivs
	}
	if r := c.ByOID(role); r != nil && r.Superuser {
		return allRelationPrivs, allRelationPrivs
	}
	if c.MemberOf(role, OwnerOID(owner), true) {
		grantable = allRelationPrivs
	}
	for _, it := range acl.items(owner) {
		if it.Grantee == 0 || c.MemberOf(role, it.Grantee, true) {
			held |= it.Privs
			grantable |= it.GrantOption
		}
	}
	return held, grantable
}

// IsOwner reports whether role may act as the table's owner (DROP,
// ALTER, GRANT anything): a superuser, the owner, or a role that
// inherits the owner's privileges (PostgreSQL's pg_class_ownercheck).
func (c *Catalog) IsOwner(role, owner uint32) bool {
	if c.Bootstrap() {
		return true
	}
	if r := c.ByOID(role); r != nil && r.Superuser {
		return true
	}
	return c.MemberOf(role, OwnerOID(owner), true)
}

// TableGrantor is whom a grant or revoke by actor is recorded from and
// the grant options that grantor holds (PostgreSQL's
// select_best_grantor): the owner for superusers and for whoever holds
// the owner's privileges, else actor when it holds grant options for
// privs itself, else the inherited role holding the most of them.
func (c *Catalog) TableGrantor(actor, owner uint32, acl *TableACL, privs TablePrivs) (grantor uint32, options TablePrivs) {
	owner = OwnerOID(owner)
	if c.IsOwner(actor, owner) {
		return owner, allRelationPrivs
	}
	options = c.directOptions(actor, owner, acl)
	if options&privs == privs {
		return actor, options
	}
	grantor, best := actor, options&privs
	for _, it := range acl.items(owner) {
		if it.Grantee == 0 || it.Grantee == actor || !c.MemberOf(actor, it.Grantee, true) {
			continue
		}
		o := c.directOptions(it.Grantee, owner, acl)
		if bits(o&privs) > bits(best) {
			grantor, best, options = it.Grantee, o&privs, o
		}
	}
	return grantor, options
}

// directOptions are the grant options the ACL gives role itself (and
// PUBLIC), without inherited roles.
func (c *Catalog) directOptions(role, owner uint32, acl *TableACL) TablePrivs {
	var o TablePrivs
	for _, it := range acl.items(owner) {
		if it.Grantee == role || it.Grantee == 0 {
			o |= it.GrantOption
		}
	}
	return o
}

func bits(p TablePrivs) int {
	n := 0
	for ; p != 0; p &= p - 1 {
		n++
	}
	return n
}

// ErrDependentPrivileges is returned by RevokeTable when a revoked grant
// option was passed on and the revoke is not CASCADE.
type ErrDependentPrivileges struct{}

func (ErrDependentPrivileges) Error() string { return "dependent privileges exist" }

// GrantTable adds privs (and the grant option for them when
// withOption) to grantee's item from grantor, as PostgreSQL's aclupdate
// with ACL_MODECHG_ADD; the item is appended when new.
func GrantTable(acl *TableACL, owner, grantee, grantor uint32, privs TablePrivs, withOption bool) *TableACL {
	items := acl.items(owner)
	i := slices.IndexFunc(items, func(it TableACLItem) bool { return it.Grantee == grantee && it.Grantor == grantor })
	if i < 0 {
		items = append(items, TableACLItem{Grantee: grantee, Grantor: grantor})
		i = len(items) - 1
	}
	items[i].Privs |= privs
	if withOption {
		items[i].GrantOption |= privs
	}
	return &TableACL{Items: items}
}

// RevokeTable takes privs (only their grant option when optionOnly) from
// grantee's item from grantor. A grant option grantee loses and holds
// from nowhere else is taken from what it granted on, recursively, when
// cascade, and refused (ErrDependentPrivileges) otherwise, as
// PostgreSQL's recursive_revoke.
func (c *Catalog) RevokeTable(acl *TableACL, owner, grantee, grantor uint32, privs TablePrivs, optionOnly, cascade bool) (*TableACL, error) {
	items := acl.items(owner)
	i := slices.IndexFunc(items, func(it TableACLItem) bool { return it.Grantee == grantee && it.Grantor == grantor })
	if i < 0 {
		return &TableACL{Items: items}, nil
	}
	lost := items[i].GrantOption & privs
	items[i].GrantOption &^= privs
	if !optionOnly {
		items[i].Privs &^= privs
	}
	items = slices.DeleteFunc(items, func(it TableACLItem) bool { return it.Privs == 0 && it.GrantOption == 0 })
	out := &TableACL{Items: items}
	if lost == 0 || grantee == OwnerOID(owner) {
		return out, nil
	}
	// grant options still held through another grantor stay usable
	var still TablePrivs
	for _, it := range items {
		if it.Grantee == grantee || it.Grantee == 0 {
			still |= it.GrantOption
		}
	}
	lost &^= still
	if lost == 0 {
		return out, nil
	}
	for _, it := range slices.Clone(items) {
		if it.Grantor != grantee || it.Privs&lost == 0 {
			continue
		}
		if !cascade {
			return nil, ErrDependentPrivileges{}
		}
		var err error
		if out, err = c.RevokeTable(out, owner, it.Grantee, grantee, lost, false, true); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ChangeTableOwner rewrites an ACL for a new owner: the old owner's
// items become the new owner's, as grantee and as grantor (PostgreSQL's
// aclnewowner), merging items that then name the same pair.
func ChangeTableOwner(acl *TableACL, oldOwner, newOwner uint32) *TableACL {
	if acl == nil {
		return nil
	}
	oldOwner, newOwner = OwnerOID(oldOwner), OwnerOID(newOwner)
	var out []TableACLItem
	for _, it := range acl.Items {
		if it.Grantee == oldOwner {
			it.Grantee = newOwner
		}
		if it.Grantor == oldOwner {
			it.Grantor = newOwner
		}
		if j := slices.IndexFunc(out, func(o TableACLItem) bool { return o.Grantee == it.Grantee && o.Grantor == it.Grantor }); j >= 0 {
			out[j].Privs |= it.Privs
			out[j].GrantOption |= it.GrantOption
			continue
		}
		out = append(out, it)
	}
	return &TableACL{Items: out}
}

// TableACLText renders acl as PostgreSQL's relacl (aclitem[] text, nil
// for a table without an ACL).
func (c *Catalog) TableACLText(acl *TableACL) []string {
	if acl == nil {
		return nil
	}
	out := make([]string, 0, len(acl.Items))
	for _, it := range acl.Items {
		var b strings.Builder
		b.WriteString(c.aclName(it.Grantee))
		b.WriteByte('=')
		for _, x := range tablePrivNames {
			if it.Privs&x.p != 0 {
				b.WriteByte(x.letter)
				if it.GrantOption&x.p != 0 {
					b.WriteByte('*')
				}
			}
		}
		b.WriteByte('/')
		b.WriteString(c.aclName(it.Grantor))
		out = append(out, b.String())
	}
	return out
}

// aclName is a role as aclitem text names it: quoted when it needs
// quotes, PUBLIC as the empty string.
func (c *Catalog) aclName(oid uint32) string {
	if oid == 0 {
		return ""
	}
	if oid == DatabaseOwnerOID {
		return "pg_database_owner"
	}
	r := c.ByOID(oid)
	if r == nil {
		return itoaU(oid) // PostgreSQL prints a dropped role's OID
	}
	plain := r.Name != ""
	for _, ch := range r.Name {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch >= 0x80) {
			plain = false
		}
	}
	if plain {
		return r.Name
	}
	return `"` + strings.ReplaceAll(r.Name, `"`, `""`) + `"`
}
