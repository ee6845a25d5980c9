package exec

import (
	"math"
	"strings"

	q "github.com/pggraph/pggraph/internal/sqlparse"
)

func opName(names []*q.Node) (string, error) {
	var parts []string
	for _, n := range names {
		parts = append(parts, n.GetString_().Sval)
	}
	if len(parts) == 2 && parts[0] == "pg_catalog" {
		return parts[1], nil
	}
	if len(parts) != 1 {
		return "", unsupported("qualified operator names are not supported")
	}
	return parts[0], nil
}

func (b *binder) bindAExpr(x *q.A_Expr, sc *scope) (Expr, error) {
	op, err := opName(x.Name)
	if err != nil {
		return nil, err
	}
	bindSide := func(n *q.Node) (Expr, error) {
		if n == nil {
			return nil, nil
		}
		return b.bindExpr(n, sc)
	}
	if lr, rr := x.Lexpr.GetRowExpr(), x.Rexpr.GetRowExpr(); x.Kind == q.A_Expr_Kind_AEXPR_OP && lr != nil && rr != nil {
		return b.rowCompare(op, lr.Args, rr.Args, sc)
	}
	if lr, sl := x.Lexpr.GetRowExpr(), x.Rexpr.GetSubLink(); x.Kind == q.A_Expr_Kind_AEXPR_OP && lr != nil && sl != nil && sl.SubLinkType == q.SubLinkType_EXPR_SUBLINK {
		return b.bindRowCompareSubLink(op, lr.Args, sl, sc)
	}
	if lr, rr := x.Lexpr.GetRowExpr(), x.Rexpr.GetRowExpr(); (x.Kind == q.A_Expr_Kind_AEXPR_DISTINCT || x.Kind == q.A_Expr_Kind_AEXPR_NOT_DISTINCT) && lr != nil && rr != nil {
		return b.rowDistinct(lr.Args, rr.Args, x.Kind == q.A_Expr_Kind_AEXPR_NOT_DISTINCT, sc)
	}
	if lr := x.Lexpr.GetRowExpr(); x.Kind == q.A_Expr_Kind_AEXPR_IN && lr != nil {
		var ors []Expr
		for _, it := range x.Rexpr.GetList().Items {
			rr := it.GetRowExpr()
			if rr == nil {
				return nil, unsupported("row IN with non-row items is not supported")
			}
			e, err := b.rowCompare("=", lr.Args, rr.Args, sc)
			if err != nil {
				return nil, err
			}
			ors = append(ors, e)
		}
		var e Expr = &boolExpr{op: "OR", args: ors}
		if op == "<>" {
			e = &boolExpr{op: "NOT", args: []Expr{e}}
		}
		return e, nil
	}
	switch x.Kind {
	case q.A_Expr_Kind_AEXPR_OP:
		l, err := bindSide(x.Lexpr)
		if err != nil {
			return nil, err
		}
		r, err := bindSide(x.Rexpr)
		if err != nil {
			return nil, err
		}
		if l == nil {
			e, err := b.unaryOp(op, r)
			if err != nil {
				return nil, err
			}
			operand := r.Type().OID
			if operand == OIDUnknown {
				operand = OIDFloat8 // unaryOp's resolution of an untyped literal
			}
			if err := b.cat.checkPrefixOperatorExecute(op, operand); err != nil { // builtin_function_acl.go
				return nil, err
			}
			return e, nil
		}
		if e, ok, err := b.vectorOperator(op, l, r); ok {
			return e, err // pgvector's distance operators
		}
		e, err := b.binaryOp(op, l, r)
		if err != nil {
			return nil, err
		}
		if err := b.cat.checkOperatorExecute(op, l.Type(), r.Type(), e); err != nil { // builtin_function_acl.go
			return nil, err
		}
		return e, nil
	case q.A_Expr_Kind_AEXPR_DISTINCT, q.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		l, err := bindSide(x.Lexpr)
		if err != nil {
			return nil, err
		}
		r, err := bindSide(x.Rexpr)
		if err != nil {
			return nil, err
		}
		eq, err := b.binaryOp("=", l, r)
		if err != nil {
			return nil, err
		}
		return &distinctExpr{eq: eq.(*opExpr), not: x.Kind == q.A_Expr_Kind_AEXPR_NOT_DISTINCT}, nil
	case q.A_Expr_Kind_AEXPR_NULLIF:
		l, err := bindSide(x.Lexpr)
		if err != nil {
			return nil, err
		}
		r, err := bindSide(x.Rexpr)
		if err != nil {
			return nil, err
		}
		t, err := b.commonTypeCoerce([]Expr{l, r}, "NULLIF")
		if err != nil {
			return nil, err
		}
		_ = t
		l, _ = b.coerce(l, t, castImplicit, "")
		r, _ = b.coerce(r, t, castImplicit, "")
		eq, err := b.binaryOp("=", l, r)
		if err != nil {
			return nil, err
		}
		return &caseExpr{t: l.Type(), whens: []Expr{eq}, thens: []Expr{constNull(l.Type())}, els: l}, nil
	case q.A_Expr_Kind_AEXPR_IN:
		l, err := bindSide(x.Lexpr)
		if err != nil {
			return nil, err
		}
		items := x.Rexpr.GetList().Items
		list, err := b.bindList(items, sc)
		if err != nil {
			return nil, err
		}
		all := append([]Expr{l}, list...)
		t, err := b.commonType(all, "IN")
		if err != nil {
			return nil, err
		}
		if needEquality(t) != nil {
			return nil, opNotExist("=", t, t)
		}
		for i := range all {
			if all[i], err = b.coerce(all[i], t, castImplicit, ""); err != nil {
				return nil, err
			}
		}
		return &inListExpr{arg: all[0], list: all[1:], not: op == "<>"}, nil
	case q.A_Expr_Kind_AEXPR_LIKE, q.A_Expr_Kind_AEXPR_ILIKE, q.A_Expr_Kind_AEXPR_SIMILAR:
		l, err := bindSide(x.Lexpr)
		if err != nil {
			return nil, err
		}
		r, err := bindSide(x.Rexpr)
		if err != nil {
			return nil, err
		}
		if x.Kind == q.A_Expr_Kind_AEXPR_SIMILAR {
			return b.similarTo(l, r, op == "!~")
		}
		return b.binaryOp(op, l, r)
	case q.A_Expr_Kind_AEXPR_BETWEEN, q.A_Expr_Kind_AEXPR_NOT_BETWEEN, q.A_Expr_Kind_AEXPR_BETWEEN_SYM, q.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM:
		v, err := bindSide(x.Lexpr)
		if err != nil {
			return nil, err
		}
		bounds := x.Rexpr.GetList().Items
		lo, err := b.bindExpr(bounds[0], sc)
		if err != nil {
			return nil, err
		}
		hi, err := b.bindExpr(bounds[1], sc)
		if err != nil {
			return nil, err
		}
		ge, err := b.binaryOp(">=", v, lo)
		if err != nil {
			return nil, err
		}
		le, err := b.binaryOp("<=", v, hi)
		if err != nil {
			return nil, err
		}
		var e Expr = &boolExpr{op: "AND", args: []Expr{ge, le}}
		if x.Kind == q.A_Expr_Kind_AEXPR_BETWEEN_SYM || x.Kind == q.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM {
			ge2, _ := b.binaryOp(">=", v, hi)
			le2, _ := b.binaryOp("<=", v, lo)
			e = &boolExpr{op: "OR", args: []Expr{e, &boolExpr{op: "AND", args: []Expr{ge2, le2}}}}
		}
		if x.Kind == q.A_Expr_Kind_AEXPR_NOT_BETWEEN || x.Kind == q.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM {
			e = &boolExpr{op: "NOT", args: []Expr{e}}
		}
		return e, nil
	case q.A_Expr_Kind_AEXPR_OP_ANY, q.A_Expr_Kind_AEXPR_OP_ALL:
		l, err := bindSide(x.Lexpr)
		if err != nil {
			return nil, err
		}
		r, err := bindSide(x.Rexpr)
		if err != nil {
			return nil, err
		}
		return b.anyAll(op, l, r, x.Kind == q.A_Expr_Kind_AEXPR_OP_ALL)
	}
	return nil, unsupported("operator form is not supported")
}

// distinctExpr is IS [NOT] DISTINCT FROM: NULL-safe equality.
type distinctExpr struct {
	eq  *opExpr
	not bool
}

func (d *distinctExpr) Type() Type     { return TBool }
func (d *distinctExpr) String() string { return "DISTINCT(" + d.eq.String() + ")" }
func (d *distinctExpr) Eval(ec *evalCtx, b *Batch, sel []int32) (*Vec, error) {
	l, err := d.eq.args[0].Eval(ec, b, sel)
	if err != nil {
		return nil, err
	}
	r, err := d.eq.args[1].Eval(ec, b, sel)
	if err != nil {
		return nil, err
	}
	out := NewVec(TBool, b.N)
	forEach(b.N, sel, func(i int) {
		ln, rn := l.IsNull(i), r.IsNull(i)
		var same bool
		switch {
		case ln || rn:
			same = ln && rn
		default:
			same = cmpRows(l, i, r, i) == 0
		}
		out.B[i] = same == d.not
	})
	return out, nil
}

// numericRank orders the numeric category for promotion.
func numericRank(t Type) int {
	switch t.OID {
	case OIDInt2:
		return 1
	case OIDInt4:
		return 2
	case OIDInt8:
		return 3
	case OIDNumeric:
		return 4
	case OIDFloat4:
		return 5
	case OIDFloat8:
		return 6
	}
	return 0
}

// promoteNumeric gives the operator input type for two numeric types.
func promoteNumeric(a, b Type) Type {
	ra, rb := numericRank(a), numericRank(b)
	if (ra == 5 || rb == 5) && ra != rb {
		return TFloat8
	}
	if ra >= rb {
		return Type{a.OID, -1}
	}
	return Type{b.OID, -1}
}

// unknownPeer resolves an unknown-typed operand to the other side's type.
func (b *binder) unknownPeers(op string, l, r Expr) (Expr, Expr, error) {
	lt, rt := l.Type(), r.Type()
	var err error
	switch {
	case lt.OID == OIDUnknown && rt.OID == OIDUnknown:
		if l, err = b.coerce(l, TText, castImplicit, ""); err != nil {
			return nil, nil, err
		}
		r, err = b.coerce(r, TText, castImplicit, "")
	case lt.OID == OIDUnknown:
		t := rt
		if op == "+" && rt.isTemporal() || op == "-" && rt.OID == OIDInterval {
			t = TInterval
		}
		if op == "||" && !rt.IsArray() && rt.OID != OIDBytea && rt.OID != OIDJSONB {
			t = TText
		}
		if rt.OID == OIDBpchar || rt.OID == OIDVarchar || rt.OID == OIDName {
			t = Type{rt.OID, -1}
		}
		l, err = b.coerce(l, t, castImplicit, "")
	case rt.OID == OIDUnknown:
		t := lt
		if op == "+" && lt.isTemporal() {
			t = TInterval
		}
		if (op == "-" && lt.isTemporal() && lt.OID != OIDDate) || op == "||" && lt.IsArray() {
			t = lt
		}
		if op == "||" && !lt.IsArray() && lt.OID != OIDBytea && lt.OID != OIDJSONB {
			t = TText
		}
		if isRegexOp(op) || op == "~~" || op == "!~~" || op == "~~*" || op == "!~~*" {
			t = TText
			if lt.OID == OIDBytea && (op == "~~" || op == "!~~") {
				t = TBytea
			}
		}
		if (op == "->" || op == "->>" || op == "#>" || op == "#>>" || op == "?" || op == "-") && (lt.OID == OIDJSON || lt.OID == OIDJSONB) {
			return l, r, nil
		}
		if lt.OID == OIDBpchar || lt.OID == OIDVarchar || lt.OID == OIDName {
			t = Type{lt.OID, -1}
		}
		r, err = b.coerce(r, t, castImplicit, "")
	}
	return l, r, err
}

func isRegexOp(op string) bool {
	return op == "~" || op == "~*" || op == "!~" || op == "!~*"
}

func opNotExist(op string, l, r Type) error {
	return &Error{Code: CodeUndefinedFunction, Message: "operator does not exist: " + l.String() + " " + op + " " + r.String(),
		Hint: "No operator matches the given name and argument types. You might need to add explicit type casts."}
}

func unaryOpNotExist(op string, r Type) error {
	return &Error{Code: CodeUndefinedFunction, Message: "operator does not exist: " + op + " " + r.String(),
		Hint: "No operator matches the given name and argument types. You might need to add explicit type casts."}
}

// opNotUnique is PostgreSQL's answer when untyped literals leave several
// candidate operators ('1' + '1', -'1').
func opNotUnique(sig string) error {
	return &Error{Code: CodeAmbiguousFunction, Message: "operator is not unique: " + sig,
		Hint: "Could not choose a best candidate operator. You might need to add explicit type casts."}
}

// ambiguousUnknownBinary lists PostgreSQL 15's binary operators that have
// several candidates and none preferred when both operands are untyped
// literals ('1' + '1' is 42725, not integer addition); the other operator
// names resolve such literals as text (=, ||, ~~, ...) or one type (^, ?).
var ambiguousUnknownBinary = setOf("#", "##", "#>", "#>>", "%", "&", "&&", "&<", "&<|", "&>", "*", "+", "-",
	"->", "->>", "-|-", "/", "<->", "<<", "<<|", "<@", "<^", ">>", ">^", "?#", "?-|", "?|", "?||", "@>",
	"@@@", "|", "|&>", "|>>", "~=")

// ambiguousUnknownUnary is the prefix-operator counterpart (-'1').
var ambiguousUnknownUnary = setOf("#", "-", "?-", "?|", "@-@", "@@", "~")

func setOf(xs ...string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// binaryOp resolves and binds l op r.
func (b *binder) binaryOp(op string, l, r Expr) (Expr, error) {
	if op == "!=" {
		op = "<>"
	}
	if (op == "-" || op == "#-") && l.Type().OID == OIDJSONB {
		return b.jsonbDeleteOp(op, l, r)
	}
	if (op == "?|" || op == "?&") && l.Type().OID == OIDJSONB {
		return b.jsonbExistsAnyAll(op, l, r)
	}
	// errors name the operand types as written (unknown for literals)
	lt0, rt0 := l.Type(), r.Type()
	if lt0.OID == OIDUnknown && rt0.OID == OIDUnknown && ambiguousUnknownBinary[op] {
		return nil, opNotUnique("unknown " + op + " unknown")
	}
	opNotExist := func(op string, _, _ Type) error { return opNotExist(op, lt0, rt0) }
	l0, r0 := l, r
	l, r, err := b.unknownPeers(op, l, r)
	if err != nil {
		if (lt0.OID == OIDUnknown) != (rt0.OID == OIDUnknown) {
			// a literal that does not parse as the other side's type is
			// only an error if the operator exists: PostgreSQL resolves
			// the operator first (1 <-> 'b' is 42883, not 22P02)
			if lt0.OID == OIDUnknown {
				l0 = constNull(TUnknown)
			} else {
				r0 = constNull(TUnknown)
			}
			if _, perr := b.binaryOp(op, l0, r0); perr != nil && Code(perr) == CodeUndefinedFunction {
				return nil, perr
			}
		}
		return nil, err
	}
	lt, rt := l.Type(), r.Type()
	mk := func(t Type, k kernel, args ...Expr) Expr {
		return &opExpr{name: op, t: t, args: args, k: k, strict: true}
	}
	castBoth := func(t Type) (Expr, Expr, error) {
		l2, err := b.coerce(l, t, castImplicit, "")
		if err != nil {
			return nil, nil, err
		}
		r2, err := b.coerce(r, t, castImplicit, "")
		return l2, r2, err
	}
	if lt.IsArray() && rt.IsArray() && lt.OID != rt.OID && op != "||" {
		// anyarray operators need one array type: integer[] = numeric[]
		// has no operator in PostgreSQL (array_cat unifies, || above)
		return nil, opNotExist(op, lt, rt)
	}
	if c, ok := cmpOps[op]; ok {
		t, ok := comparableType(lt, rt)
		if !ok {
			return nil, opNotExist(op, lt, rt)
		}
		l2, r2, err := castBoth(t)
		if err != nil {
			return nil, err
		}
		if lk := b.enumSortKeyOf(l2); lk != nil { // enums compare by declaration (enums.go)
			if rk := b.enumSortKeyOf(r2); rk != nil {
				l2, r2 = lk, rk
			}
		}
		return mk(TBool, cmpKernel(c), l2, r2), nil
	}
	if e, ok, err := b.tableOp(op, l, r); ok || err != nil {
		return e, err // arithmetic and date/time operators (op_table.go)
	}
	switch op {
	case "||":
		return b.concatOp(l, r, opNotExist)
	case "~~", "!~~", "~~*", "!~~*", "~", "~*", "!~", "!~*":
		return b.patternOp(op, l, r, opNotExist)
	case "->", "->>", "#>", "#>>", "?", "@>", "<@", "?|", "?&":
		if lt.OID == OIDJSON || lt.OID == OIDJSONB {
			return b.jsonOp(op, l, r)
		}
		if op == "@>" || op == "<@" {
			if lt.IsArray() && rt.IsArray() {
				return b.arrayContains(op, l, r)
			}
		}
		return nil, opNotExist(op, lt, rt)
	case "&&":
		if lt.IsArray() && rt.IsArray() {
			return b.arrayContains(op, l, r)
		}
	case "^@", "~<~", "~<=~", "~>=~", "~>~":
		if e, ok, err := b.textPatternOp(op, l, r); ok || err != nil {
			return e, err
		}
	case "@@":
		if lt.isString() && rt.isString() {
			// text @@ text is full text search (to_tsvector @@ plainto_tsquery)
			return nil, unsupported("text search operator @@ is not supported")
		}
	}
	return nil, opNotExist(op, lt, rt)
}

// concatOp binds l || r: arrays, jsonb, bytea, or text (a text operand
// and anything as its text form).
func (b *binder) concatOp(l, r Expr, opNotExist func(string, Type, Type) error) (Expr, error) {
	const op = "||"
	lt, rt := l.Type(), r.Type()
	mk := func(t Type, k kernel, args ...Expr) Expr {
		return &opExpr{name: op, t: t, args: args, k: k, strict: true}
	}
	if lt.IsArray() || rt.IsArray() {
		return b.arrayConcat(l, r)
	}
	if lt.OID == OIDJSONB && rt.OID == OIDJSONB {
		return mk(TJSONB, jsonbConcatKernel, l, r), nil
	}
	if lt.OID == OIDBytea && rt.OID == OIDBytea {
		return mk(TBytea, concatKernel, l, r), nil
	}
	if !lt.isString() && !rt.isString() {
		// text || anynonarray needs a text operand
		return nil, opNotExist(op, lt, rt)
	}
	l2, err := b.toText(l)
	if err != nil {
		return nil, err
	}
	r2, err := b.toText(r)
	if err != nil {
		return nil, err
	}
	return mk(TText, concatKernel, l2, r2), nil
}

// patternOp binds LIKE (~~, ~~* and negations; bytea LIKE too) and
// regular expression matches (~, ~* and negations).
func (b *binder) patternOp(op string, l, r Expr, opNotExist func(string, Type, Type) error) (Expr, error) {
	lt, rt := l.Type(), r.Type()
	like := op == "~~" || op == "!~~" || op == "~~*" || op == "!~~*"
	if like && lt.OID == OIDBytea && rt.OID == OIDBytea && (op == "~~" || op == "!~~") {
		return byteaLikeExpr(op, l, r), nil
	}
	if !likeOperand(lt) || !likeOperand(rt) {
		return nil, opNotExist(op, lt, rt)
	}
	l2, err := b.toTextLike(l)
	if err != nil {
		return nil, err
	}
	r2, err := b.toTextLike(r)
	if err != nil {
		return nil, err
	}
	if like {
		return b.likeExpr(op, l2, r2)
	}
	return b.regexExpr(op, l2, r2)
}

// comparableType picks the type both sides are compared as.
func comparableType(a, b Type) (Type, bool) {
	if needEquality(a) != nil || needEquality(b) != nil {
		return Type{}, false // json has no comparison operators
	}
	if a.OID == b.OID {
		return Type{a.OID, -1}, true
	}
	if numericRank(a) > 0 && numericRank(b) > 0 {
		return promoteNumeric(a, b), true
	}
	if a.isString() && b.isString() {
		return TText, true
	}
	if a.isTemporal() && b.isTemporal() && a.OID != OIDTime && b.OID != OIDTime {
		if a.OID == OIDTimestamptz || b.OID == OIDTimestamptz {
			return TTimestamptz, true
		}
		return TTimestamp, true
	}
	if isOidLike(a) && (b.isInt() || isOidLike(b)) || isOidLike(b) && a.isInt() {
		return TOid, true
	}
	if (a.OID == OIDJSON || a.OID == OIDJSONB) && a.OID == b.OID {
		return a, true
	}
	if a.IsArray() && b.IsArray() {
		if et, ok := comparableType(a.Elem(), b.Elem()); ok {
			at, ok2 := ArrayOf(et)
			return at, ok2
		}
	}
	return Type{}, false
}

func (b *binder) toText(e Expr) (Expr, error) {
	t := e.Type()
	if t.OID == OIDText || t.OID == OIDVarchar || t.OID == OIDUnknown {
		return b.coerce(e, TText, castImplicit, "")
	}
	return &castExpr{arg: e, t: TText}, nil
}

func (b *binder) toTextLike(e Expr) (Expr, error) {
	t := e.Type()
	if t.isString() || t.OID == OIDUnknown {
		if t.OID == OIDBpchar {
			return &castExpr{arg: e, t: TText}, nil
		}
		return b.coerce(e, TText, castImplicit, "")
	}
	return nil, errf(CodeUndefinedFunction, "operator does not exist: %s ~~ text", t)
}

func (b *binder) unaryOp(op string, r Expr) (Expr, error) {
	rt := r.Type()
	if rt.OID == OIDUnknown {
		if ambiguousUnknownUnary[op] {
			return nil, opNotUnique(op + " unknown")
		}
		// the remaining numeric prefix operators resolve an untyped
		// literal to the preferred type, double precision
		var err error
		if r, err = b.coerce(r, TFloat8, castImplicit, ""); err != nil {
			return nil, err
		}
		rt = TFloat8
	}
	switch op {
	case "-":
		if numericRank(rt) > 0 || rt.OID == OIDInterval {
			t := Type{rt.OID, -1}
			if c, ok := r.(*constExpr); ok && !c.isNull() {
				// fold so that -2147483648 stays an int4 literal
				v, err := negKernelConst(c, t)
				if err == nil {
					return v, nil
				}
			}
			return &opExpr{name: "-", t: t, args: []Expr{r}, k: negKernel(t), strict: true}, nil
		}
	case "+":
		if numericRank(rt) > 0 || rt.OID == OIDInterval {
			return r, nil
		}
	case "~":
		if rt.isInt() {
			return &opExpr{name: "~", t: rt, args: []Expr{r}, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
				for _, i := range sel {
					out.I[i] = ^a[0].I[i]
				}
				return nil
			}, strict: true}, nil
		}
	case "|/", "||/":
		if numericRank(rt) > 0 {
			r2, err := b.coerce(r, TFloat8, castImplicit, "")
			if err != nil {
				return nil, err
			}
			return b.funcByName(map[string]string{"|/": "sqrt", "||/": "cbrt"}[op], []Expr{r2})
		}
	case "@":
		if numericRank(rt) > 0 {
			return b.funcByName("abs", []Expr{r})
		}
	}
	return nil, unaryOpNotExist(op, rt)
}

func negKernelConst(c *constExpr, t Type) (Expr, error) {
	out := NewVec(t, 1)
	if err := negKernel(t)(nil, []*Vec{c.val}, out, []int32{0}); err != nil {
		return nil, err
	}
	return newConst(out), nil
}

// scaleInterval multiplies an interval, cascading fractional months into
// days and fractional days into time as PostgreSQL does.
func scaleInterval(v Interval, f float64) Interval {
	m := float64(v.Months) * f
	months := int32(m)
	d := float64(v.Days)*f + (m-float64(months))*30
	days := int32(d)
	us := float64(v.Micros)*f + (d-float64(days))*usPerDay
	return Interval{Months: months, Days: days, Micros: int64(roundHalfEven(us))}
}

// divideInterval is interval / float with PostgreSQL's cascade: the
// fractional months become days rounded to microsecond precision (as a
// day count), the fractional days become seconds rounded likewise.
func divideInterval(v Interval, f float64) Interval {
	months := int32(float64(v.Months) / f)
	days := int32(float64(v.Days) / f)
	tsRound := func(x float64) float64 { return math.RoundToEven(x*1e6) / 1e6 }
	monthDays := tsRound((float64(v.Months)/f - float64(months)) * 30)
	secs := tsRound((float64(v.Days)/f - float64(days) + monthDays - float64(int64(monthDays))) * 86400)
	if math.Abs(secs) >= 86400 {
		days += int32(secs / 86400)
		secs -= float64(int64(secs/86400)) * 86400
	}
	days += int32(monthDays)
	us := math.RoundToEven(float64(v.Micros)/f + secs*1e6)
	return Interval{Months: months, Days: days, Micros: int64(us)}
}

func roundHalfEven(f float64) float64 {
	r := float64(int64(f))
	diff := f - r
	switch {
	case diff > 0.5 || (diff == 0.5 && int64(r)%2 != 0):
		return r + 1
	case diff < -0.5 || (diff == -0.5 && int64(r)%2 != 0):
		return r - 1
	}
	return r
}

func concatKernel(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
	for _, i := range sel {
		if n := len(a[0].S[i]) + len(a[1].S[i]); n > maxValueBytes {
			return checkValueGrowth(len(a[0].S[i]), len(a[1].S[i]))
		} else if err := checkValueBudget(ec, int64(n)); err != nil {
			return err
		}
		out.S[i] = a[0].S[i] + a[1].S[i]
	}
	return nil
}

var _ = strings.ToLower

func isOidLike(t Type) bool {
	switch t.OID {
	case OIDOid, OIDRegclass, OIDRegtype, OIDRegnamespace, OIDRegproc, OIDRegprocedure, OIDRegoperator:
		return true
	}
	return false
}

// rowCompare expands (a1, a2, ...) op (b1, b2, ...) into scalar
// comparisons with SQL's left-to-right row comparison semantics.
func (b *binder) rowCompare(op string, ls, rs []*q.Node, sc *scope) (Expr, error) {
	if len(ls) != len(rs) {
		return nil, errf(CodeSyntaxError, "unequal number of entries in row expressions")
	}
	if len(ls) == 0 {
		return nil, unsupported("empty row comparisons are not supported")
	}
	if op == "!=" {
		op = "<>"
	}
	l, err := b.bindList(ls, sc)
	if err != nil {
		return nil, err
	}
	r, err := b.bindList(rs, sc)
	if err != nil {
		return nil, err
	}
	pair := func(o string, i int) (Expr, error) { return b.binaryOp(o, l[i], r[i]) }
	switch op {
	case "=", "<>":
		parts := make([]Expr, len(l))
		for i := range l {
			if parts[i], err = pair(op, i); err != nil {
				return nil, err
			}
		}
		if op == "=" {
			return &boolExpr{op: "AND", args: parts}, nil
		}
		return &boolExpr{op: "OR", args: parts}, nil
	case "<", "<=", ">", ">=":
		strict := op[:1]
		// build from the last column backwards: a_n op b_n, then
		// a_i strict b_i OR (a_i = b_i AND rest)
		acc, err := pair(op, len(l)-1)
		if err != nil {
			return nil, err
		}
		for i := len(l) - 2; i >= 0; i-- {
			lt, err := pair(strict, i)
			if err != nil {
				return nil, err
			}
			eq, err := pair("=", i)
			if err != nil {
				return nil, err
			}
			acc = &boolExpr{op: "OR", args: []Expr{lt, &boolExpr{op: "AND", args: []Expr{eq, acc}}}}
		}
		return acc, nil
	}
	return nil, unsupported("row comparison operator %s is not supported", op)
}

// rowDistinct is (a1, a2) IS [NOT] DISTINCT FROM (b1, b2): the rows are
// distinct when any pair is.
func (b *binder) rowDistinct(ls, rs []*q.Node, not bool, sc *scope) (Expr, error) {
	if len(ls) != len(rs) {
		return nil, errf(CodeSyntaxError, "unequal number of entries in row expressions")
	}
	l, err := b.bindList(ls, sc)
	if err != nil {
		return nil, err
	}
	r, err := b.bindList(rs, sc)
	if err != nil {
		return nil, err
	}
	parts := make([]Expr, len(l))
	for i := range l {
		eq, err := b.binaryOp("=", l[i], r[i])
		if err != nil {
			return nil, err
		}
		parts[i] = &distinctExpr{eq: eq.(*opExpr)}
	}
	var e Expr = &boolExpr{op: "OR", args: parts}
	if not {
		e = &boolExpr{op: "NOT", args: []Expr{e}}
	}
	return e, nil
}

// needEquality fails as PostgreSQL does when a type has no equality
// operator (json, json[]) but DISTINCT, GROUP BY or a set operation needs
// one.
func needEquality(t Type) error {
	e := t
	if t.IsArray() {
		e = t.Elem()
	}
	if e.OID == OIDJSON {
		return errf(CodeUndefinedFunction, "could not identify an equality operator for type %s", t)
	}
	return nil
}
