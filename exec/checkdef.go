package exec

import (
	"strconv"
	"strings"

	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// CHECK expressions as PostgreSQL's analyzer stores them and
// pg_get_constraintdef prints them: the implicit coercions the parser
// added are shown (CHECK (score >= 0::numeric) on a numeric column,
// v::text on a varchar), BETWEEN is expanded, IN becomes = ANY (ARRAY[…]),
// LIKE prints as ~~, and the non-pretty form parenthesizes every operator
// (pg_dump's CHECK ((score >= (0)::numeric))). The stored text is the
// statement's own; it is re-typed here against the table's columns. An
// expression with a shape this printer does not model prints as written.

// ckVal is one printed subexpression: its text, PostgreSQL type name and
// what kind of thing it is (coercions and parentheses depend on it).
type ckVal struct {
	s    string
	typ  string // format_type name; "unknown" for a string literal
	kind ckKind
}

type ckKind int

const (
	ckSimple ckKind = iota // column, function call, labeled constant
	ckInt                  // non-negative integer literal
	ckNum                  // decimal literal
	ckStr                  // string literal of unknown type (s is quoted)
	ckOp                   // operator or boolean expression
)

type ckPrinter struct {
	t      *TableDef
	pretty bool
}

// checkDefinition is a CHECK constraint's expression as
// pg_get_constraintdef prints it inside CHECK (…), or false when the
// expression has a shape it does not model.
func checkDefinition(expr string, t *TableDef, pretty bool) (string, bool) {
	res, err := q.Parse("SELECT " + expr)
	if err != nil || len(res.Stmts) != 1 {
		return "", false
	}
	sel := res.Stmts[0].Stmt.GetSelectStmt()
	if sel == nil || len(sel.TargetList) != 1 {
		return "", false
	}
	p := &ckPrinter{t: t, pretty: pretty}
	v, ok := p.expr(sel.TargetList[0].GetResTarget().GetVal())
	if !ok || v.typ != "boolean" {
		return "", false
	}
	return v.s, true
}

// wrap parenthesizes an operator in the non-pretty form.
func (p *ckPrinter) wrap(s string) string {
	if p.pretty {
		return s
	}
	return "(" + s + ")"
}

// operand is v as an operand of an operator: in the pretty form a nested
// operator keeps its parentheses (the non-pretty form has them already).
func (p *ckPrinter) operand(v ckVal) string {
	if p.pretty && v.kind == ckOp {
		return "(" + v.s + ")"
	}
	return v.s
}

// cast shows v coerced to typ.
func (p *ckPrinter) cast(v ckVal, typ string) string {
	switch {
	case v.typ == typ && v.kind != ckStr:
		return p.operand(v)
	case v.kind == ckStr:
		return v.s + "::" + typ
	case p.pretty && v.kind != ckOp:
		return v.s + "::" + typ
	case p.pretty:
		return "(" + v.s + ")::" + typ
	default:
		return "(" + v.s + ")::" + typ
	}
}

func (p *ckPrinter) expr(n *q.Node) (ckVal, bool) {
	switch {
	case n.GetColumnRef() != nil:
		fields := n.GetColumnRef().Fields
		if len(fields) != 1 || fields[0].GetString_() == nil {
			return ckVal{}, false
		}
		name := fields[0].GetString_().Sval
		for _, c := range p.t.Columns {
			if c.Name == name {
				if p.t.Kind == domainValueKind {
					return ckVal{s: "VALUE", typ: FormatType(c.Type.OID, -1)}, true // domains.go
				}
				return ckVal{s: quoteIdent(name), typ: FormatType(c.Type.OID, -1)}, true
			}
		}
		return ckVal{}, false
	case n.GetAConst() != nil:
		return p.constant(n.GetAConst())
	case n.GetAExpr() != nil:
		return p.aexpr(n.GetAExpr())
	case n.GetBoolExpr() != nil:
		return p.boolExpr(n.GetBoolExpr())
	case n.GetNullTest() != nil:
		nt := n.GetNullTest()
		v, ok := p.expr(nt.Arg)
		if !ok {
			return ckVal{}, false
		}
		test := " IS NULL"
		if nt.Nulltesttype == q.NullTestType_IS_NOT_NULL {
			test = " IS NOT NULL"
		}
		return ckVal{s: p.wrap(p.operand(v) + test), typ: "boolean", kind: ckOp}, true
	case n.GetFuncCall() != nil:
		return p.funcCall(n.GetFuncCall())
	}
	return ckVal{}, false
}

func (p *ckPrinter) constant(c *q.A_Const) (ckVal, bool) {
	switch {
	case c.Isnull:
		return ckVal{}, false
	case c.GetIval() != nil:
		i := c.GetIval().Ival
		if i < 0 {
			return ckVal{s: "'" + strconv.FormatInt(int64(i), 10) + "'::integer", typ: "integer"}, true
		}
		return ckVal{s: strconv.FormatInt(int64(i), 10), typ: "integer", kind: ckInt}, true
	case c.GetFval() != nil:
		f := c.GetFval().Fval
		if strings.HasPrefix(f, "-") {
			return ckVal{}, false
		}
		if _, err := strconv.ParseInt(f, 10, 64); err == nil {
			return ckVal{s: "'" + f + "'::bigint", typ: "bigint"}, true
		}
		if strings.ContainsAny(f, "eE") {
			return ckVal{}, false
		}
		return ckVal{s: f, typ: "numeric", kind: ckNum}, true
	case c.GetSval() != nil:
		return ckVal{s: quoteLiteral(c.GetSval().Sval), typ: "unknown", kind: ckStr}, true
	case c.GetBoolval() != nil:
		if c.GetBoolval().Boolval {
			return ckVal{s: "true", typ: "boolean"}, true
		}
		return ckVal{s: "false", typ: "boolean"}, true
	}
	return ckVal{}, false
}

// numRank orders the numeric types for the implicit promotions between
// them: integers, then numeric, then floating point.
func numRank(typ string) int {
	switch typ {
	case "smallint", "integer", "bigint":
		return 1
	case "numeric":
		return 2
	case "real", "double precision":
		return 3
	}
	return 0
}

func intWidth(typ string) int {
	return map[string]int{"smallint": 2, "integer": 4, "bigint": 8}[typ]
}

// opTypes decides the operand types of a binary operator as PostgreSQL's
// operator resolution does for the built-in operators: the cast each
// side gets ("" none) and the common type.
func opTypes(l, r ckVal) (lt, rt, common string, ok bool) {
	lty, rty := l.typ, r.typ
	switch {
	case lty == "unknown" && rty == "unknown":
		return "", "", "", false
	case lty == "unknown":
		t := stringOpType(rty)
		if t == "" {
			return "", "", "", false
		}
		return t, castIfDiffers(rty, t), t, true
	case rty == "unknown":
		t := stringOpType(lty)
		if t == "" {
			return "", "", "", false
		}
		return castIfDiffers(lty, t), t, t, true
	}
	lr, rr := numRank(lty), numRank(rty)
	switch {
	case lr > 0 && rr > 0:
		switch {
		case lr == 1 && rr == 1:
			// cross-type integer operators: no coercion
			if intWidth(lty) >= intWidth(rty) {
				return "", "", lty, true
			}
			return "", "", rty, true
		case lr == 3 && rr == 3:
			return "", "", "double precision", true
		case lr == rr:
			return "", "", lty, true
		case lr == 3 || rr == 3:
			// integers and numeric meet floating point as double precision
			lt, rt := "", ""
			if lr != 3 {
				lt = "double precision"
			}
			if rr != 3 {
				rt = "double precision"
			}
			return lt, rt, "double precision", true
		case lr < rr:
			return "numeric", "", "numeric", true
		default:
			return "", "numeric", "numeric", true
		}
	case lty == rty && lty == "character varying":
		return "text", "text", "text", true
	case lty == rty:
		return "", "", lty, true
	case lty == "character varying" && rty == "text":
		return "text", "", "text", true
	case lty == "text" && rty == "character varying":
		return "", "text", "text", true
	}
	return "", "", "", false
}

// stringOpType is the type a string literal takes opposite a value of
// type typ ("" when not modeled).
func stringOpType(typ string) string {
	switch typ {
	case "character varying", "text":
		return "text"
	case "bpchar", "character":
		return "bpchar"
	case "smallint", "integer", "bigint", "numeric", "real", "double precision", "date", "boolean", "uuid":
		return typ
	}
	return ""
}

func castIfDiffers(typ, to string) string {
	if typ == to {
		return ""
	}
	return to
}

// castTo prints v as an operand of type to ("" = its own type).
func (p *ckPrinter) castTo(v ckVal, to string) string {
	if to == "" {
		return p.operand(v)
	}
	return p.cast(v, to)
}

var ckComparison = map[string]bool{"=": true, "<>": true, "<": true, ">": true, "<=": true, ">=": true}
var ckArith = map[string]bool{"+": true, "-": true, "*": true, "/": true, "%": true}

func (p *ckPrinter) binary(op string, l, r ckVal) (ckVal, bool) {
	if op == "!=" {
		op = "<>"
	}
	if !ckComparison[op] && !ckArith[op] {
		return ckVal{}, false
	}
	if l.kind == ckStr && r.kind == ckStr {
		return ckVal{}, false
	}
	lt, rt, common, ok := opTypes(l, r)
	if !ok || ckArith[op] && numRank(common) == 0 {
		return ckVal{}, false
	}
	typ := "boolean"
	if ckArith[op] {
		typ = common
	}
	return ckVal{s: p.wrap(p.castTo(l, lt) + " " + op + " " + p.castTo(r, rt)), typ: typ, kind: ckOp}, true
}

func ckOpName(names []*q.Node) (string, bool) {
	if len(names) != 1 || names[0].GetString_() == nil {
		return "", false
	}
	return names[0].GetString_().Sval, true
}

func (p *ckPrinter) aexpr(e *q.A_Expr) (ckVal, bool) {
	op, ok := ckOpName(e.Name)
	if !ok {
		return ckVal{}, false
	}
	switch e.Kind {
	case q.A_Expr_Kind_AEXPR_OP:
		if e.Lexpr == nil {
			return ckVal{}, false
		}
		l, ok1 := p.expr(e.Lexpr)
		r, ok2 := p.expr(e.Rexpr)
		if !ok1 || !ok2 {
			return ckVal{}, false
		}
		return p.binary(op, l, r)
	case q.A_Expr_Kind_AEXPR_LIKE, q.A_Expr_Kind_AEXPR_ILIKE:
		l, ok1 := p.expr(e.Lexpr)
		r, ok2 := p.expr(e.Rexpr)
		if !ok1 || !ok2 || r.kind != ckStr || (l.typ != "text" && l.typ != "character varying") {
			return ckVal{}, false
		}
		sym := map[string]string{"~~": "~~", "!~~": "!~~", "~~*": "~~*", "!~~*": "!~~*"}[op]
		if sym == "" {
			return ckVal{}, false
		}
		return ckVal{s: p.wrap(p.castTo(l, castIfDiffers(l.typ, "text")) + " " + sym + " " + r.s + "::text"), typ: "boolean", kind: ckOp}, true
	case q.A_Expr_Kind_AEXPR_BETWEEN, q.A_Expr_Kind_AEXPR_NOT_BETWEEN:
		bounds := e.Rexpr.GetList().GetItems()
		if len(bounds) != 2 {
			return ckVal{}, false
		}
		x, ok0 := p.expr(e.Lexpr)
		lo, ok1 := p.expr(bounds[0])
		hi, ok2 := p.expr(bounds[1])
		if !ok0 || !ok1 || !ok2 {
			return ckVal{}, false
		}
		op1, op2, join := ">=", "<=", " AND "
		if e.Kind == q.A_Expr_Kind_AEXPR_NOT_BETWEEN {
			op1, op2, join = "<", ">", " OR "
		}
		a, ok1 := p.binary(op1, x, lo)
		b, ok2 := p.binary(op2, x, hi)
		if !ok1 || !ok2 {
			return ckVal{}, false
		}
		return ckVal{s: p.wrap(a.s + join + b.s), typ: "boolean", kind: ckOp}, true
	case q.A_Expr_Kind_AEXPR_IN:
		items := e.Rexpr.GetList().GetItems()
		quant := "ANY"
		switch op {
		case "=":
		case "<>":
			quant = "ALL"
		default:
			return ckVal{}, false
		}
		return p.arrayOp(e.Lexpr, op, quant, items)
	case q.A_Expr_Kind_AEXPR_OP_ANY, q.A_Expr_Kind_AEXPR_OP_ALL:
		arr := e.Rexpr.GetAArrayExpr()
		if arr == nil {
			return ckVal{}, false
		}
		quant := "ANY"
		if e.Kind == q.A_Expr_Kind_AEXPR_OP_ALL {
			quant = "ALL"
		}
		return p.arrayOp(e.Lexpr, op, quant, arr.Elements)
	}
	return ckVal{}, false
}

// arrayOp prints x op ANY|ALL (ARRAY[items]) with the elements coerced
// to x's type (a varchar x compares as text: PostgreSQL builds the array
// of varchar and casts it to text[]).
func (p *ckPrinter) arrayOp(lexpr *q.Node, op, quant string, items []*q.Node) (ckVal, bool) {
	if !ckComparison[op] || len(items) == 0 {
		return ckVal{}, false
	}
	x, ok := p.expr(lexpr)
	if !ok {
		return ckVal{}, false
	}
	var elems []ckVal
	elemType := x.typ
	for _, it := range items {
		v, ok := p.expr(it)
		if !ok {
			return ckVal{}, false
		}
		elems = append(elems, v)
		if v.kind != ckStr && numRank(v.typ) > numRank(elemType) {
			elemType = v.typ
		}
	}
	if numRank(elemType) == 0 && elemType != x.typ {
		return ckVal{}, false
	}
	parts := make([]string, len(elems))
	for i, v := range elems {
		switch {
		case v.kind == ckStr:
			parts[i] = v.s + "::" + elemType
		case numRank(v.typ) > 0 && numRank(elemType) > 0:
			if numRank(v.typ) == 1 && numRank(elemType) == 1 {
				if intWidth(v.typ) > intWidth(elemType) {
					return ckVal{}, false
				}
				parts[i] = p.operand(v)
			} else {
				parts[i] = p.cast(v, elemType)
			}
		case v.typ == elemType:
			parts[i] = p.operand(v)
		default:
			return ckVal{}, false
		}
	}
	arr := "ARRAY[" + strings.Join(parts, ", ") + "]"
	left := p.operand(x)
	switch {
	case x.typ == "character varying":
		left = p.cast(x, "text")
		if p.pretty {
			arr += "::text[]"
		} else {
			arr = "(" + arr + ")::text[]"
		}
	case numRank(x.typ) > 0 && numRank(elemType) > numRank(x.typ):
		left = p.cast(x, elemType)
	case numRank(x.typ) == 0 && elemType != x.typ:
		return ckVal{}, false
	}
	return ckVal{s: p.wrap(left + " " + op + " " + quant + " (" + arr + ")"), typ: "boolean", kind: ckOp}, true
}

func (p *ckPrinter) boolExpr(b *q.BoolExpr) (ckVal, bool) {
	var parts []string
	for _, a := range b.Args {
		v, ok := p.expr(a)
		if !ok || v.typ != "boolean" {
			return ckVal{}, false
		}
		s := v.s
		if p.pretty {
			// a nested AND/OR of the other kind, or any NOT operand that
			// is an operator, keeps its parentheses
			if inner := a.GetBoolExpr(); inner != nil && inner.Boolop != b.Boolop && inner.Boolop != q.BoolExprType_NOT_EXPR {
				s = "(" + s + ")"
			} else if b.Boolop == q.BoolExprType_NOT_EXPR && v.kind == ckOp {
				s = "(" + s + ")"
			}
		}
		parts = append(parts, s)
	}
	switch b.Boolop {
	case q.BoolExprType_AND_EXPR:
		return ckVal{s: p.wrap(strings.Join(parts, " AND ")), typ: "boolean", kind: ckOp}, true
	case q.BoolExprType_OR_EXPR:
		return ckVal{s: p.wrap(strings.Join(parts, " OR ")), typ: "boolean", kind: ckOp}, true
	case q.BoolExprType_NOT_EXPR:
		if len(parts) != 1 {
			return ckVal{}, false
		}
		return ckVal{s: p.wrap("NOT " + parts[0]), typ: "boolean", kind: ckOp}, true
	}
	return ckVal{}, false
}

// ckTextFuncs are the string functions CHECK constraints commonly use:
// one text argument, their result type.
var ckTextFuncs = map[string]string{"length": "integer", "char_length": "integer", "lower": "text", "upper": "text", "btrim": "text"}

func (p *ckPrinter) funcCall(fc *q.FuncCall) (ckVal, bool) {
	name, ok := ckOpName(fc.Funcname)
	if !ok || len(fc.Args) != 1 || fc.AggStar || fc.Over != nil || fc.AggDistinct || len(fc.AggOrder) > 0 || fc.AggFilter != nil {
		return ckVal{}, false
	}
	res, ok := ckTextFuncs[name]
	if !ok {
		return ckVal{}, false
	}
	a, ok := p.expr(fc.Args[0])
	if !ok || a.kind == ckStr {
		return ckVal{}, false
	}
	var arg string
	switch a.typ {
	case "text":
		arg = p.operand(a)
	case "character varying":
		arg = p.cast(a, "text")
	default:
		return ckVal{}, false
	}
	return ckVal{s: name + "(" + arg + ")", typ: res}, true
}
