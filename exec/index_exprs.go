package exec

import (
	"strings"

	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// Expression indexes in the catalogs: an expression key has attnum 0 in
// pg_index.indkey, its text in indexprs, and pg_get_indexdef prints it as
// PostgreSQL's ruleutils does: a function call bare, any other
// expression in parentheses (the non-pretty form keeps the operator's own
// parentheses too: ((id + 1))). The predicate prints as a CHECK
// expression does (checkdef.go).

// isExprKey reports that key i of index constraint k is an expression.
func (k constraint) isExprKey(i int) bool {
	return i < len(k.exprs) && k.exprs[i] != "" && i < len(k.cols) && k.cols[i] < 0
}

// keyText is key i of index k as pg_get_indexdef prints it.
func (k constraint) keyText(i int, pretty bool) string {
	if !k.isExprKey(i) {
		return quoteIdent(k.table.Columns[k.cols[i]].Name)
	}
	return indexExprText(k.exprs[i], k.table, pretty)
}

// indexExprText prints one index expression (see above).
func indexExprText(expr string, t *TableDef, pretty bool) string {
	tree, err := q.Parse("SELECT " + expr)
	var n *q.Node
	if err == nil && len(tree.Stmts) == 1 {
		if sel := tree.Stmts[0].Stmt.GetSelectStmt(); sel != nil && len(sel.TargetList) == 1 {
			n = sel.TargetList[0].GetResTarget().GetVal()
		}
	}
	s := expr
	if n != nil {
		p := &ckPrinter{t: t, pretty: pretty}
		if v, ok := p.expr(n); ok {
			s = v.s
		}
		if n.GetFuncCall() != nil {
			return s
		}
	}
	if !pretty && strings.HasPrefix(s, "(") && balancedOuter(s) {
		return "(" + s + ")"
	}
	return "(" + s + ")"
}

// indexPredText is a partial index's predicate as pg_get_indexdef (and
// pg_get_expr of indpred) print it.
func indexPredText(where string, t *TableDef, pretty bool) string {
	if e, ok := checkDefinition(where, t, pretty); ok {
		return e
	}
	if pretty {
		return where
	}
	return "(" + where + ")"
}

// keyColumn is the pg_attribute row of key i of index k: an expression
// is named by its function (or "expr") and typed by the first column it
// reads (text when none).
func (k constraint) keyColumn(i int) ColumnDef {
	if !k.isExprKey(i) {
		return k.table.Columns[k.cols[i]]
	}
	name := "expr"
	if tree, err := q.Parse("SELECT " + k.exprs[i]); err == nil && len(tree.Stmts) == 1 {
		if sel := tree.Stmts[0].Stmt.GetSelectStmt(); sel != nil && len(sel.TargetList) == 1 {
			if fc := sel.TargetList[0].GetResTarget().GetVal().GetFuncCall(); fc != nil && len(fc.Funcname) > 0 {
				name = fc.Funcname[len(fc.Funcname)-1].GetString_().GetSval()
			}
		}
	}
	typ := TText
	if cs := checkColumns(k.table, k.exprs[i]); len(cs) > 0 {
		typ = k.table.Columns[cs[0]].Type
	}
	return ColumnDef{Name: name, Type: typ}
}

// plainCols are the table columns index k reads as plain keys.
func (k constraint) plainCols() []int {
	var out []int
	for _, c := range k.cols {
		if c >= 0 {
			out = append(out, c)
		}
	}
	return out
}
