package planner

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/pggraph/pggraph/access"
	"github.com/pggraph/pggraph/exec"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// GRANT/REVOKE … ON FUNCTION naming built-in functions. pg_proc is a
// per-database catalog, and the built-in functions are no branch's
// schema objects, so their ACLs live in the role catalog keyed by branch
// (access.BuiltinFunctionACL, as schema ACLs do): such a statement runs
// as a role statement (executeRole; staged until COMMIT in a
// transaction block), and the binder checks the ACL on every call
// (exec/builtin_function_acl.go). A statement naming user functions
// stays a catalog-only redefinition of them (function_privileges.go).

// grantsOnBuiltinFunctions reports a GRANT/REVOKE on functions whose
// every object is a built-in function: qualified with pg_catalog or
// information_schema, or unqualified where no user function has the
// name.
func (s *session) grantsOnBuiltinFunctions(ctx context.Context, n *q.Node) bool {
	st := n.GetGrantStmt()
	if st == nil || !isRoutine(st.Objtype) || len(st.Objects) == 0 {
		return false
	}
	if st.Targtype == q.GrantTargetType_ACL_TARGET_ALL_IN_SCHEMA {
		for _, o := range st.Objects {
			if sc := o.GetString_().GetSval(); sc != "pg_catalog" && sc != "information_schema" {
				return false
			}
		}
		return true
	}
	if st.Targtype != q.GrantTargetType_ACL_TARGET_OBJECT {
		return false
	}
	var user map[string]bool
	for _, o := range st.Objects {
		owa := o.GetObjectWithArgs()
		if owa == nil {
			return false
		}
		names := nameList(owa.Objname)
		switch len(names) {
		case 1:
			if user == nil {
				user = map[string]bool{}
				_, c, err := s.head(ctx)
				if err != nil {
					return false // the DDL path reports the error
				}
				for _, f := range c.Functions() {
					user[f.Name] = true
				}
			}
			if user[names[0]] {
				return false
			}
		case 2:
			if names[0] != "pg_catalog" {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// grantOnBuiltinFunctions applies GRANT/REVOKE … ON FUNCTION to built-in
// functions on the session's branch, with PostgreSQL's order of checks
// (the functions, the grantees, the privileges) and its rules
// (grantExecute).
func (rc *roleChange) grantOnBuiltinFunctions(st *q.GrantStmt) error {
	if err := rc.checkGrantedBy(st.Grantor, rc.actorOID()); err != nil { // type_privileges.go
		return err
	}
	var fns []exec.BuiltinFunction
	if st.Targtype == q.GrantTargetType_ACL_TARGET_ALL_IN_SCHEMA {
		functions := st.Objtype != q.ObjectType_OBJECT_PROCEDURE
		procedures := st.Objtype != q.ObjectType_OBJECT_FUNCTION
		for _, o := range st.Objects {
			fns = append(fns, exec.BuiltinFunctionsInSchema(o.GetString_().GetSval(), functions, procedures)...)
		}
	} else {
		for _, o := range st.Objects {
			owa := o.GetObjectWithArgs()
			names := nameList(owa.Objname)
			schema, name := "", names[len(names)-1]
			if len(names) > 1 {
				schema = names[len(names)-2]
			}
			var args []*q.TypeName
			for _, a := range owa.Objargs {
				if tn := a.GetTypeName(); tn != nil {
					args = append(args, tn)
				}
			}
			f, err := exec.LookupBuiltinFunction(schema, name, args, !owa.ArgsUnspecified, st.Objtype == q.ObjectType_OBJECT_PROCEDURE)
			if err != nil {
				return err
			}
			fns = append(fns, f)
		}
	}
	grantees, err := rc.granteeOIDs(st.Grantees)
	if err != nil {
		return err
	}
	for _, pn := range st.Privileges {
		ap := pn.GetAccessPriv()
		if ap == nil {
			continue
		}
		if len(ap.Cols) > 0 {
			return errRole(pgerr.InvalidGrantOperation, "column privileges are only valid for relations")
		}
		if p := strings.ToUpper(ap.PrivName); p != "EXECUTE" {
			if _, known := access.ParseTablePriv(ap.PrivName); known || isPrivilegeName(ap.PrivName) {
				return errRole(pgerr.InvalidGrantOperation, "invalid privilege type %s for function", p)
			}
			return errRole(wire.CodeSyntaxError, "unrecognized privilege type \"%s\"", ap.PrivName)
		}
	}
	actor := rc.actor()
	if actor == nil {
		return noRole(rc.s.currentRole())
	}
	what := "were granted"
	if !st.IsGrant {
		what = "could be revoked"
	}
	branch := rc.s.branch()
	owner := access.BootstrapOID
	done := map[string]bool{}
	for _, f := range fns {
		if done[f.Signature] {
			continue
		}
		done[f.Signature] = true
		cur, _ := rc.c.BuiltinFunctionACL(branch, f.Signature)
		acl, ok, err := grantExecute(rc.c, actor.OID, owner, cur, grantees, st, f.Name) // function_privileges.go
		if err != nil {
			return err
		}
		if !ok {
			if rc.notice != nil {
				rc.notice(&wire.Error{Severity: "WARNING", Code: pgerr.WarningPrivilegeNotGranted, Message: fmt.Sprintf("no privileges %s for \"%s\"", what, f.Name)})
			}
			continue
		}
		rc.c.SetBuiltinFunctionACL(branch, f.Signature, acl)
	}
	return nil
}

// builtinFunctionDependents describes the built-in function privileges
// role holds or granted, for DROP ROLE's refusal: "privileges for
// function now()" on the session's branch, an object counted on
// another.
func (rc *roleChange) builtinFunctionDependents(role *access.Role) []string {
	var out []string
	for _, f := range rc.c.Functions {
		for _, it := range f.ACL.Items {
			if it.Grantee != role.OID && it.Grantor != role.OID {
				continue
			}
			if f.Branch == rc.s.branch() {
				out = append(out, "privileges for function "+f.Signature)
			} else {
				out = append(out, "1 object in database "+f.Branch)
			}
			break
		}
	}
	return out
}

// dropOwnedBuiltinFunctions is DROP OWNED's part for built-in functions:
// the privileges the roles hold on them on branch are revoked by the
// acting role's best grantor, with CASCADE.
func dropOwnedBuiltinFunctions(c *access.Catalog, branch string, actor uint32, oids map[uint32]bool) (bool, error) {
	changed := false
	for _, f := range slices.Clone(c.Functions) {
		if f.Branch != branch {
			continue
		}
		acl := &access.TableACL{Items: slices.Clone(f.ACL.Items)}
		touched := false
		for oid := range oids {
			if !slices.ContainsFunc(acl.Items, func(it access.TableACLItem) bool { return it.Grantee == oid }) {
				continue
			}
			grantor, _ := c.TableGrantor(actor, access.BootstrapOID, acl, access.PrivExecute)
			next, err := c.RevokeTable(acl, access.BootstrapOID, oid, grantor, access.PrivExecute, false, true)
			if err != nil {
				return false, err
			}
			acl, touched = next, true
		}
		if touched {
			c.SetBuiltinFunctionACL(branch, f.Signature, acl)
			changed = true
		}
	}
	return changed, nil
}
