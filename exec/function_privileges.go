package exec

import (
	"strings"

	"github.com/pggraph/pggraph/access"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
)

// Function privileges. The built-in functions (pg_proc's rows, owned
// by the bootstrap superuser) start with PostgreSQL's default, EXECUTE
// for PUBLIC; a GRANT or REVOKE on one is kept in the role catalog per
// branch (access.BuiltinFunctionACL, keyed by BuiltinFunction.Signature)
// and checked when a call binds (builtin_function_acl.go). User
// functions have their own owner and ACL, stored with their definition
// (function_acl.go).

// BuiltinFunction names one built-in function for GRANT/REVOKE.
type BuiltinFunction struct {
	Name      string
	Signature string // "name(argtype, …)": its ACL's key
}

// LookupFunction resolves GRANT … ON FUNCTION's object as PostgreSQL's
// LookupFuncWithArgs does: with an argument list (argsGiven) the exact
// signature, without one the only function of that name. schema is ""
// or the name's qualifier; procedure asks for a procedure (there are
// none).
func LookupFunction(schema, name string, args []*q.TypeName, argsGiven, procedure bool) error {
	_, err := LookupBuiltinFunction(schema, name, args, argsGiven, procedure)
	return err
}

// LookupBuiltinFunction is LookupFunction returning the function found.
func LookupBuiltinFunction(schema, name string, args []*q.TypeName, argsGiven, procedure bool) (BuiltinFunction, error) {
	f, err := lookupBuiltinFunction(schema, name, args, argsGiven, procedure)
	if err != nil {
		return BuiltinFunction{}, err
	}
	return BuiltinFunction{Name: f.name, Signature: builtinSignature(f)}, nil
}

func lookupBuiltinFunction(schema, name string, args []*q.TypeName, argsGiven, procedure bool) (*pgProcFact, error) {
	if schema != "" && schema != "pg_catalog" {
		if schema != "public" && schema != "information_schema" {
			return nil, errf(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", schema)
		}
		if !argsGiven {
			return nil, errf(CodeUndefinedFunction, "could not find a function named \"%s.%s\"", schema, name)
		}
		b := &binder{cat: &catalogSet{}}
		names := make([]string, len(args))
		for i, tn := range args {
			t, err := b.resolveType(tn)
			if err != nil {
				return nil, err
			}
			names[i] = t.String()
		}
		return nil, errf(CodeUndefinedFunction, "function %s.%s(%s) does not exist", schema, name, strings.Join(names, ", "))
	}
	fs := catalogProcs().byName[name]
	var match *pgProcFact
	if !argsGiven {
		n := len(fs)
		if n == 1 {
			// PostgreSQL's overloads the engine does not bind still make
			// the bare name ambiguous
			n = 0
			for _, f := range pgProcFacts() {
				if f.name == name && f.nsp == "pg_catalog" {
					n++
				}
			}
			n = max(n, 1)
		}
		switch n {
		case 0:
			return nil, errf(CodeUndefinedFunction, "could not find a function named \"%s\"", name)
		case 1:
			match = fs[0]
		default:
			e := errf(CodeAmbiguousFunction, "function name \"%s\" is not unique", name)
			e.Hint = "Specify the argument list to select the function unambiguously."
			return nil, e
		}
	} else {
		b := &binder{cat: &catalogSet{}}
		want := make([]uint32, len(args))
		names := make([]string, len(args))
		for i, tn := range args {
			t, err := b.resolveType(tn)
			if err != nil {
				return nil, err
			}
			want[i], names[i] = t.OID, t.String()
		}
		for _, f := range fs {
			if len(f.args) == len(want) && (len(want) == 0 || equalOIDs(f.args, want)) {
				match = f
			}
		}
		if match == nil {
			return nil, errf(CodeUndefinedFunction, "function %s(%s) does not exist", name, strings.Join(names, ", "))
		}
	}
	if procedure && match.kind != 'p' {
		return nil, errf(CodeWrongObjectType, "%s(%s) is not a procedure", name, procArgText(match))
	}
	return match, nil
}

func equalOIDs(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// procArgText is a function's argument types as format_type names.
func procArgText(f *pgProcFact) string {
	names := make([]string, len(f.args))
	for i, a := range f.args {
		names[i] = FormatType(a, -1)
	}
	return strings.Join(names, ", ")
}

// parseFunctionPrivs reads has_function_privilege's privilege list:
// EXECUTE, each optionally WITH GRANT OPTION (an unknown one is named
// as given, as PostgreSQL's convert_any_priv_string does).
func parseFunctionPrivs(list string) (want, opt bool, err error) {
	for _, chunk := range strings.Split(list, ",") {
		p := strings.TrimSpace(chunk)
		norm := strings.ToUpper(strings.Join(strings.Fields(p), " "))
		switch norm {
		case "EXECUTE":
			want = true
		case "EXECUTE WITH GRANT OPTION":
			opt = true
		default:
			return false, false, errf(CodeInvalidParameterValue, "unrecognized privilege type: \"%s\"", p)
		}
	}
	return want, opt, nil
}

func init() {
	// has_function_privilege([role,] function, privileges): the function
	// by regprocedure text ('now()', 42883 when missing) or OID (NULL
	// when missing)
	const name = "has_function_privilege"
	defCustom(name, func(b *binder, args []Expr) (Expr, error) {
		withUser, err := bindPrivilegeArgs(b, name, args)
		if err != nil {
			return nil, err
		}
		cs := b.cat
		return &opExpr{name: name, t: TBool, args: args, strict: true, k: func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			cat := ec.run.roleCatalog()
			for _, i := range sel {
				role, rest, err := privilegeSubject(ec, cat, a, i, withUser)
				if err != nil {
					return err
				}
				exists := true
				owner := uint32(access.BootstrapOID)
				var user *FuncDef // a user function: its own ACL (function_acl.go)
				var builtin *pgProcFact
				if rest[0].T.Kind() == KStr {
					if oid, err := regprocedureLookup(rest[0].S[i]); err == nil {
						builtin, _ = procByOID(oid)
					} else {
						u := cs.userRegprocedure(rest[0].S[i])
						if u == nil {
							return err
						}
						owner, user = u.Owner, u
					}
				} else {
					builtin, exists = procByOID(uint32(rest[0].I[i]))
					if u := cs.userFunctionByOID(uint32(rest[0].I[i])); !exists && u != nil {
						exists, owner, user = true, u.Owner, u
					}
				}
				if owner == 0 {
					owner = access.BootstrapOID
				}
				want, opt, err := parseFunctionPrivs(rest[1].S[i])
				if err != nil {
					return err
				}
				switch {
				case !exists:
					out.SetNull(int(i))
				case role == nil:
					out.B[i] = false
				case user != nil:
					held, grantable := cat.TablePrivileges(role.OID, owner, access.FunctionACL(owner, user.ACL))
					out.B[i] = want && held&access.PrivExecute != 0 || opt && grantable&access.PrivExecute != 0
				default:
					// a built-in function's ACL, PUBLIC's EXECUTE unless
					// someone revoked it (builtin_function_acl.go)
					held, grantable := cat.TablePrivileges(role.OID, access.BootstrapOID, cs.builtinACL(builtin))
					out.B[i] = want && held&access.PrivExecute != 0 || opt && grantable&access.PrivExecute != 0
				}
			}
			return nil
		}}, nil
	})
}
