package access

import (
	"slices"
	"strings"
	"time"
)

// BootstrapOID is the OID of the first superuser, as PostgreSQL's
// bootstrap superuser has OID 10; later roles count up from FirstOID.
const (
	BootstrapOID uint32 = 10
	FirstOID     uint32 = 16384
)

// Catalog is one version of the role catalog.
type Catalog struct {
	// Version is the chain version it was read from (0: no catalog yet).
	Version uint64       `json:"-"`
	NextOID uint32       `json:"next_oid"`
	Roles   []Role       `json:"roles"`   // sorted by name
	Members []Membership `json:"members"` // sorted by (role, member)
	// Branches holds the ACL of every branch someone granted or revoked
	// on (branches.go); others have DefaultBranchACL.
	Branches []BranchACL `json:"branches,omitempty"`
	// DefaultACLs are the roles' default privileges
	// (default_privileges.go), sorted by (role, schema, objtype).
	DefaultACLs []DefaultACL `json:"default_acls,omitempty"`
	// Schemas holds the ACL of every schema someone granted or revoked
	// on, per branch (schema_privileges.go); others have
	// DefaultSchemaACL.
	Schemas []SchemaACL `json:"schemas,omitempty"`
	// Functions holds the ACL of every built-in function someone
	// granted or revoked on, per branch (builtin_function_privileges.go).
	Functions []BuiltinFunctionACL `json:"functions,omitempty"`
	// Pending marks a version whose changes take effect only with a
	// graph commit (pending.go).
	Pending *Pending `json:"pending,omitempty"`
}

// Role is one role with PostgreSQL's attributes.
type Role struct {
	OID         uint32     `json:"oid"`
	Name        string     `json:"name"`
	Superuser   bool       `json:"superuser,omitempty"`
	Inherit     bool       `json:"inherit,omitempty"`
	CreateRole  bool       `json:"createrole,omitempty"`
	CreateDB    bool       `json:"createdb,omitempty"` // may create and delete branches
	Login       bool       `json:"login,omitempty"`
	Replication bool       `json:"replication,omitempty"`
	BypassRLS   bool       `json:"bypassrls,omitempty"`
	ConnLimit   int32      `json:"connlimit"` // -1: no limit
	Password    string     `json:"password,omitempty"`
	ValidUntil  *time.Time `json:"valid_until,omitempty"`
}

// Membership is "Member is a member of Role" (GRANT role TO member).
type Membership struct {
	Role    uint32 `json:"role"`
	Member  uint32 `json:"member"`
	Grantor uint32 `json:"grantor"`
	Admin   bool   `json:"admin,omitempty"`
}

// Bootstrap reports a root without a role catalog: every authenticated
// user acts as a superuser.
func (c *Catalog) Bootstrap() bool { return c == nil || c.Version == 0 }

// Role finds a role by name.
func (c *Catalog) Role(name string) *Role {
	if c == nil {
		return nil
	}
	i, ok := slices.BinarySearchFunc(c.Roles, name, func(r Role, n string) int { return strings.Compare(r.Name, n) })
	if !ok {
		return nil
	}
	return &c.Roles[i]
}

// ByOID finds a role by OID.
func (c *Catalog) ByOID(oid uint32) *Role {
	if c == nil {
		return nil
	}
	for i := range c.Roles {
		if c.Roles[i].OID == oid {
			return &c.Roles[i]
		}
	}
	return nil
}

// clone copies the catalog so a change can edit it.
func (c *Catalog) clone() *Catalog {
	out := &Catalog{Version: c.Version, NextOID: c.NextOID,
		Roles: slices.Clone(c.Roles), Members: slices.Clone(c.Members), Branches: slices.Clone(c.Branches)}
	for i := range out.Branches {
		out.Branches[i].Items = slices.Clone(out.Branches[i].Items)
	}
	out.Schemas = cloneSchemas(c.Schemas)
	out.Functions = cloneBuiltinFunctions(c.Functions)
	out.DefaultACLs = slices.Clone(c.DefaultACLs)
	for i := range out.DefaultACLs {
		out.DefaultACLs[i].Items = slices.Clone(out.DefaultACLs[i].Items)
	}
	for i := range out.Roles {
		if v := out.Roles[i].ValidUntil; v != nil {
			t := *v
			out.Roles[i].ValidUntil = &t
		}
	}
	return out
}

// NewRole is a role with PostgreSQL's CREATE ROLE defaults (INHERIT, no
// connection limit); the caller sets the rest.
func NewRole(name string) Role {
	return Role{Name: name, Inherit: true, ConnLimit: -1}
}

// NewSuperuser is a role with every attribute, as PostgreSQL's bootstrap
// superuser has them.
func NewSuperuser(name string) Role {
	r := NewRole(name)
	r.Superuser, r.CreateRole, r.CreateDB, r.Login, r.Replication, r.BypassRLS = true, true, true, true, true, true
	return r
}

// AddRole inserts r with the next OID (BootstrapOID for the first role)
// and returns it.
func (c *Catalog) AddRole(r Role) *Role {
	switch {
	case len(c.Roles) == 0 && c.ByOID(BootstrapOID) == nil:
		r.OID = BootstrapOID
	default:
		if c.NextOID < FirstOID {
			c.NextOID = FirstOID
		}
		r.OID = c.NextOID
		c.NextOID++
	}
	i, _ := slices.BinarySearchFunc(c.Roles, r.Name, func(x Role, n string) int { return strings.Compare(x.Name, n) })
	c.Roles = slices.Insert(c.Roles, i, r)
	return &c.Roles[i]
}

// DropRole removes a role and every membership naming it.
func (c *Catalog) DropRole(oid uint32) {
	c.Roles = slices.DeleteFunc(c.Roles, func(r Role) bool { return r.OID == oid })
	c.Members = slices.DeleteFunc(c.Members, func(m Membership) bool { return m.Role == oid || m.Member == oid })
	for i := range c.Branches {
		c.Branches[i].Items = slices.DeleteFunc(c.Branches[i].Items, func(it ACLItem) bool { return it.Grantee == oid })
	}
}

// RenameRole renames a role, keeping the order by name.
func (c *Catalog) RenameRole(oid uint32, name string) {
	r := c.ByOID(oid)
	if r == nil {
		return
	}
	cp := *r
	c.Roles = slices.DeleteFunc(c.Roles, func(x Role) bool { return x.OID == oid })
	cp.Name = name
	i, _ := slices.BinarySearchFunc(c.Roles, name, func(x Role, n string) int { return strings.Compare(x.Name, n) })
	c.Roles = slices.Insert(c.Roles, i, cp)
}

// Membership returns the direct membership of member in role.
func (c *Catalog) Membership(role, member uint32) *Membership {
	for i := range c.Members {
		if c.Members[i].Role == role && c.Members[i].Member == member {
			return &c.Members[i]
		}
	}
	return nil
}

// Grant makes member a member of role (or adds the admin option).
func (c *Catalog) Grant(role, member, grantor uint32, admin bool) {
	if m := c.Membership(role, member); m != nil {
		m.Admin = m.Admin || admin
		return
	}
	c.Members = append(c.Members, Membership{Role: role, Member: member, Grantor: grantor, Admin: admin})
	slices.SortFunc(c.Members, func(a, b Membership) int {
		if a.Role != b.Role {
			return int(a.Role) - int(b.Role)
		}
		return int(a.Member) - int(b.Member)
	})
}

// Revoke removes member's membership in role (adminOnly: only the admin
// option).
func (c *Catalog) Revoke(role, member uint32, adminOnly bool) {
	if adminOnly {
		if m := c.Membership(role, member); m != nil {
			m.Admin = false
		}
		return
	}
	c.Members = slices.DeleteFunc(c.Members, func(m Membership) bool { return m.Role == role && m.Member == member })
}

// MemberOf reports whether member is role or belongs to it through any
// chain of memberships (PostgreSQL's is_member_of_role: what SET ROLE
// and pg_has_role's MEMBER ask). inheritOnly follows only members that
// inherit (has_privs_of_role: pg_has_role's USAGE, privileges).
func (c *Catalog) MemberOf(member, role uint32, inheritOnly bool) bool {
	if role == DatabaseOwnerOID {
		// pg_database_owner's one member is the database's owner: every
		// branch is the bootstrap superuser's (schema_privileges.go)
		role = BootstrapOID
	}
	if member == role {
		return true
	}
	seen := map[uint32]bool{member: true}
	queue := []uint32{member}
	for len(queue) > 0 {
		m := queue[0]
		queue = queue[1:]
		if inheritOnly {
			if r := c.ByOID(m); r == nil || !r.Inherit {
				continue
			}
		}
		for _, ms := range c.Members {
			if ms.Member != m || seen[ms.Role] {
				continue
			}
			if ms.Role == role {
				return true
			}
			seen[ms.Role] = true
			queue = append(queue, ms.Role)
		}
	}
	return false
}

// HasAdmin reports whether member may grant role to others: a direct or
// inherited membership WITH ADMIN OPTION (is_admin_of_role).
func (c *Catalog) HasAdmin(member, role uint32) bool {
	for _, ms := range c.Members {
		if ms.Role == role && ms.Admin && c.MemberOf(member, ms.Member, false) {
			return true
		}
	}
	return false
}

// Clone copies the catalog for a change that is not published yet (a
// transaction's role statements, applied to its own copy).
func (c *Catalog) Clone() *Catalog { return c.clone() }
