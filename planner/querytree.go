package planner

import (
	"math"
	"strconv"

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

// intConst is the integer literal n as the parser builds it (a numeric
// literal past int4's range).
func intConst(n int64) *sqlparse.Node {
	c := &sqlparse.A_Const{Location: -1}
	if n >= math.MinInt32 && n <= math.MaxInt32 {
		c.Val = &sqlparse.A_Const_Ival{Ival: &sqlparse.Integer{Ival: int32(n)}}
	} else {
		c.Val = &sqlparse.A_Const_Fval{Fval: &sqlparse.Float{Fval: strconv.FormatInt(n, 10)}}
	}
	return &sqlparse.Node{Node: &sqlparse.Node_AConst{AConst: c}}
}

// perRow is SELECT targets FROM generate_series(1, n): the targets
// evaluated once for each of n rows (volatile defaults differ per row).
func perRow(targets []*sqlparse.Node, n int) *sqlparse.Node {
	fc := &sqlparse.Node{Node: &sqlparse.Node_FuncCall{FuncCall: &sqlparse.FuncCall{
		Funcname: []*sqlparse.Node{pgString("generate_series")}, Args: []*sqlparse.Node{intConst(1), intConst(int64(n))},
		Funcformat: sqlparse.CoercionForm_COERCE_EXPLICIT_CALL, Location: -1}}}
	// each function comes as the list (call, column definitions), an
	// empty node standing for none, as the parser gives it
	rf := &sqlparse.Node{Node: &sqlparse.Node_RangeFunction{RangeFunction: &sqlparse.RangeFunction{
		Functions: []*sqlparse.Node{{Node: &sqlparse.Node_List{List: &sqlparse.List{Items: []*sqlparse.Node{fc, {}}}}}}}}}
	return selectTree(nil, targets, []*sqlparse.Node{rf}, nil)
}
