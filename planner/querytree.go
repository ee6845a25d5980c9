package planner

import (
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/internal/sqlparse"
)

// The queries DML runs through exec (the rows to delete or update, the
// values RETURNING gives) are assembled as parse trees from the pieces
// of the client's statement — its WHERE clause, FROM items, target
// lists — and handed to exec as they are: printing them as SQL only for
// exec to parse the text again cost CPU and nothing else. The client's
// nodes are shared, never modified (a prepared statement's tree is
// cached); nodes the planner adds carry no location (-1).
//
// Errors of such a query carry no position, as those of a rewritten
// text did not (queryChunksOf): the client's nodes' locations point
// into the client's text, the added nodes' nowhere.

// selectTree is the statement WITH with SELECT targets FROM from WHERE
// where (with and where may be nil).
func selectTree(with *sqlparse.WithClause, targets, from []*sqlparse.Node, where *sqlparse.Node) *sqlparse.Node {
	return &sqlparse.Node{Node: &sqlparse.Node_SelectStmt{SelectStmt: &sqlparse.SelectStmt{
		WithClause: with, TargetList: targets, FromClause: from, WhereClause: where}}}
}

// columnRef is the column reference qualifier.name.
func columnRef(qualifier, name string) *sqlparse.Node {
	return &sqlparse.Node{Node: &sqlparse.Node_ColumnRef{ColumnRef: &sqlparse.ColumnRef{
		Fields: []*sqlparse.Node{pgString(qualifier), pgString(name)}, Location: -1}}}
}

// columnTargets lists qualifier.c for the columns idx of cols as output
// columns.
func columnTargets(qualifier string, cols []exec.ColumnDef, idx []int) []*sqlparse.Node {
	out := make([]*sqlparse.Node, len(idx))
	for k, c := range idx {
		out[k] = resTarget(columnRef(qualifier, cols[c].Name))
	}
	return out
}

// allColumnTargets is columnTargets for every column of cols.
func allColumnTargets(qualifier string, cols []exec.ColumnDef) []*sqlparse.Node {
	out := make([]*sqlparse.Node, len(cols))
	for c, cd := range cols {
		out[c] = resTarget(columnRef(qualifier, cd.Name))
	}
	return out
}

// relationNode is a FROM item naming the relation name, unqualified (as
// the text "FROM name" parses).
func relationNode(name string) *sqlparse.Node {
	return rangeVarNode(&sqlparse.RangeVar{Relname: name, Inh: true, Relpersistence: "p", Location: -1})
}

// subqueryNode is the FROM item (query) AS alias(cols…) (no column
// names when cols is nil).
func subqueryNode(query *sqlparse.Node, alias string, cols []string) *sqlparse.Node {
	a := &sqlparse.Alias{Aliasname: alias}
	for _, c := range cols {
		a.Colnames = append(a.Colnames, pgString(c))
	}
	return &sqlparse.Node{Node: &sqlparse.Node_RangeSubselect{RangeSubselect: &sqlparse.RangeSubselect{Subquery: query, Alias: a}}}
}

// isNull is the test arg IS NULL (arg IS NOT NULL unless null).
func isNull(arg *sqlparse.Node, null bool) *sqlparse.Node {
	t := sqlparse.NullTestType_IS_NOT_NULL
	if null {
		t = sqlparse.NullTestType_IS_NULL
	}
	return &sqlparse.Node{Node: &sqlparse.Node_NullTest{NullTest: &sqlparse.NullTest{Arg: arg, Nulltesttype: t, Location: -1}}}
}

// boolExpr is AND, OR or NOT over args (flat, as the parser builds a
// chain of ANDs).
func boolExpr(op sqlparse.BoolExprType, args ...*sqlparse.Node) *sqlparse.Node {
	return &sqlparse.Node{Node: &sqlparse.Node_BoolExpr{BoolExpr: &sqlparse.BoolExpr{Boolop: op, Args: args, Location: -1}}}
}

// boolConst is the literal TRUE or FALSE.
func boolConst(b bool) *sqlparse.Node {
	return &sqlparse.Node{Node: &sqlparse.Node_AConst{AConst: &sqlparse.A_Const{
		Val: &sqlparse.A_Const_Boolval{Boolval: &sqlparse.Boolean{Boolval: b}}, Location: -1}}}
}
