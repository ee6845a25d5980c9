package planner

import (
	"fmt"
	"strings"

	"github.com/pggraph/pggraph/access"
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/planner/ddl"
	"github.com/pggraph/pggraph/wire"
)

// GRANT/REVOKE … ON FUNCTION|PROCEDURE|ROUTINE and ON ALL FUNCTIONS IN
// SCHEMA. A user function's owner and ACL are stored with its
// definition (ddl.TableMeta.Owner/ACL, nil: PostgreSQL's default, PUBLIC
// and the owner hold EXECUTE), so a grant is a catalog-only redefinition
// published by the statement's graph commit, versioned with the branch's
// schema like a table's (table_privileges.go), and calls check it
// (exec/function_acl.go). A statement naming only built-in functions
// runs as a role statement (builtin_function_privileges.go): their
// ACLs are kept in the role catalog per branch.

// grantFunctions runs a GRANT/REVOKE on functions.
func (w *writer) grantFunctions(pc *privCtx, st *q.GrantStmt) ([]ddl.Change, error) {
	type fn struct {
		e graph.TableEntry
		m ddl.TableMeta
	}
	var fns []fn
	builtin := false
	if err := (&roleChange{s: w.s, c: pc.c}).checkGrantedBy(st.Grantor, pc.role); err != nil {
		return nil, err
	}
	switch st.Targtype {
	case q.GrantTargetType_ACL_TARGET_ALL_IN_SCHEMA:
		for _, o := range st.Objects {
			switch s := o.GetString_().GetSval(); {
			case s == "pg_catalog" || s == "information_schema":
				builtin = true
			case s == "public" || w.v.base.hasSchema(s):
				if s != "public" || st.Objtype == q.ObjectType_OBJECT_PROCEDURE {
					continue // user functions live in public; none is a procedure
				}
				es, ms, err := ddl.Functions(w.ddlCatalog())
				if err != nil {
					return nil, err
				}
				for i := range es {
					fns = append(fns, fn{es[i], ms[i]})
				}
			default:
				return nil, wire.Errorf(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", s)
			}
		}
	case q.GrantTargetType_ACL_TARGET_OBJECT:
		for _, o := range st.Objects {
			owa := o.GetObjectWithArgs()
			if owa == nil {
				continue
			}
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
			if (schema == "" || schema == "public") && w.userFunctionNamed(name) {
				e, m, missing, err := ddl.LookupFunction(owa, w.ddlCatalog())
				if err != nil {
					return nil, err
				}
				if missing == nil && st.Objtype == q.ObjectType_OBJECT_PROCEDURE {
					return nil, wire.Errorf(pgerr.WrongObjectType, "%s is not a procedure", ddl.ExecFunction(e, name, m).Signature())
				}
				if missing == nil {
					fns = append(fns, fn{e, m})
					continue
				}
				if schema == "public" {
					return nil, missing
				}
			}
			if err := exec.LookupFunction(schema, name, args, !owa.ArgsUnspecified, st.Objtype == q.ObjectType_OBJECT_PROCEDURE); err != nil {
				return nil, err
			}
			builtin = true
		}
	}
	rc := &roleChange{s: w.s, c: pc.c}
	grantees, err := rc.granteeOIDs(st.Grantees)
	if err != nil {
		return nil, err
	}
	for _, pn := range st.Privileges {
		ap := pn.GetAccessPriv()
		if ap == nil {
			continue
		}
		if len(ap.Cols) > 0 {
			return nil, wire.Errorf(pgerr.InvalidGrantOperation, "column privileges are only valid for relations")
		}
		if p := strings.ToUpper(ap.PrivName); p != "EXECUTE" {
			if _, known := access.ParseTablePriv(ap.PrivName); known || isPrivilegeName(ap.PrivName) {
				return nil, wire.Errorf(pgerr.InvalidGrantOperation, "invalid privilege type %s for function", p)
			}
			return nil, wire.Errorf(wire.CodeSyntaxError, "unrecognized privilege type \"%s\"", ap.PrivName)
		}
	}
	name := grantName(st)
	if builtin {
		// one naming only built-in functions ran as a role statement
		// (builtin_function_privileges.go); their ACLs live elsewhere
		return nil, wire.Errorf(wire.CodeFeatureNotSupported, "%s … ON FUNCTION naming both built-in and user functions is not supported", name).
			WithHint("Grant on the built-in and on the user functions in separate statements.")
	}
	what := "were granted"
	if !st.IsGrant {
		what = "could be revoked"
	}
	var changes []ddl.Change
	done := map[string]bool{}
	for _, f := range fns {
		if done[f.e.Name] {
			continue
		}
		done[f.e.Name] = true
		fname, _ := ddl.FuncName(f.e.Name)
		owner := f.m.Owner
		acl, ok, err := grantExecute(pc.c, pc.role, owner, access.FunctionACL(owner, f.m.ACL), grantees, st, fname)
		if err != nil {
			return nil, err
		}
		if !ok {
			w.warn(fmt.Sprintf("no privileges %s for \"%s\"", what, fname))
			continue
		}
		m := f.m
		m.ACL = acl
		changes = append(changes, redefine(f.e, m, name))
	}
	if len(changes) == 0 {
		changes = []ddl.Change{&ddl.NoOp{CommandTag: name}}
	}
	return changes, nil
}

// userFunctionNamed reports a user function (CREATE FUNCTION) of the
// name in the statement's catalog.
func (w *writer) userFunctionNamed(name string) bool {
	for _, f := range w.v.Functions() {
		if f.Name == name {
			return true
		}
	}
	return false
}

// isRoutine reports a function, procedure or routine object type.
func isRoutine(t q.ObjectType) bool {
	return t == q.ObjectType_OBJECT_FUNCTION || t == q.ObjectType_OBJECT_PROCEDURE || t == q.ObjectType_OBJECT_ROUTINE
}

// alterFunctionOwner runs ALTER FUNCTION|PROCEDURE|ROUTINE … OWNER TO on
// a user function, as PostgreSQL 15's AlterObjectOwner_internal: nothing
// to do when the owner stays; otherwise a superuser may, anyone else
// must own the function, be a member of the new owner, and the new
// owner must hold CREATE on the function's schema. The ACL's grants by
// and to the old owner move with it. A built-in function is
// builtinFunctionOwner's.
func (w *writer) alterFunctionOwner(pc *privCtx, st *q.AlterOwnerStmt) ([]ddl.Change, error) {
	owa := st.Object.GetObjectWithArgs()
	if owa == nil {
		return nil, notSupported("ALTER FUNCTION … OWNER TO")
	}
	names := nameList(owa.Objname)
	schema, name := "", names[len(names)-1]
	if len(names) > 1 {
		schema = names[len(names)-2]
	}
	tag := alterTagOf(st.ObjectType)
	var e graph.TableEntry
	var m ddl.TableMeta
	var missing *pgerr.Error
	if schema != "pg_catalog" {
		var err error
		if e, m, missing, err = ddl.LookupFunction(owa, w.ddlCatalog()); err != nil {
			return nil, err
		}
	}
	if missing != nil || schema == "pg_catalog" {
		if schema == "" || schema == "pg_catalog" {
			var args []*q.TypeName
			for _, a := range owa.Objargs {
				if tn := a.GetTypeName(); tn != nil {
					args = append(args, tn)
				}
			}
			proc := st.ObjectType == q.ObjectType_OBJECT_PROCEDURE
			if exec.LookupFunction(schema, name, args, !owa.ArgsUnspecified, proc) == nil {
				return w.builtinFunctionOwner(pc, st, name, tag)
			}
			if f, err := exec.LookupBuiltinFunction(schema, name, args, !owa.ArgsUnspecified, false); proc && err == nil {
				return nil, wire.Errorf(pgerr.WrongObjectType, "%s is not a procedure", f.Signature)
			} else if schema == "pg_catalog" && missing == nil {
				return nil, err
			}
		}
		if missing != nil {
			return nil, missing
		}
	}
	if st.ObjectType == q.ObjectType_OBJECT_PROCEDURE {
		return nil, wire.Errorf(pgerr.WrongObjectType, "%s is not a procedure", ddl.ExecFunction(e, name, m).Signature())
	}
	pc = w.s.grantContext(w.ctx, pc)
	rc := &roleChange{s: w.s, c: pc.c}
	newOwner, _, err := rc.spec(st.Newowner)
	if err != nil {
		return nil, err
	}
	old := access.OwnerOID(m.Owner)
	if newOwner.OID == old {
		return []ddl.Change{&ddl.NoOp{CommandTag: tag}}, nil
	}
	if !rc.isSuper() {
		switch {
		case !pc.c.IsOwner(pc.role, m.Owner):
			return nil, errNotOwner("function", name)
		case !pc.c.MemberOf(pc.role, newOwner.OID, false):
			return nil, wire.Errorf(wire.CodeInsufficientPrivilege, "must be member of role \"%s\"", newOwner.Name)
		case !pc.schemaPrivilege(w.s.branch(), newOwner.OID, access.PrivSchemaCreate):
			return nil, errPermission("schema", "public")
		}
	}
	if m.ACL != nil {
		m.ACL = access.ChangeTableOwner(m.ACL, old, newOwner.OID)
	}
	m.Owner = newOwner.OID
	if m.Owner == access.BootstrapOID {
		m.Owner = 0
	}
	return []ddl.Change{redefine(e, m, tag)}, nil
}

// builtinFunctionOwner runs ALTER FUNCTION … OWNER TO on a built-in
// function, owned by the bootstrap superuser: nothing to do for that
// owner, "must be owner" for anyone but a superuser, as PostgreSQL; a
// superuser's change to another role answers 0A000, since a built-in
// function's owner is not stored.
func (w *writer) builtinFunctionOwner(pc *privCtx, st *q.AlterOwnerStmt, name, tag string) ([]ddl.Change, error) {
	pc = w.s.grantContext(w.ctx, pc)
	rc := &roleChange{s: w.s, c: pc.c}
	newOwner, _, err := rc.spec(st.Newowner)
	switch {
	case err != nil:
		return nil, err
	case newOwner.OID == access.BootstrapOID:
		return []ddl.Change{&ddl.NoOp{CommandTag: tag}}, nil
	case !rc.isSuper():
		return nil, errNotOwner("function", name)
	}
	return nil, wire.Errorf(wire.CodeFeatureNotSupported, "%s … OWNER TO another role is not supported for built-in functions", tag).
		WithDetail("A built-in function's owner is the bootstrap superuser; pgproxy does not store another.")
}

// triggerExecuteCheck refuses CREATE TRIGGER by a role without EXECUTE
// on the trigger function, as PostgreSQL's CreateTrigger (a trigger
// that exists fires whoever runs the statement: firing checks nothing).
func (w *writer) triggerExecuteCheck(pc *privCtx, n *q.Node) error {
	st := n.GetCreateTrigStmt()
	if st == nil || pc == nil {
		return nil
	}
	_, m, missing, err := ddl.LookupFunction(&q.ObjectWithArgs{Objname: st.Funcname}, w.ddlCatalog())
	if err != nil || missing != nil {
		return nil // the plan has answered for a function that does not exist
	}
	if !pc.c.MayExecute(pc.role, m.Owner, m.ACL) {
		names := nameList(st.Funcname)
		return errPermission("function", names[len(names)-1])
	}
	return nil
}

// grantExecute applies GRANT/REVOKE EXECUTE by role to a function of
// owner whose ACL is cur, for the grantees: the grantor is role's best
// grantor; without the grant option nothing changes (ok false: the
// caller warns) unless role holds no EXECUTE at all (42501); a REVOKE
// of what others received through the grantor needs CASCADE (2BP01).
func grantExecute(c *access.Catalog, role, owner uint32, cur *access.TableACL, grantees []uint32, st *q.GrantStmt, name string) (acl *access.TableACL, ok bool, err error) {
	grantor, options := c.TableGrantor(role, owner, cur, access.PrivExecute)
	if options&access.PrivExecute == 0 {
		if held, _ := c.TablePrivileges(grantor, owner, cur); held&access.PrivExecute == 0 {
			return nil, false, errPermission("function", name)
		}
		return nil, false, nil
	}
	acl = cur
	for _, g := range grantees {
		if st.IsGrant {
			acl = access.GrantTable(acl, owner, g, grantor, access.PrivExecute, st.GrantOption)
			continue
		}
		next, err := c.RevokeTable(acl, owner, g, grantor, access.PrivExecute, st.GrantOption, st.Behavior == q.DropBehavior_DROP_CASCADE)
		if err != nil {
			return nil, false, wire.Errorf(pgerr.DependentObjectsStillExist, "dependent privileges exist").WithHint("Use CASCADE to revoke them too.")
		}
		acl = next
	}
	return acl, true, nil
}
