package exec

import (
	"math"

	"github.com/pggraph/pggraph/access"
	"github.com/pggraph/pggraph/pgerr"
)

// Function privileges of user functions: a function's owner and ACL
// (FuncDef.Owner, ACL) are stored with its definition by the planner;
// the binder checks EXECUTE when it binds a call, as PostgreSQL checks
// it when the executor initializes the call (so a call over no rows is
// refused too), against the current role — also inside a view's query
// and a function's body, which run with the caller's privileges.

// checkExecute refuses a call of f by a role without EXECUTE (42501).
func (c *catalogSet) checkExecute(f *FuncDef) error {
	if c.rolesFn == nil {
		return nil
	}
	cat := c.roleCatalog()
	if cat.Bootstrap() {
		return nil
	}
	if cat.MayExecute(c.roleOID(cat), f.Owner, f.ACL) {
		return nil
	}
	return errf(pgerr.InsufficientPrivilege, "permission denied for function %s", f.Name)
}

// roleOID is the current role's OID (a role dropped meanwhile holds
// PUBLIC's privileges only).
func (c *catalogSet) roleOID(cat *access.Catalog) uint32 {
	if r := cat.Role(c.user_); r != nil {
		return r.OID
	}
	return math.MaxUint32
}

// procACL is pg_proc.proacl of a pg_proc row: a user function's or a
// built-in function's stored ACL, NULL for the default.
func (c *catalogSet) procACL(f *pgProcFact) any {
	if f.nsp != "public" {
		return c.builtinProcACL(f) // builtin_function_acl.go
	}
	u, ok := userProcByOID(f.oid)
	if !ok || u.ACL == nil {
		return nil
	}
	return c.roleCatalog().TableACLText(u.ACL)
}
