package planner

import (
	"strings"

	"github.com/pggraph/pggraph/access"

	"github.com/pggraph/pggraph/exec"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/wire"
)

// GRANT/REVOKE … ON FUNCTION|PROCEDURE|ROUTINE and ON ALL FUNCTIONS IN
// SCHEMA. The functions are the built-in ones and their ACLs are not
// stored (exec/function_privileges.go: PUBLIC holds EXECUTE on every
// function, as PostgreSQL's default), so such a statement is checked as
// PostgreSQL checks it — the functions, then the grantees, then the
// privileges, with its errors — and then answered 0A000: a grant that
// would not be recorded, or a revoke that would not be enforced, is
// never reported as done.

// grantFunctions checks a GRANT/REVOKE on functions and refuses it.
func (w *writer) grantFunctions(pc *privCtx, st *q.GrantStmt) error {
	switch st.Targtype {
	case q.GrantTargetType_ACL_TARGET_ALL_IN_SCHEMA:
		for _, o := range st.Objects {
			switch s := o.GetString_().GetSval(); s {
			case "public", "pg_catalog", "information_schema":
			default:
				return wire.Errorf("3F000", "schema \"%s\" does not exist", s)
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
				continue // a user function: refused below like the built-ins
			}
			if err := exec.LookupFunction(schema, name, args, !owa.ArgsUnspecified, st.Objtype == q.ObjectType_OBJECT_PROCEDURE); err != nil {
				return toWire(err)
			}
		}
	}
	rc := &roleChange{s: w.s, c: pc.c}
	if _, err := rc.granteeOIDs(st.Grantees); err != nil {
		return err
	}
	for _, pn := range st.Privileges {
		ap := pn.GetAccessPriv()
		if ap == nil {
			continue
		}
		if len(ap.Cols) > 0 {
			return wire.Errorf("0LP01", "column privileges are only valid for relations")
		}
		if p := strings.ToUpper(ap.PrivName); p != "EXECUTE" {
			if _, known := access.ParseTablePriv(ap.PrivName); known || isPrivilegeName(ap.PrivName) {
				return wire.Errorf("0LP01", "invalid privilege type %s for function", p)
			}
			return wire.Errorf(wire.CodeSyntaxError, "unrecognized privilege type \"%s\"", ap.PrivName)
		}
	}
	what := "GRANT"
	if !st.IsGrant {
		what = "REVOKE"
	}
	return wire.Errorf(wire.CodeFeatureNotSupported, "%s … ON FUNCTION is not supported: function privileges are not stored", what).
		WithDetail("Every role may execute every function (PUBLIC holds EXECUTE, PostgreSQL's default).")
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
