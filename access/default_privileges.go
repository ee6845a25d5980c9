package access

import (
	"cmp"
	"slices"
)

// Default privileges (ALTER DEFAULT PRIVILEGES): the ACL a role's new
// relations start with, PostgreSQL's pg_default_acl. They are kept in
// the role catalog, global like roles and branch privileges: a rule
// about objects not created yet belongs to no branch's schema, so it
// holds on every branch (PostgreSQL keeps one per database; a branch
// cannot set its own). The ACL a relation gets when it is created is
// stored with its definition as any other relacl.

// DefaultACL kinds, PostgreSQL's defaclobjtype letters.
const (
	DefaultTables    byte = 'r'
	DefaultSequences byte = 'S'
)

// DefaultACL is one pg_default_acl row: the ACL that objects of kind
// ObjType created by Role get, for every schema (Schema "") or for
// relations in Schema. A row for every schema holds the whole ACL
// (starting from the built-in default); a row for one schema holds what
// is added to it.
type DefaultACL struct {
	Role    uint32         `json:"role"`
	Schema  string         `json:"schema,omitempty"`
	ObjType byte           `json:"objtype"`
	Items   []TableACLItem `json:"items"`
}

// builtinDefault is acldefault(objtype, owner).
func builtinDefault(objtype byte, owner uint32) []TableACLItem {
	switch objtype {
	case DefaultSequences:
		return DefaultSequenceACL(owner)
	case DefaultFunctions:
		return DefaultFunctionACL(owner)
	case DefaultTypes:
		return DefaultTypeACL(owner)
	}
	return DefaultTableACL(owner)
}

// DefaultACLOf finds the row of (role, schema, objtype); nil when there
// is none.
func (c *Catalog) DefaultACLOf(role uint32, schema string, objtype byte) *DefaultACL {
	if c == nil {
		return nil
	}
	for i := range c.DefaultACLs {
		d := &c.DefaultACLs[i]
		if d.Role == role && d.Schema == schema && d.ObjType == objtype {
			return d
		}
	}
	return nil
}

// DefaultACLStart is the ACL ALTER DEFAULT PRIVILEGES changes for
// (role, schema, objtype): the stored row, else the built-in default
// for every schema and an empty ACL for one schema (PostgreSQL's
// SetDefaultACL).
func (c *Catalog) DefaultACLStart(role uint32, schema string, objtype byte) *TableACL {
	if d := c.DefaultACLOf(role, schema, objtype); d != nil {
		return &TableACL{Items: slices.Clone(d.Items)}
	}
	if schema == "" {
		return &TableACL{Items: builtinDefault(objtype, role)}
	}
	return &TableACL{}
}

// SetDefaultACL stores the changed ACL of (role, schema, objtype),
// sorted as PostgreSQL stores it (aclitemsort). A row
// that says nothing is removed: for every schema one equal to the
// built-in default, for one schema an empty one.
func (c *Catalog) SetDefaultACL(role uint32, schema string, objtype byte, acl *TableACL) {
	c.DefaultACLs = slices.DeleteFunc(c.DefaultACLs, func(d DefaultACL) bool {
		return d.Role == role && d.Schema == schema && d.ObjType == objtype
	})
	var items []TableACLItem
	if acl != nil {
		items = sortACL(slices.Clone(acl.Items))
	}
	if schema == "" && slices.Equal(items, sortACL(builtinDefault(objtype, role))) ||
		schema != "" && len(items) == 0 {
		return
	}
	if items == nil {
		items = []TableACLItem{}
	}
	c.DefaultACLs = append(c.DefaultACLs, DefaultACL{Role: role, Schema: schema, ObjType: objtype, Items: items})
	slices.SortFunc(c.DefaultACLs, func(a, b DefaultACL) int {
		return cmp.Or(cmp.Compare(a.Role, b.Role), cmp.Compare(a.Schema, b.Schema), cmp.Compare(a.ObjType, b.ObjType))
	})
}

// CreationACL is the ACL a relation of kind objtype created by owner in
// schema starts with, as PostgreSQL's get_user_default_acl: the row for
// every schema (else the built-in default) merged with the schema's
// row, sorted; nil when that is the built-in default, so the relation
// keeps no ACL of its own.
func (c *Catalog) CreationACL(owner uint32, schema string, objtype byte) *TableACL {
	owner = OwnerOID(owner)
	global, local := c.DefaultACLOf(owner, "", objtype), c.DefaultACLOf(owner, schema, objtype)
	if global == nil && local == nil {
		return nil
	}
	def := builtinDefault(objtype, owner)
	acl := &TableACL{Items: slices.Clone(def)}
	if global != nil {
		acl.Items = slices.Clone(global.Items)
	}
	if local != nil {
		for _, it := range local.Items {
			acl = GrantTable(acl, owner, it.Grantee, it.Grantor, it.Privs, false)
			acl = GrantTable(acl, owner, it.Grantee, it.Grantor, it.GrantOption, true)
		}
	}
	acl.Items = sortACL(acl.Items)
	if slices.Equal(acl.Items, sortACL(def)) {
		return nil
	}
	return acl
}

// DefaultACLDependents are the rows that name role: owned (the role's
// own default privileges) and granted (privileges other roles' defaults
// give it or it granted), for DROP ROLE.
func (c *Catalog) DefaultACLDependents(role uint32) (owned, granted []DefaultACL) {
	for _, d := range c.DefaultACLs {
		if d.Role == role {
			owned = append(owned, d)
			continue
		}
		for _, it := range d.Items {
			if it.Grantee == role || it.Grantor == role {
				granted = append(granted, d)
				break
			}
		}
	}
	return owned, granted
}

// sortACL orders items as PostgreSQL's aclitemsort: by grantee, grantor,
// then the privilege and grant-option bits.
func sortACL(items []TableACLItem) []TableACLItem {
	slices.SortFunc(items, func(a, b TableACLItem) int {
		return cmp.Or(cmp.Compare(a.Grantee, b.Grantee), cmp.Compare(a.Grantor, b.Grantor),
			cmp.Compare(uint32(a.Privs)|uint32(a.GrantOption)<<16, uint32(b.Privs)|uint32(b.GrantOption)<<16))
	})
	return items
}
