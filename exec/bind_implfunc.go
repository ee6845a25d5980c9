package exec

import "sync"

// Calls of the functions PostgreSQL implements operators and casts with:
// int4pl(1, 2) is 1 + 2 over integers, textcat(a, b) is a || b, and a
// function named after a type with one argument is a cast to that type
// (int4(x), text(5), bool(1)), as PostgreSQL's function-style casts are.
// pg_proc lists these functions (pg_operator.oprcode and pg_cast.castfunc
// name them), so they are callable by name too. They bind only when no
// function of that name exists.

// operatorFunctions maps an operator implementation's function name to
// the operators it implements (PostgreSQL 15's, pg15/operators.tsv).
var operatorFunctions = sync.OnceValue(func() map[string][]pgOperatorFact {
	names := map[uint32]string{}
	for _, f := range pgProcFacts() {
		names[f.oid] = f.name
	}
	out := map[string][]pgOperatorFact{}
	for _, o := range pgOperatorFacts() {
		if n, ok := names[o.code]; ok {
			out[n] = append(out[n], o)
		}
	}
	return out
})

// implementationCall binds name(args) as the operator or cast a
// PostgreSQL implementation function stands for; ok is false when name
// is not such a function.
func (b *binder) implementationCall(name string, args []Expr) (Expr, bool, error) {
	if ops := operatorFunctions()[name]; len(ops) > 0 {
		for _, o := range ops {
			if e, err := b.operatorCall(o, args); err == nil {
				if err := b.cat.checkOperatorFunction(o); err != nil { // builtin_function_acl.go
					return nil, true, err
				}
				return e, true, nil
			}
		}
		return nil, true, noFunction(name, args)
	}
	oid, isType := typeNames[name]
	if !isType || len(args) != 1 || oid == OIDUnknown || oid == OIDRecord {
		return nil, false, nil
	}
	t := Type{oid, -1}
	if isRegNameType(t) {
		e, err := b.regCast(args[0], t)
		return e, true, err
	}
	if args[0].Type().OID != OIDUnknown && !canCast(args[0].Type(), t, castExplicit) {
		return nil, true, noFunction(name, args)
	}
	e, err := b.coerce(args[0], t, castExplicit, "")
	return e, true, err
}

// operatorCall binds operator o over args coerced to its operand types
// (implicitly, as a function's arguments are).
func (b *binder) operatorCall(o pgOperatorFact, args []Expr) (Expr, error) {
	want := []uint32{o.left, o.right}
	if o.kind == 'l' {
		want = want[1:]
	}
	if len(args) != len(want) {
		return nil, noFunction(o.name, args)
	}
	in := make([]Expr, len(args))
	for i, a := range args {
		in[i] = a
		if pt, _ := probeType(want[i]); pt == want[i] && want[i] != OIDRecord {
			var err error
			if in[i], err = b.coerce(a, Type{want[i], -1}, castImplicit, ""); err != nil {
				return nil, err
			}
		}
	}
	var e Expr
	var err error
	if len(in) == 1 {
		e, err = b.unaryOp(o.name, in[0])
	} else if v, isVec, verr := b.vectorOperator(o.name, in[0], in[1]); isVec {
		e, err = v, verr
	} else {
		e, err = b.binaryOp(o.name, in[0], in[1])
	}
	if err != nil {
		return nil, err
	}
	if rt, ok := probeType(o.result); ok && rt == o.result && e.Type().OID != o.result {
		return nil, noFunction(o.name, args)
	}
	return e, nil
}
