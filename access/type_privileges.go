package access

// Type privileges follow the table rules (table_privileges.go) with one
// privilege, USAGE, and PostgreSQL's default for types: PUBLIC and the
// owner hold USAGE. A user type's (enum's or domain's) owner and ACL are
// stored with its definition, versioned with the branch's schema like a
// relation's; nil stands for the default (pg_type.typacl NULL).

// DefaultTypes is ALTER DEFAULT PRIVILEGES' object type for types
// (pg_default_acl.defaclobjtype 'T').
const DefaultTypes byte = 'T'

// DefaultTypeACL is PostgreSQL's acldefault for a type: PUBLIC first,
// then the owner, both with USAGE.
func DefaultTypeACL(owner uint32) []TableACLItem {
	owner = OwnerOID(owner)
	return []TableACLItem{{Grantee: 0, Grantor: owner, Privs: PrivUsage}, {Grantee: owner, Grantor: owner, Privs: PrivUsage}}
}

// TypeACL is a type's effective ACL: acl, or the default when it has
// none.
func TypeACL(owner uint32, acl *TableACL) *TableACL {
	if acl != nil {
		return acl
	}
	return &TableACL{Items: DefaultTypeACL(owner)}
}

// MayUseType reports whether role may use a type of owner with acl
// (superusers and the owner's members always may).
func (c *Catalog) MayUseType(role, owner uint32, acl *TableACL) bool {
	if c.Bootstrap() {
		return true // no roles yet: everyone is a superuser
	}
	held, _ := c.TablePrivileges(role, owner, TypeACL(owner, acl))
	return held&PrivUsage != 0
}

// ParseTypePriv reads a type privilege name (USAGE) as GRANT spells it.
func ParseTypePriv(name string) (TablePrivs, bool) {
	p, ok := parsePriv(name)
	return p, ok && p == PrivUsage
}
