package exec

// The binary operator table: the operators whose operands are exact types
// — arithmetic over the numeric types, bit operators over the integers,
// date/time arithmetic (op_arith.go, op_temporal.go) — keyed by (operator,
// left type, right type). binaryOp (bind_ops.go) binds an operator found
// here after resolving unknown operands, and pg_operator lists these
// operators from the table rather than by preparing a probe statement
// (syscat_operator.go). Operators over type families (comparisons,
// arrays, json, text patterns) keep their rules in binaryOp.

// opKey is a binary operator over two operand types.
type opKey struct {
	op          string
	left, right uint32
}

// binaryOpDef is one operator of the table.
type binaryOpDef struct {
	// left and right are the types the operands are coerced to (OID 0
	// keeps the operand as it is).
	left, right Type
	// lax: a failed coercion is ignored (the operand's type converts
	// implicitly in practice: date + int8, date + time).
	lax bool
	// result is the operator's result type.
	result Type
	// kernel computes the operator over the coerced operands.
	kernel func(op string, result Type) kernel
	// commuted: the operator is bound as right op left (int4 + date is
	// date + int4).
	commuted bool
}

// binaryOps is the operator table.
var binaryOps = map[opKey]*binaryOpDef{}

// defBinaryOp registers d as op over each pair of left and right types.
func defBinaryOp(op string, lefts, rights []uint32, d binaryOpDef) {
	for _, l := range lefts {
		for _, r := range rights {
			e := d
			binaryOps[opKey{op, l, r}] = &e
		}
	}
}

// defCommuted registers op over (left, right) as right op left.
func defCommuted(op string, lefts, rights []uint32) {
	for _, l := range lefts {
		for _, r := range rights {
			binaryOps[opKey{op, l, r}] = &binaryOpDef{commuted: true}
		}
	}
}

// lookupBinaryOp finds op over the operand types, following a commuted
// entry to the operator it binds as; swapped reports that one.
func lookupBinaryOp(op string, left, right uint32) (d *binaryOpDef, swapped bool, ok bool) {
	d, ok = binaryOps[opKey{op, left, right}]
	if !ok || !d.commuted {
		return d, false, ok
	}
	d, ok = binaryOps[opKey{op, right, left}]
	return d, true, ok && !d.commuted
}

// binaryOpResult is the result type of a tabled operator over the
// operand types, for pg_operator.
func binaryOpResult(op string, left, right uint32) (uint32, bool) {
	d, _, ok := lookupBinaryOp(op, left, right)
	if !ok {
		return 0, false
	}
	return d.result.OID, true
}

// tableOp binds l op r from the table; ok is false when the table has no
// operator over the operands' types.
func (b *binder) tableOp(op string, l, r Expr) (e Expr, ok bool, err error) {
	d, swapped, ok := lookupBinaryOp(op, l.Type().OID, r.Type().OID)
	if !ok {
		return nil, false, nil
	}
	if swapped {
		l, r = r, l
	}
	coerce := func(x Expr, t Type) (Expr, error) {
		if t.OID == 0 {
			return x, nil
		}
		y, err := b.coerce(x, t, castImplicit, "")
		if d.lax {
			err = nil
		}
		return y, err
	}
	if l, err = coerce(l, d.left); err != nil {
		return nil, true, err
	}
	if r, err = coerce(r, d.right); err != nil {
		return nil, true, err
	}
	return &opExpr{name: op, t: d.result, args: []Expr{l, r}, k: d.kernel(op, d.result), strict: true}, true, nil
}
