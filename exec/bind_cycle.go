package exec

import (
	"google.golang.org/protobuf/proto"

	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// WITH RECURSIVE ... CYCLE and SEARCH clauses are rewritten into the
// recursive query as PostgreSQL defines them:
//
//	CYCLE c1, c2 SET mark [TO v DEFAULT d] USING path: the non-recursive
//	term adds d AS mark and ARRAY[ROW(c1, c2)] AS path; the recursive term
//	adds CASE WHEN ROW(c1, c2) = ANY(w.path) THEN v ELSE d END and
//	w.path || ROW(c1, c2), and stops at rows whose mark is v;
//	SEARCH DEPTH FIRST BY c SET seq: seq is ARRAY[ROW(c)] extended by
//	|| ROW(c) (ordering by seq gives depth-first order);
//	SEARCH BREADTH FIRST BY c SET seq: seq is ROW(depth, c).
//
// The term's target lists must be explicit (no *), and the CTE's columns
// are named by its column list or the non-recursive term's targets.

func pgStr(s string) *q.Node { return &q.Node{Node: &q.Node_String_{String_: &q.String{Sval: s}}} }

func pgCol(parts ...string) *q.Node {
	f := make([]*q.Node, len(parts))
	for i, p := range parts {
		f[i] = pgStr(p)
	}
	return &q.Node{Node: &q.Node_ColumnRef{ColumnRef: &q.ColumnRef{Fields: f}}}
}

func pgRow(args []*q.Node) *q.Node {
	return &q.Node{Node: &q.Node_RowExpr{RowExpr: &q.RowExpr{Args: args, RowFormat: q.CoercionForm_COERCE_EXPLICIT_CALL}}}
}

func pgOp(kind q.A_Expr_Kind, op string, l, r *q.Node) *q.Node {
	return &q.Node{Node: &q.Node_AExpr{AExpr: &q.A_Expr{Kind: kind, Name: []*q.Node{pgStr(op)}, Lexpr: l, Rexpr: r}}}
}

func pgTarget(name string, val *q.Node) *q.Node {
	return &q.Node{Node: &q.Node_ResTarget{ResTarget: &q.ResTarget{Name: name, Val: val}}}
}

func pgInt(n int32) *q.Node {
	return &q.Node{Node: &q.Node_AConst{AConst: &q.A_Const{Val: &q.A_Const_Ival{Ival: &q.Integer{Ival: n}}}}}
}

// cteRangeAlias finds how the recursive term names the CTE.
func cteRangeAlias(items []*q.Node, name string) string {
	for _, it := range items {
		switch x := it.GetNode().(type) {
		case *q.Node_RangeVar:
			if x.RangeVar.Schemaname == "" && x.RangeVar.Relname == name {
				if x.RangeVar.Alias != nil {
					return x.RangeVar.Alias.Aliasname
				}
				return name
			}
		case *q.Node_JoinExpr:
			if a := cteRangeAlias([]*q.Node{x.JoinExpr.Larg, x.JoinExpr.Rarg}, name); a != "" {
				return a
			}
		}
	}
	return ""
}

// rewriteSearchCycle returns the CTE query with its SEARCH/CYCLE columns
// added, and the column list extended when the CTE has one.
func rewriteSearchCycle(cte *q.CommonTableExpr) (*q.SelectStmt, []*q.Node, error) {
	sel := proto.Clone(cte.Ctequery.GetSelectStmt()).(*q.SelectStmt)
	if sel.Op != q.SetOperation_SETOP_UNION || sel.Larg == nil || sel.Rarg == nil {
		return nil, nil, errf(CodeSyntaxError, "with a SEARCH or CYCLE clause, the recursive query must be a UNION of a non-recursive and a recursive term")
	}
	base, rec := sel.Larg, sel.Rarg
	if base.Op != q.SetOperation_SETOP_NONE || rec.Op != q.SetOperation_SETOP_NONE || len(base.ValuesLists) > 0 {
		return nil, nil, unsupported("SEARCH/CYCLE over set operations or VALUES terms are not supported")
	}
	var names []string
	for _, a := range cte.Aliascolnames {
		names = append(names, a.GetString_().Sval)
	}
	for k, t := range base.TargetList {
		rt := t.GetResTarget()
		if cr := rt.Val.GetColumnRef(); cr != nil && isStar(cr) {
			return nil, nil, unsupported("SEARCH/CYCLE with * in the recursive query is not supported")
		}
		if k >= len(names) {
			n := rt.Name
			if n == "" {
				n = figureColname(rt.Val)
			}
			names = append(names, n)
		}
	}
	for _, t := range rec.TargetList {
		if cr := t.GetResTarget().Val.GetColumnRef(); cr != nil && isStar(cr) {
			return nil, nil, unsupported("SEARCH/CYCLE with * in the recursive query is not supported")
		}
	}
	if len(rec.TargetList) != len(base.TargetList) {
		return nil, nil, errf(CodeSyntaxError, "each UNION query must have the same number of columns")
	}
	alias := cteRangeAlias(rec.FromClause, cte.Ctename)
	if alias == "" {
		return nil, nil, unsupported("SEARCH/CYCLE: the recursive term must read %s in its FROM clause", cte.Ctename)
	}
	pick := func(list []*q.Node, cols []*q.Node, what string) ([]*q.Node, []*q.Node, error) {
		var bv, rv []*q.Node
		for _, c := range cols {
			n := c.GetString_().Sval
			k := -1
			for i, x := range names {
				if x == n {
					k = i
				}
			}
			if k < 0 || k >= len(base.TargetList) {
				return nil, nil, errf(CodeSyntaxError, "%s column \"%s\" not in WITH query column list", what, n)
			}
			bv = append(bv, proto.Clone(base.TargetList[k].GetResTarget().Val).(*q.Node))
			rv = append(rv, proto.Clone(list[k].GetResTarget().Val).(*q.Node))
		}
		return bv, rv, nil
	}
	var extra []*q.Node
	if sc := cte.SearchClause; sc != nil {
		bv, rv, err := pick(rec.TargetList, sc.SearchColList, "search")
		if err != nil {
			return nil, nil, err
		}
		seq := sc.SearchSeqColumn
		if sc.SearchBreadthFirst {
			base.TargetList = append(base.TargetList, pgTarget(seq, pgRow(append([]*q.Node{pgInt(0)}, bv...))))
			depth := &q.Node{Node: &q.Node_AIndirection{AIndirection: &q.A_Indirection{Arg: pgCol(alias, seq), Indirection: []*q.Node{pgStr("f1")}}}}
			rec.TargetList = append(rec.TargetList, pgTarget(seq, pgRow(append([]*q.Node{pgOp(q.A_Expr_Kind_AEXPR_OP, "+", depth, pgInt(1))}, rv...))))
		} else {
			base.TargetList = append(base.TargetList, pgTarget(seq, &q.Node{Node: &q.Node_AArrayExpr{AArrayExpr: &q.A_ArrayExpr{Elements: []*q.Node{pgRow(bv)}}}}))
			rec.TargetList = append(rec.TargetList, pgTarget(seq, pgOp(q.A_Expr_Kind_AEXPR_OP, "||", pgCol(alias, seq), pgRow(rv))))
		}
		extra = append(extra, pgStr(seq))
	}
	if cc := cte.CycleClause; cc != nil {
		bv, rv, err := pick(rec.TargetList, cc.CycleColList, "cycle")
		if err != nil {
			return nil, nil, err
		}
		mark, def := cc.CycleMarkValue, cc.CycleMarkDefault
		if mark == nil {
			mark = &q.Node{Node: &q.Node_AConst{AConst: &q.A_Const{Val: &q.A_Const_Boolval{Boolval: &q.Boolean{Boolval: true}}}}}
		}
		if def == nil {
			def = &q.Node{Node: &q.Node_AConst{AConst: &q.A_Const{Val: &q.A_Const_Boolval{Boolval: &q.Boolean{Boolval: false}}}}}
		}
		path, mc := cc.CyclePathColumn, cc.CycleMarkColumn
		base.TargetList = append(base.TargetList,
			pgTarget(mc, proto.Clone(def).(*q.Node)),
			pgTarget(path, &q.Node{Node: &q.Node_AArrayExpr{AArrayExpr: &q.A_ArrayExpr{Elements: []*q.Node{pgRow(bv)}}}}))
		seen := pgOp(q.A_Expr_Kind_AEXPR_OP_ANY, "=", pgRow(rv), pgCol(alias, path))
		rec.TargetList = append(rec.TargetList,
			pgTarget(mc, &q.Node{Node: &q.Node_CaseExpr{CaseExpr: &q.CaseExpr{
				Args:      []*q.Node{{Node: &q.Node_CaseWhen{CaseWhen: &q.CaseWhen{Expr: seen, Result: proto.Clone(mark).(*q.Node)}}}},
				Defresult: proto.Clone(def).(*q.Node)}}}),
			pgTarget(path, pgOp(q.A_Expr_Kind_AEXPR_OP, "||", pgCol(alias, path), pgRow(proto.Clone(pgRow(rv)).(*q.Node).GetRowExpr().Args))))
		stop := pgOp(q.A_Expr_Kind_AEXPR_OP, "<>", pgCol(alias, mc), proto.Clone(mark).(*q.Node))
		if rec.WhereClause == nil {
			rec.WhereClause = stop
		} else {
			rec.WhereClause = &q.Node{Node: &q.Node_BoolExpr{BoolExpr: &q.BoolExpr{Boolop: q.BoolExprType_AND_EXPR, Args: []*q.Node{rec.WhereClause, stop}}}}
		}
		extra = append(extra, pgStr(mc), pgStr(path))
	}
	var cols []*q.Node
	if len(cte.Aliascolnames) > 0 {
		cols = append(append([]*q.Node{}, cte.Aliascolnames...), extra...)
	}
	return sel, cols, nil
}
