package access

// Function privileges follow the table rules (table_privileges.go) with
// one privilege, EXECUTE, and PostgreSQL's default for functions: PUBLIC
// and the owner hold EXECUTE. A user function's owner and ACL are stored
// with its definition, versioned with the branch's schema like a
// relation's; nil stands for the default (pg_proc.proacl NULL).

// DefaultFunctions is ALTER DEFAULT PRIVILEGES' object type for
// functions (pg_default_acl.defaclobjtype 'f').
const DefaultFunctions byte = 'f'

// DefaultFunctionACL is PostgreSQL's acldefault for a function: PUBLIC
// first, then the owner, both with EXECUTE.
func DefaultFunctionACL(owner uint32) []TableACLItem {
	owner = OwnerOID(owner)
	return []TableACLItem{{Grantee: 0, Grantor: owner, Privs: PrivExecute}, {Grantee: owner, Grantor: owner, Privs: PrivExecute}}
}

// FunctionACL is a function's effective ACL: acl, or the default when it
// has none.
func FunctionACL(owner uint32, acl *TableACL) *TableACL {
	if acl != nil {
		return acl
	}
	return &TableACL{Items: DefaultFunctionACL(owner)}
}

// MayExecute reports whether role may call a function of owner with acl
// (superusers and the owner's members always may, as for relations).
func (c *Catalog) MayExecute(role, owner uint32, acl *TableACL) bool {
	if c.Bootstrap() {
		return true // no roles yet: everyone is a superuser
	}
	held, _ := c.TablePrivileges(role, owner, FunctionACL(owner, acl))
	return held&PrivExecute != 0
}

// ParseFunctionPriv reads a function privilege name (EXECUTE) as GRANT
// spells it.
func ParseFunctionPriv(name string) (TablePrivs, bool) {
	p, ok := parsePriv(name)
	return p, ok && p == PrivExecute
}
