package access

import (
	"slices"
	"strings"
)

// Branch privileges. A graph branch is a database, so its privileges are
// PostgreSQL's database privileges — CONNECT (reach the branch), CREATE,
// TEMPORARY — plus two of pggraph's: WRITE (publish commits on it) and
// MERGE (merge another branch into it). Like pg_database.datacl they are
// global: stored in the role catalog, not versioned with any branch.
type BranchPrivs uint8

// The branch privileges.
const (
	PrivConnect BranchPrivs = 1 << iota
	PrivCreate
	PrivTemporary
	PrivWrite
	PrivMerge

	AllBranchPrivs = PrivConnect | PrivCreate | PrivTemporary | PrivWrite | PrivMerge
	// PostgresBranchPrivs are PostgreSQL's database privileges, the ones
	// datacl shows.
	PostgresBranchPrivs = PrivConnect | PrivCreate | PrivTemporary
	// PublicDefault is what PUBLIC holds on a branch nobody granted or
	// revoked anything on: PostgreSQL's CONNECT and TEMPORARY, and WRITE
	// and MERGE (so a root without grants behaves as before).
	PublicDefault = PrivConnect | PrivTemporary | PrivWrite | PrivMerge
)

// Names are the SQL names of the privileges, in aclitem letter order.
var branchPrivNames = []struct {
	p      BranchPrivs
	name   string
	letter byte // aclitem letter ('w'/'m' are not PostgreSQL's; not shown in datacl)
}{
	{PrivCreate, "CREATE", 'C'}, {PrivTemporary, "TEMPORARY", 'T'}, {PrivConnect, "CONNECT", 'c'},
	{PrivWrite, "WRITE", 'w'}, {PrivMerge, "MERGE", 'm'},
}

// ParseBranchPriv reads a privilege name (TEMP = TEMPORARY).
func ParseBranchPriv(name string) (BranchPrivs, bool) {
	n := strings.ToUpper(name)
	if n == "TEMP" {
		n = "TEMPORARY"
	}
	for _, x := range branchPrivNames {
		if x.name == n {
			return x.p, true
		}
	}
	return 0, false
}

// Name is the privilege's SQL name (one privilege).
func (p BranchPrivs) Name() string {
	for _, x := range branchPrivNames {
		if x.p == p {
			return x.name
		}
	}
	return "?"
}

// ACLItem is one grantee's privileges on a branch.
type ACLItem struct {
	Grantee     uint32      `json:"grantee"` // 0 = PUBLIC
	Grantor     uint32      `json:"grantor"`
	Privs       BranchPrivs `json:"privs"`
	GrantOption BranchPrivs `json:"grant_option,omitempty"`
}

// BranchACL is the privileges on one branch.
type BranchACL struct {
	Branch string    `json:"branch"`
	Items  []ACLItem `json:"acl"`
}

// DefaultBranchACL is a branch's ACL before any GRANT or REVOKE on it:
// the owner (the bootstrap superuser, who as a superuser may grant
// anything) holds everything, PUBLIC holds PublicDefault.
func DefaultBranchACL() []ACLItem {
	return []ACLItem{
		{Grantee: 0, Grantor: BootstrapOID, Privs: PublicDefault},
		{Grantee: BootstrapOID, Grantor: BootstrapOID, Privs: AllBranchPrivs},
	}
}

// BranchACL is branch's ACL and whether it was ever changed (datacl NULL
// when not).
func (c *Catalog) BranchACL(branch string) ([]ACLItem, bool) {
	if c != nil {
		for _, b := range c.Branches {
			if b.Branch == branch {
				return b.Items, true
			}
		}
	}
	return DefaultBranchACL(), false
}

// SetBranchACL replaces branch's ACL.
func (c *Catalog) SetBranchACL(branch string, items []ACLItem) {
	items = slices.DeleteFunc(items, func(it ACLItem) bool { return it.Privs == 0 })
	for i := range c.Branches {
		if c.Branches[i].Branch == branch {
			c.Branches[i].Items = items
			return
		}
	}
	c.Branches = append(c.Branches, BranchACL{Branch: branch, Items: items})
	slices.SortFunc(c.Branches, func(a, b BranchACL) int { return strings.Compare(a.Branch, b.Branch) })
}

// DropBranchACL forgets a deleted branch's ACL (a new branch of that
// name starts with the default, as a new database does).
func (c *Catalog) DropBranchACL(branch string) bool {
	n := len(c.Branches)
	c.Branches = slices.DeleteFunc(c.Branches, func(b BranchACL) bool { return b.Branch == branch })
	return len(c.Branches) != n
}

// BranchPrivileges are the privileges role holds on branch, directly,
// through PUBLIC or through roles it inherits; a superuser holds all. A
// root without a catalog grants everything.
func (c *Catalog) BranchPrivileges(role uint32, branch string) (held, grantable BranchPrivs) {
	if c.Bootstrap() {
		return AllBranchPrivs, AllBranchPrivs
	}
	if r := c.ByOID(role); r != nil && r.Superuser {
		return AllBranchPrivs, AllBranchPrivs
	}
	items, _ := c.BranchACL(branch)
	for _, it := range items {
		if it.Grantee == 0 || c.MemberOf(role, it.Grantee, true) {
			held |= it.Privs
			grantable |= it.GrantOption
		}
	}
	return held, grantable
}

// ACLText renders items as PostgreSQL's datacl (aclitem[] text), with
// PostgreSQL's privileges only.
func (c *Catalog) ACLText(items []ACLItem) []string {
	name := func(oid uint32) string {
		if oid == 0 {
			return ""
		}
		if r := c.ByOID(oid); r != nil {
			return r.Name
		}
		return "\"unknown (OID=" + itoaU(oid) + ")\""
	}
	var out []string
	for _, it := range items {
		if it.Privs&PostgresBranchPrivs == 0 {
			continue // only pggraph's privileges: not an aclitem
		}
		var b strings.Builder
		b.WriteString(name(it.Grantee))
		b.WriteByte('=')
		for _, x := range branchPrivNames[:3] {
			if it.Privs&x.p != 0 {
				b.WriteByte(x.letter)
				if it.GrantOption&x.p != 0 {
					b.WriteByte('*')
				}
			}
		}
		b.WriteByte('/')
		b.WriteString(name(it.Grantor))
		out = append(out, b.String())
	}
	return out
}

func itoaU(v uint32) string {
	var buf [10]byte
	i := len(buf)
	for {
		i--
		buf[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			return string(buf[i:])
		}
	}
}
