package exec

import (
	"strings"

	"github.com/pggraph/pggraph/access"
	"github.com/pggraph/pggraph/pgerr"
)

// Built-in function ACLs. A built-in function's ACL is PostgreSQL's
// default (PUBLIC may execute) until a GRANT or REVOKE names it; then
// the role catalog keeps it for the branch, keyed by the function's
// signature (access.BuiltinFunctionACL). The binder checks EXECUTE when
// a call of a built-in function binds — a scalar call, an aggregate or
// a function in FROM — as PostgreSQL checks it at executor start. A
// branch where no built-in function's ACL was ever changed skips the
// check (one scan of a short list per statement). An operator, binary
// or prefix, checks EXECUTE on its pg_operator.oprcode function, and a
// cast the engine performs where PostgreSQL calls a function
// (pg_cast.castmethod 'f': int8(int4) behind 1::bigint, an assignment
// to a bigint column, numeric(int4) converting an operand of i + 0.5)
// checks EXECUTE on pg_cast.castfunc, as PostgreSQL's executor does: REVOKE EXECUTE ON
// FUNCTION int4pl refuses 1 + 1 and one on int4um refuses -i, also
// when the expression is constant (PostgreSQL folds constants by
// running them). A length coercion (varchar(3)) and a cast through
// text input/output call no function PostgreSQL checks. Implicit casts
// of a function's arguments (sqrt(i) converting i with float8(integer))
// are not checked: the engine's choice of overload may convert where
// PostgreSQL's does not.

// builtinSignature is a built-in function's ACL key: its name and
// argument types as format_type spells them.
func builtinSignature(f *pgProcFact) string {
	return f.name + "(" + typeSQLList(f.args) + ")"
}

// builtinACL is the ACL of a built-in function on the statement's
// branch (nil: an engine row without one, PUBLIC's default).
func (c *catalogSet) builtinACL(f *pgProcFact) *access.TableACL {
	if f == nil {
		return &access.TableACL{Items: access.DefaultFunctionACL(access.BootstrapOID)}
	}
	acl, _ := c.roleCatalog().BuiltinFunctionACL(c.database(), builtinSignature(f))
	return acl
}

// builtinProcACL is pg_proc.proacl of a built-in function: NULL until
// someone granted or revoked on it.
func (c *catalogSet) builtinProcACL(f *pgProcFact) any {
	if c.rolesFn == nil {
		return nil
	}
	cat := c.roleCatalog()
	if !cat.HasBuiltinFunctionACLs(c.database()) {
		return nil
	}
	acl, set := cat.BuiltinFunctionACL(c.database(), builtinSignature(f))
	if !set {
		return nil
	}
	return cat.TableACLText(acl)
}

// BuiltinFunctionsInSchema lists the built-in functions GRANT … ON ALL
// FUNCTIONS|PROCEDURES|ROUTINES IN SCHEMA names: the functions
// (aggregates and window functions included) or the procedures of
// pg_catalog or information_schema.
func BuiltinFunctionsInSchema(schema string, functions, procedures bool) []BuiltinFunction {
	var out []BuiltinFunction
	for _, f := range catalogProcs().rows {
		if f.nsp != schema || (f.kind == 'p' && !procedures) || (f.kind != 'p' && !functions) {
			continue
		}
		out = append(out, BuiltinFunction{Name: f.name, Signature: builtinSignature(f)})
	}
	return out
}

// checkBuiltinExecute refuses a call of the built-in function name with
// arguments of types args by a role without EXECUTE on it (42501).
// The overload is the one whose argument types are args exactly, else
// the one taking text for the unknown literals, else those an implicit
// cast within the arguments' type categories reaches; when several
// remain, the call is refused only if all of them refuse.
func (c *catalogSet) checkBuiltinExecute(name string, args []Type) error {
	if c.rolesFn == nil {
		return nil
	}
	cat := c.roleCatalog()
	if cat.Bootstrap() || !cat.HasBuiltinFunctionACLs(c.database()) {
		return nil
	}
	prefix := name + "("
	touched := false
	for _, f := range cat.Functions {
		if f.Branch == c.database() && strings.HasPrefix(f.Signature, prefix) {
			touched = true
			break
		}
	}
	if !touched {
		return nil
	}
	var candidates []*pgProcFact
	for _, f := range catalogProcs().byName[name] {
		if len(f.args) != len(args) {
			continue
		}
		exact := true
		for i, a := range args {
			if a.OID != f.args[i] {
				exact = false
				break
			}
		}
		if exact {
			candidates = []*pgProcFact{f}
			break
		}
		candidates = append(candidates, f)
	}
	if len(candidates) > 1 || len(candidates) == 1 && !sameTypes(candidates[0].args, args) {
		// an unknown literal resolves to text where an overload takes
		// text (PostgreSQL's preferred type of the string category);
		// otherwise an argument reaches an overload of another type
		// only by an implicit cast within its type category
		var textual, compatible []*pgProcFact
		for _, f := range candidates {
			text, compat := true, true
			for i, a := range args {
				if a.OID == f.args[i] {
					continue
				}
				if a.OID != OIDUnknown || f.args[i] != OIDText {
					text = false
				}
				if a.OID != OIDUnknown && info(a.OID).cat != info(f.args[i]).cat {
					compat = false
				}
			}
			if text {
				textual = append(textual, f)
			}
			if compat {
				compatible = append(compatible, f)
			}
		}
		if len(textual) == 1 {
			candidates = textual
		} else {
			candidates = compatible
		}
	}
	if len(candidates) == 0 {
		return nil
	}
	role := c.roleOID(cat)
	for _, f := range candidates {
		if cat.MayExecuteBuiltin(role, c.database(), builtinSignature(f)) {
			return nil
		}
	}
	kind := "function"
	if candidates[0].kind == 'a' {
		kind = "aggregate"
	}
	return errf(pgerr.InsufficientPrivilege, "permission denied for %s %s", kind, name)
}

func sameTypes(want []uint32, args []Type) bool {
	for i, a := range args {
		if a.OID != want[i] {
			return false
		}
	}
	return true
}

// checkOperatorExecute refuses a binary operator over operands l and r
// bound as e by a role without EXECUTE on the operator's function
// (pg_operator.oprcode): PostgreSQL's "permission denied for function
// int4pl". Where PostgreSQL has an operator for the operands' own types
// (int84eq for bigint = integer) only its function is checked, though
// the engine may have converted an operand; otherwise each operand the
// engine converted checks its cast's function too (numeric(integer)
// behind i + 0.5), as PostgreSQL converts it to the operator's type.
func (c *catalogSet) checkOperatorExecute(op string, l, r Type, e Expr) error {
	if c.rolesFn == nil {
		return nil
	}
	x, ok := e.(*opExpr)
	if !ok || len(x.args) != 2 {
		return nil
	}
	facts := pgOperatorFacts()
	for _, o := range facts {
		if o.kind == 'b' && o.name == op && o.left == l.OID && o.right == r.OID {
			return c.checkOperatorFunction(o)
		}
	}
	for i, from := range []Type{l, r} {
		if err := c.checkCastExecute(from, x.args[i].Type()); err != nil {
			return err
		}
	}
	lt, rt := x.args[0].Type().OID, x.args[1].Type().OID
	for _, o := range facts {
		if o.kind == 'b' && o.name == op && o.left == lt && o.right == rt {
			return c.checkOperatorFunction(o)
		}
	}
	return nil
}

// checkPrefixOperatorExecute refuses a prefix operator over an operand
// of type operand (after an unknown literal's resolution) by a role
// without EXECUTE on its function: -i runs int4um, @ b int8abs, +i
// int4up (which the engine binds to the operand itself).
func (c *catalogSet) checkPrefixOperatorExecute(op string, operand uint32) error {
	if c.rolesFn == nil {
		return nil
	}
	for _, o := range pgOperatorFacts() {
		if o.kind == 'l' && o.name == op && o.right == operand {
			return c.checkOperatorFunction(o)
		}
	}
	return nil
}

// checkCastExecute refuses a cast from from to to by a role without
// EXECUTE on the function PostgreSQL performs it with
// (pg_cast.castfunc of a castmethod 'f' cast): "permission denied for
// function int8" for 1::bigint once int8(integer) is revoked.
func (c *catalogSet) checkCastExecute(from, to Type) error {
	if c.rolesFn == nil || from.OID == to.OID {
		return nil
	}
	cat := c.roleCatalog()
	if cat.Bootstrap() || !cat.HasBuiltinFunctionACLs(c.database()) {
		return nil
	}
	for _, k := range pgCastFacts() {
		if k.source != from.OID || k.target != to.OID {
			continue
		}
		if k.method != 'f' || k.fn == 0 {
			return nil
		}
		f, ok := procByOID(k.fn)
		if !ok || cat.MayExecuteBuiltin(c.roleOID(cat), c.database(), builtinSignature(f)) {
			return nil
		}
		return errf(pgerr.InsufficientPrivilege, "permission denied for function %s", f.name)
	}
	return nil
}

// checkOperatorFunction refuses the current role without EXECUTE on
// operator o's function (an operator, or a call of its function by
// name: bind_implfunc.go).
func (c *catalogSet) checkOperatorFunction(o pgOperatorFact) error {
	if c.rolesFn == nil {
		return nil
	}
	cat := c.roleCatalog()
	if cat.Bootstrap() || !cat.HasBuiltinFunctionACLs(c.database()) {
		return nil
	}
	f, ok := procByOID(o.code)
	if !ok || cat.MayExecuteBuiltin(c.roleOID(cat), c.database(), builtinSignature(f)) {
		return nil
	}
	return errf(pgerr.InsufficientPrivilege, "permission denied for function %s", f.name)
}
