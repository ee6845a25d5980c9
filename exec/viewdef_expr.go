package exec

import (
	"strconv"
	"strings"

	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// Expressions of pg_get_viewdef's text. Parentheses follow PostgreSQL's
// rules: in pretty mode only where the parent would otherwise bind
// differently (arithmetic precedence, OR under AND, sublinks and
// = ANY under boolean operators); otherwise around every operator
// expression.

// exprCtx is where an expression is printed, for its parentheses.
type exprCtx struct {
	kind string // "", "and", "or", "not", "op", "cast"
	op   string // the parent operator (kind "op")
	left bool   // the expression is the parent operator's left operand
}

var noCtx = &exprCtx{}

func (p *viewPrinter) expr(n *q.Node, ctx *exprCtx) {
	if ctx == nil {
		ctx = noCtx
	}
	if n == nil {
		p.write("NULL")
		return
	}
	paren := p.needParens(n, ctx)
	if paren {
		p.write("(")
	}
	p.exprBare(n)
	if paren {
		p.write(")")
	}
}

// simpleArith is the precedence class of the basic arithmetic
// operators: 1 for + -, 2 for * / %, 0 for any other.
func simpleArith(op string) int {
	switch op {
	case "+", "-":
		return 1
	case "*", "/", "%":
		return 2
	}
	return 0
}

// viewOpName is the name of a binary or prefix operator expression ("" when n
// is none).
func viewOpName(n *q.Node) (string, bool) {
	e := n.GetAExpr()
	if e == nil || e.Kind != q.A_Expr_Kind_AEXPR_OP || len(e.Name) == 0 {
		return "", false
	}
	return e.Name[len(e.Name)-1].GetString_().GetSval(), e.Lexpr == nil
}

// needParens decides whether n needs parentheses where it is printed.
func (p *viewPrinter) needParens(n *q.Node, ctx *exprCtx) bool {
	switch x := n.GetNode().(type) {
	case *q.Node_SubLink:
		// EXISTS/IN/ANY/ALL and scalar subqueries print their own; pretty
		// mode adds a pair around a scalar subquery operand
		return p.pretty && x.SubLink.SubLinkType == q.SubLinkType_EXPR_SUBLINK && ctx.kind == "op"
	case *q.Node_AExpr:
		if x.AExpr.Kind == q.A_Expr_Kind_AEXPR_NULLIF {
			return false
		}
	case *q.Node_BoolExpr, *q.Node_NullTest, *q.Node_BooleanTest:
	default:
		return false
	}
	if !p.pretty {
		return true
	}
	if ctx.kind == "" {
		return false
	}
	if ctx.kind == "cast" {
		return true
	}
	if b := n.GetBoolExpr(); b != nil {
		switch ctx.kind {
		case "and":
			return b.Boolop == q.BoolExprType_OR_EXPR
		case "or":
			return false
		case "not":
			return b.Boolop != q.BoolExprType_NOT_EXPR
		}
		return true
	}
	if e := n.GetAExpr(); e != nil {
		switch e.Kind {
		case q.A_Expr_Kind_AEXPR_BETWEEN: // printed as an AND of two comparisons
			return ctx.kind != "and" && ctx.kind != "or" && ctx.kind != "not"
		case q.A_Expr_Kind_AEXPR_NOT_BETWEEN: // as an OR
			return ctx.kind != "or" && ctx.kind != "not"
		case q.A_Expr_Kind_AEXPR_OP_ANY, q.A_Expr_Kind_AEXPR_OP_ALL, q.A_Expr_Kind_AEXPR_IN:
			return true
		}
	}
	switch ctx.kind {
	case "and", "or", "not":
		return false // comparisons and tests bind tighter than AND/OR/NOT
	case "op":
		op, prefix := viewOpName(n)
		if prefix {
			return false
		}
		child, parent := simpleArith(op), simpleArith(ctx.op)
		if child == 0 || parent == 0 {
			return true
		}
		if child != parent {
			return child < parent
		}
		return !ctx.left // (a - b) - c, not a - (b - c)
	}
	return true
}

// exprBare prints n without its own outer parentheses.
func (p *viewPrinter) exprBare(n *q.Node) {
	switch x := n.GetNode().(type) {
	case *q.Node_ColumnRef:
		var parts []string
		fs := x.ColumnRef.Fields
		for i, f := range fs {
			switch {
			case f.GetAStar() != nil:
				parts = append(parts, "*")
			case i == len(fs)-2:
				parts = append(parts, quoteIdentPG(p.printedName(f.GetString_().GetSval())))
			default:
				parts = append(parts, quoteIdentPG(f.GetString_().GetSval()))
			}
		}
		p.write(strings.Join(parts, "."))
	case *q.Node_AConst:
		text, cast := literalText(x.AConst)
		p.write(text)
		if cast != "" {
			p.write("::" + cast)
		}
	case *q.Node_TypeCast:
		p.typeCast(x.TypeCast)
	case *q.Node_AExpr:
		p.aExpr(x.AExpr)
	case *q.Node_BoolExpr:
		p.boolExpr(x.BoolExpr)
	case *q.Node_NullTest:
		p.expr(x.NullTest.Arg, &exprCtx{kind: "not"})
		if x.NullTest.Nulltesttype == q.NullTestType_IS_NULL {
			p.write(" IS NULL")
		} else {
			p.write(" IS NOT NULL")
		}
	case *q.Node_BooleanTest:
		p.expr(x.BooleanTest.Arg, &exprCtx{kind: "not"})
		p.write(map[q.BoolTestType]string{
			q.BoolTestType_IS_TRUE: " IS TRUE", q.BoolTestType_IS_NOT_TRUE: " IS NOT TRUE", q.BoolTestType_IS_FALSE: " IS FALSE",
			q.BoolTestType_IS_NOT_FALSE: " IS NOT FALSE", q.BoolTestType_IS_UNKNOWN: " IS UNKNOWN", q.BoolTestType_IS_NOT_UNKNOWN: " IS NOT UNKNOWN",
		}[x.BooleanTest.Booltesttype])
	case *q.Node_SubLink:
		p.subLink(x.SubLink)
	case *q.Node_FuncCall:
		p.funcCall(x.FuncCall)
	case *q.Node_CaseExpr:
		p.caseExpr(x.CaseExpr)
	case *q.Node_CoalesceExpr:
		p.write("COALESCE(")
		p.list(x.CoalesceExpr.Args, ", ")
		p.write(")")
	case *q.Node_MinMaxExpr:
		if x.MinMaxExpr.Op == q.MinMaxOp_IS_GREATEST {
			p.write("GREATEST(")
		} else {
			p.write("LEAST(")
		}
		p.list(x.MinMaxExpr.Args, ", ")
		p.write(")")
	case *q.Node_AArrayExpr:
		p.write("ARRAY[")
		p.list(x.AArrayExpr.Elements, ", ")
		p.write("]")
	case *q.Node_RowExpr:
		p.write("ROW(")
		p.list(x.RowExpr.Args, ", ")
		p.write(")")
	case *q.Node_SqlvalueFunction:
		f := x.SqlvalueFunction
		name, ok := sqlValueNames[f.Op]
		if !ok {
			p.fallbackExpr(n)
			return
		}
		p.write(name)
		if f.Typmod >= 0 && (f.Op == q.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N || f.Op == q.SQLValueFunctionOp_SVFOP_CURRENT_TIME_N ||
			f.Op == q.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N || f.Op == q.SQLValueFunctionOp_SVFOP_LOCALTIME_N) {
			p.write("(" + strconv.Itoa(int(f.Typmod)) + ")")
		}
	default:
		p.fallbackExpr(n)
	}
}

// sqlValueNames spell the SQL value functions (CURRENT_DATE, …).
var sqlValueNames = map[q.SQLValueFunctionOp]string{
	q.SQLValueFunctionOp_SVFOP_CURRENT_DATE: "CURRENT_DATE", q.SQLValueFunctionOp_SVFOP_CURRENT_TIME: "CURRENT_TIME",
	q.SQLValueFunctionOp_SVFOP_CURRENT_TIME_N: "CURRENT_TIME", q.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP: "CURRENT_TIMESTAMP",
	q.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N: "CURRENT_TIMESTAMP", q.SQLValueFunctionOp_SVFOP_LOCALTIME: "LOCALTIME",
	q.SQLValueFunctionOp_SVFOP_LOCALTIME_N: "LOCALTIME", q.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP: "LOCALTIMESTAMP",
	q.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N: "LOCALTIMESTAMP", q.SQLValueFunctionOp_SVFOP_CURRENT_ROLE: "CURRENT_ROLE",
	q.SQLValueFunctionOp_SVFOP_CURRENT_USER: "CURRENT_USER", q.SQLValueFunctionOp_SVFOP_USER: "USER",
	q.SQLValueFunctionOp_SVFOP_SESSION_USER: "SESSION_USER", q.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG: "CURRENT_CATALOG",
	q.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA: "CURRENT_SCHEMA",
}

func (p *viewPrinter) list(ns []*q.Node, sep string) {
	for i, a := range ns {
		if i > 0 {
			p.write(sep)
		}
		p.expr(a, nil)
	}
}

// typeCast prints arg::type with the type's format_type name.
func (p *viewPrinter) typeCast(tc *q.TypeCast) {
	b := &binder{cat: &catalogSet{}}
	t, terr := b.resolveType(tc.TypeName)
	switch c := tc.Arg.GetAConst(); {
	case c != nil && c.GetSval() != nil && terr == nil && p.bareConst(c.GetSval().Sval, t):
		return
	case c != nil && (c.GetSval() != nil || c.Isnull):
		text, _ := literalText(c)
		p.write(text)
	case c != nil:
		// a number: PostgreSQL parenthesizes it unless pretty (and a
		// negative one always)
		text, _ := literalText(c)
		text = strings.Trim(text, "'")
		if !p.pretty || strings.HasPrefix(text, "-") {
			text = "(" + text + ")"
		}
		p.write(text)
	case !p.pretty:
		p.write("(")
		p.expr(tc.Arg, &exprCtx{kind: "cast"})
		p.write(")")
	default:
		p.expr(tc.Arg, &exprCtx{kind: "cast"})
	}
	if terr == nil {
		p.write("::" + FormatType(t.OID, t.Mod))
		return
	}
	null := &q.Node{Node: &q.Node_AConst{AConst: &q.A_Const{Isnull: true}}}
	cast := &q.Node{Node: &q.Node_TypeCast{TypeCast: &q.TypeCast{Arg: null, TypeName: tc.TypeName}}}
	s, err := q.Deparse(&q.Node{Node: &q.Node_SelectStmt{SelectStmt: &q.SelectStmt{TargetList: []*q.Node{{Node: &q.Node_ResTarget{ResTarget: &q.ResTarget{Val: cast}}}}}}})
	if err == nil {
		p.write("::" + strings.TrimPrefix(s, "SELECT NULL::"))
	}
}

// bareConst prints a literal of type t the way PostgreSQL prints such a
// constant when it needs no cast (true, 5, 1.5; an integral numeric is
// 5::numeric) and reports whether it did.
func (p *viewPrinter) bareConst(s string, t Type) bool {
	digits := func(s string) bool {
		if s == "" {
			return false
		}
		for _, r := range s {
			if r < '0' || r > '9' {
				return false
			}
		}
		return true
	}
	switch t.OID {
	case OIDBool:
		if s == "true" || s == "false" {
			p.write(s)
			return true
		}
	case OIDInt4:
		if digits(s) {
			p.write(s)
			return true
		}
	case OIDNumeric:
		if t.Mod >= 0 {
			return false
		}
		whole, frac, dot := strings.Cut(s, ".")
		switch {
		case dot && digits(whole) && digits(frac):
			p.write(s)
			return true
		case !dot && digits(s):
			if p.pretty {
				p.write(s + "::numeric")
			} else {
				p.write("(" + s + ")::numeric")
			}
			return true
		}
	}
	return false
}

// aExpr prints operator expressions in PostgreSQL's analyzed spelling.
func (p *viewPrinter) aExpr(e *q.A_Expr) {
	name := ""
	if len(e.Name) > 0 {
		name = e.Name[len(e.Name)-1].GetString_().GetSval()
	}
	binary := func(op string, l, r *q.Node) {
		p.expr(l, &exprCtx{kind: "op", op: op, left: true})
		p.write(" " + op + " ")
		p.expr(r, &exprCtx{kind: "op", op: op})
	}
	switch e.Kind {
	case q.A_Expr_Kind_AEXPR_OP:
		if l, r := e.Lexpr.GetRowExpr(), e.Rexpr.GetRowExpr(); l != nil && r != nil && len(l.Args) == len(r.Args) && (name == "=" || name == "<>") {
			// PostgreSQL compares rows field by field: a = 1 AND b = 'x'
			b := &q.BoolExpr{Boolop: q.BoolExprType_AND_EXPR}
			if name == "<>" {
				b.Boolop = q.BoolExprType_OR_EXPR
			}
			for i := range l.Args {
				b.Args = append(b.Args, &q.Node{Node: &q.Node_AExpr{AExpr: &q.A_Expr{Kind: q.A_Expr_Kind_AEXPR_OP, Name: e.Name, Lexpr: l.Args[i], Rexpr: r.Args[i]}}})
			}
			p.boolExpr(b)
			return
		}
		if e.Lexpr == nil {
			p.write(name + " ")
			p.expr(e.Rexpr, &exprCtx{kind: "op", op: name})
			return
		}
		binary(name, e.Lexpr, e.Rexpr)
	case q.A_Expr_Kind_AEXPR_OP_ANY, q.A_Expr_Kind_AEXPR_OP_ALL:
		p.expr(e.Lexpr, &exprCtx{kind: "op", op: name, left: true})
		word := " ANY ("
		if e.Kind == q.A_Expr_Kind_AEXPR_OP_ALL {
			word = " ALL ("
		}
		p.write(" " + name + word)
		p.expr(e.Rexpr, nil)
		p.write(")")
	case q.A_Expr_Kind_AEXPR_IN:
		p.expr(e.Lexpr, &exprCtx{kind: "op", op: name, left: true})
		if name == "=" {
			p.write(" = ANY (ARRAY[")
		} else {
			p.write(" " + name + " ALL (ARRAY[")
		}
		p.list(e.Rexpr.GetList().GetItems(), ", ")
		p.write("])")
	case q.A_Expr_Kind_AEXPR_DISTINCT, q.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		p.expr(e.Lexpr, &exprCtx{kind: "op", op: "IS", left: true})
		if e.Kind == q.A_Expr_Kind_AEXPR_DISTINCT {
			p.write(" IS DISTINCT FROM ")
		} else {
			p.write(" IS NOT DISTINCT FROM ")
		}
		p.expr(e.Rexpr, &exprCtx{kind: "op", op: "IS"})
	case q.A_Expr_Kind_AEXPR_NULLIF:
		p.write("NULLIF(")
		p.expr(e.Lexpr, nil)
		p.write(", ")
		p.expr(e.Rexpr, nil)
		p.write(")")
	case q.A_Expr_Kind_AEXPR_LIKE, q.A_Expr_Kind_AEXPR_ILIKE, q.A_Expr_Kind_AEXPR_SIMILAR:
		binary(name, e.Lexpr, e.Rexpr)
	case q.A_Expr_Kind_AEXPR_BETWEEN, q.A_Expr_Kind_AEXPR_NOT_BETWEEN:
		bounds := e.Rexpr.GetList().GetItems()
		if len(bounds) != 2 {
			p.fallbackExpr(&q.Node{Node: &q.Node_AExpr{AExpr: e}})
			return
		}
		lo, hi, conj := ">=", "<=", " AND "
		if e.Kind == q.A_Expr_Kind_AEXPR_NOT_BETWEEN {
			lo, hi, conj = "<", ">", " OR "
		}
		kind := "and"
		if conj == " OR " {
			kind = "or"
		}
		cmp := func(op string, r *q.Node) *q.Node {
			return &q.Node{Node: &q.Node_AExpr{AExpr: &q.A_Expr{Kind: q.A_Expr_Kind_AEXPR_OP, Name: []*q.Node{strNode(op)}, Lexpr: e.Lexpr, Rexpr: r}}}
		}
		p.expr(cmp(lo, bounds[0]), &exprCtx{kind: kind})
		p.write(conj)
		p.expr(cmp(hi, bounds[1]), &exprCtx{kind: kind})
	default:
		p.fallbackExpr(&q.Node{Node: &q.Node_AExpr{AExpr: e}})
	}
}

func (p *viewPrinter) boolExpr(b *q.BoolExpr) {
	switch b.Boolop {
	case q.BoolExprType_NOT_EXPR:
		p.write("NOT ")
		p.expr(b.Args[0], &exprCtx{kind: "not"})
	default:
		sep, kind := " AND ", "and"
		if b.Boolop == q.BoolExprType_OR_EXPR {
			sep, kind = " OR ", "or"
		}
		for i, a := range b.Args {
			if i > 0 {
				p.write(sep)
			}
			p.expr(a, &exprCtx{kind: kind})
		}
	}
}

func (p *viewPrinter) subLink(sl *q.SubLink) {
	if sl.SubLinkType != q.SubLinkType_EXPR_SUBLINK && sl.SubLinkType != q.SubLinkType_ARRAY_SUBLINK {
		p.write("(")
		defer p.write(")")
	}
	sel := sl.Subselect.GetSelectStmt()
	body := func() {
		if sel != nil {
			p.sub(sel, nil, false)
		} else {
			p.fallback(sl.Subselect)
		}
	}
	op := "="
	if len(sl.OperName) > 0 {
		op = sl.OperName[len(sl.OperName)-1].GetString_().GetSval()
	}
	switch sl.SubLinkType {
	case q.SubLinkType_EXISTS_SUBLINK:
		p.write("EXISTS (")
		body()
		p.write(")")
	case q.SubLinkType_ANY_SUBLINK:
		p.expr(sl.Testexpr, &exprCtx{kind: "op", op: op, left: true})
		if op == "=" {
			p.write(" IN (")
		} else {
			p.write(" " + op + " ANY (")
		}
		body()
		p.write(")")
	case q.SubLinkType_ALL_SUBLINK:
		p.expr(sl.Testexpr, &exprCtx{kind: "op", op: op, left: true})
		p.write(" " + op + " ALL (")
		body()
		p.write(")")
	case q.SubLinkType_ARRAY_SUBLINK:
		p.write("ARRAY(")
		body()
		p.write(")")
	default:
		p.write("(")
		body()
		p.write(")")
	}
}

// funcCall prints a function or aggregate call (window and FILTER
// included); SQL-syntax forms (EXTRACT, SUBSTRING, …) go to the deparser.
func (p *viewPrinter) funcCall(f *q.FuncCall) {
	if f.Funcformat == q.CoercionForm_COERCE_SQL_SYNTAX {
		if !p.sqlSyntax(f) {
			p.fallbackExpr(&q.Node{Node: &q.Node_FuncCall{FuncCall: f}})
		}
		return
	}
	var parts []string
	for i, n := range f.Funcname {
		s := n.GetString_().GetSval()
		if i == 0 && len(f.Funcname) > 1 && s == "pg_catalog" {
			continue
		}
		parts = append(parts, quoteIdentPG(s))
	}
	p.write(strings.Join(parts, ".") + "(")
	switch {
	case f.AggStar:
		p.write("*")
	default:
		if f.AggDistinct {
			p.write("DISTINCT ")
		}
		if f.FuncVariadic && len(f.Args) > 0 {
			p.list(f.Args[:len(f.Args)-1], ", ")
			if len(f.Args) > 1 {
				p.write(", ")
			}
			p.write("VARIADIC ")
			p.expr(f.Args[len(f.Args)-1], nil)
		} else {
			for i, a := range f.Args {
				if i > 0 {
					p.write(", ")
				}
				if na := a.GetNamedArgExpr(); na != nil {
					p.write(quoteIdentPG(na.Name) + " => ")
					p.expr(na.Arg, nil)
					continue
				}
				p.expr(a, nil)
			}
		}
	}
	if len(f.AggOrder) > 0 && !f.AggWithinGroup {
		p.write(" ORDER BY ")
		for i, s := range f.AggOrder {
			if i > 0 {
				p.write(", ")
			}
			p.sortBy(s.GetSortBy())
		}
	}
	p.write(")")
	if f.AggWithinGroup {
		p.write(" WITHIN GROUP (ORDER BY ")
		for i, s := range f.AggOrder {
			if i > 0 {
				p.write(", ")
			}
			p.sortBy(s.GetSortBy())
		}
		p.write(")")
	}
	if f.AggFilter != nil {
		p.write(" FILTER (WHERE ")
		p.expr(f.AggFilter, nil)
		p.write(")")
	}
	if f.Over != nil {
		p.write(" OVER ")
		if f.Over.Name != "" && len(f.Over.PartitionClause) == 0 && len(f.Over.OrderClause) == 0 && f.Over.Refname == "" {
			p.write(quoteIdentPG(f.Over.Name))
		} else {
			p.windowSpec(f.Over)
		}
	}
}

// sqlSyntax prints the SQL-standard forms PostgreSQL prints as such
// (EXTRACT, POSITION, TRIM) and reports whether it did.
func (p *viewPrinter) sqlSyntax(f *q.FuncCall) bool {
	name := f.Funcname[len(f.Funcname)-1].GetString_().GetSval()
	arg := func(n *q.Node) { // PostgreSQL parenthesizes these
		p.write("(")
		p.expr(n, nil)
		p.write(")")
	}
	switch {
	case name == "extract" && len(f.Args) == 2 && f.Args[0].GetAConst().GetSval() != nil:
		p.write("EXTRACT(" + f.Args[0].GetAConst().GetSval().Sval + " FROM ")
		p.expr(f.Args[1], nil)
		p.write(")")
	case name == "position" && len(f.Args) == 2:
		p.write("POSITION(")
		arg(f.Args[1])
		p.write(" IN ")
		arg(f.Args[0])
		p.write(")")
	case (name == "btrim" || name == "ltrim" || name == "rtrim") && (len(f.Args) == 1 || len(f.Args) == 2):
		p.write("TRIM(" + map[string]string{"btrim": "BOTH", "ltrim": "LEADING", "rtrim": "TRAILING"}[name])
		if len(f.Args) == 2 {
			p.write(" ")
			p.expr(f.Args[1], nil)
		}
		p.write(" FROM ")
		p.expr(f.Args[0], nil)
		p.write(")")
	default:
		return false
	}
	return true
}

// windowSpec prints (PARTITION BY … ORDER BY … frame); the frame is the
// deparser's when it is not the default.
func (p *viewPrinter) windowSpec(w *q.WindowDef) {
	p.write("(")
	sep := ""
	if w.Refname != "" {
		p.write(quoteIdentPG(w.Refname))
		sep = " "
	}
	if len(w.PartitionClause) > 0 {
		p.write(sep + "PARTITION BY ")
		p.list(w.PartitionClause, ", ")
		sep = " "
	}
	if len(w.OrderClause) > 0 {
		p.write(sep + "ORDER BY ")
		for i, s := range w.OrderClause {
			if i > 0 {
				p.write(", ")
			}
			p.sortBy(s.GetSortBy())
		}
		sep = " "
	}
	const defaultFrame = 1058 // FRAMEOPTION_DEFAULTS (RANGE UNBOUNDED PRECEDING … CURRENT ROW)
	if w.FrameOptions != 0 && w.FrameOptions != defaultFrame {
		s, err := q.Deparse(&q.Node{Node: &q.Node_SelectStmt{SelectStmt: &q.SelectStmt{
			TargetList:   []*q.Node{{Node: &q.Node_ResTarget{ResTarget: &q.ResTarget{Val: &q.Node{Node: &q.Node_AConst{AConst: &q.A_Const{Val: &q.A_Const_Ival{Ival: &q.Integer{Ival: 1}}}}}}}}},
			WindowClause: []*q.Node{{Node: &q.Node_WindowDef{WindowDef: &q.WindowDef{Name: "w", FrameOptions: w.FrameOptions, StartOffset: w.StartOffset, EndOffset: w.EndOffset}}}},
		}}})
		if err == nil {
			if i := strings.Index(s, "AS ("); i >= 0 {
				p.write(sep + strings.TrimSuffix(s[i+4:], ")"))
			}
		}
	}
	p.write(")")
}

// caseExpr prints CASE on lines of its own (PostgreSQL's layout).
func (p *viewPrinter) caseExpr(c *q.CaseExpr) {
	p.keyword("CASE", 0, indentVar, 0)
	if c.Arg != nil {
		p.write(" ")
		p.expr(c.Arg, nil)
	}
	for _, w := range c.Args {
		cw := w.GetCaseWhen()
		p.keyword("WHEN ", 0, 0, 0)
		p.expr(cw.Expr, nil)
		p.write(" THEN ")
		p.expr(cw.Result, nil)
	}
	if c.Defresult != nil {
		p.keyword("ELSE ", 0, 0, 0)
		p.expr(c.Defresult, nil)
	}
	p.keyword("END", -indentVar, 0, 0)
}
