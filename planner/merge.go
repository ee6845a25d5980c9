package planner

import (
	"fmt"
	"slices"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// merge runs MERGE INTO target USING source ON cond WHEN … (PostgreSQL
// 15–17 forms, including WHEN NOT MATCHED BY SOURCE and RETURNING): one
// exec query joins target and source (INNER, LEFT, RIGHT or FULL as the
// clauses need) and projects, per joined row, the target's address, a
// source-presence marker, every clause's condition and every clause's
// new values; the first clause of the row's class whose condition holds
// decides its action.
func (w *writer) merge(m *sqlparse.MergeStmt) (*writeOut, error) {
	ti, alias, err := w.target(m.Relation)
	if err != nil {
		return nil, err
	}
	if err := refuseTriggers(ti, "MERGE", "INSERT", "UPDATE", "DELETE"); err != nil {
		return nil, err
	}
	td := ti.def
	salias, src, err := mergeSource(m.SourceRelation)
	if err != nil {
		return nil, err
	}
	var clauses []mergeClause
	var byTarget, bySource bool
	assigned := map[int]bool{} // the columns an UPDATE clause assigns
	proj := []*sqlparse.Node{resTarget(columnRef(alias, "_rowaddr")), resTarget(columnRef(salias, "_merge_src"))}
	// guard is true on the rows a clause acts on (its kind, its
	// condition, and no earlier clause of its kind taking the row): its
	// values are computed only there, so nextval() in a clause's values
	// draws for the rows that clause changes, as in PostgreSQL.
	earlier := map[sqlparse.MergeMatchKind][]*sqlparse.Node{}
	guard := func(kind sqlparse.MergeMatchKind, cond *sqlparse.Node) *sqlparse.Node {
		t, src := isNull(columnRef(alias, "_rowaddr"), false), isNull(columnRef(salias, "_merge_src"), false)
		switch kind {
		case sqlparse.MergeMatchKind_MERGE_WHEN_NOT_MATCHED_BY_TARGET:
			t = isNull(columnRef(alias, "_rowaddr"), true)
		case sqlparse.MergeMatchKind_MERGE_WHEN_NOT_MATCHED_BY_SOURCE:
			src = isNull(columnRef(salias, "_merge_src"), true)
		}
		args := []*sqlparse.Node{t, src, cond}
		for _, e := range earlier[kind] {
			args = append(args, boolExpr(sqlparse.BoolExprType_NOT_EXPR, e))
		}
		return boolExpr(sqlparse.BoolExprType_AND_EXPR, args...)
	}
	guarded := func(items []*sqlparse.Node, g *sqlparse.Node) []*sqlparse.Node {
		out := make([]*sqlparse.Node, len(items))
		for i, it := range items {
			out[i] = resTarget(it)
			if callsSequenceNode(it) {
				out[i] = resTarget(&sqlparse.Node{Node: &sqlparse.Node_CaseExpr{CaseExpr: &sqlparse.CaseExpr{
					Args: []*sqlparse.Node{{Node: &sqlparse.Node_CaseWhen{CaseWhen: &sqlparse.CaseWhen{Expr: g, Result: it, Location: -1}}}}, Location: -1}}})
			}
		}
		return out
	}
	for _, n := range m.MergeWhenClauses {
		wc := n.GetMergeWhenClause()
		cond := boolConst(true)
		if wc.Condition != nil {
			cond = &sqlparse.Node{Node: &sqlparse.Node_BooleanTest{BooleanTest: &sqlparse.BooleanTest{
				Arg: wc.Condition, Booltesttype: sqlparse.BoolTestType_IS_TRUE, Location: -1}}}
		}
		g := guard(wc.MatchKind, cond)
		earlier[wc.MatchKind] = append(earlier[wc.MatchKind], cond)
		proj = append(proj, resTarget(cond))
		cl := mergeClause{kind: wc.MatchKind, cmd: wc.CommandType, first: len(proj)}
		switch wc.MatchKind {
		case sqlparse.MergeMatchKind_MERGE_WHEN_NOT_MATCHED_BY_TARGET:
			byTarget = true
		case sqlparse.MergeMatchKind_MERGE_WHEN_NOT_MATCHED_BY_SOURCE:
			bySource = true
		}
		switch wc.CommandType {
		case sqlparse.CmdType_CMD_UPDATE:
			items, set, seqCols, err := w.setItems(td, alias, wc.TargetList)
			if err != nil {
				return nil, err
			}
			for c := range set {
				assigned[c] = true
			}
			if err := seqDefaultItems(td, items, seqCols); err != nil {
				return nil, err
			}
			proj = append(proj, guarded(items, g)...)
			cl.values = len(items)
		case sqlparse.CmdType_CMD_INSERT:
			items, seqCols, err := w.mergeInsertItems(td, wc)
			if err != nil {
				return nil, err
			}
			proj = append(proj, guarded(items, g)...)
			cl.values, cl.seqCols = len(items), seqCols
		case sqlparse.CmdType_CMD_DELETE, sqlparse.CmdType_CMD_NOTHING:
		default:
			return nil, wire.Errorf(wire.CodeFeatureNotSupported, "MERGE action is not supported")
		}
		clauses = append(clauses, cl)
	}
	join := sqlparse.JoinType_JOIN_INNER
	switch {
	case byTarget && bySource:
		join = sqlparse.JoinType_JOIN_FULL
	case byTarget:
		join = sqlparse.JoinType_JOIN_RIGHT
	case bySource:
		join = sqlparse.JoinType_JOIN_LEFT
	}
	srcAt := len(proj) // RETURNING may name the source's columns: project them last
	if len(m.ReturningList) > 0 {
		proj = append(proj, resTarget(starOf(salias)))
	}
	from := &sqlparse.Node{Node: &sqlparse.Node_JoinExpr{JoinExpr: &sqlparse.JoinExpr{Jointype: join,
		Larg: rangeVarNode(m.Relation), Rarg: src, Quals: m.JoinCondition}}}
	q := selectTree(m.WithClause, proj, []*sqlparse.Node{from}, nil)
	cmds := map[sqlparse.CmdType]bool{}
	for _, cl := range clauses {
		cmds[cl.cmd] = true
	}
	// a big MERGE joins the pending state chunk by chunk as its rows
	// stream (mergeChunked says when that changes nothing a client can
	// see): the statement holds one chunk of new rows, not all of them
	var chunk int64
	if w.mergeChunked(ti, m, assigned, cmds) {
		chunk = stagedSpillBytes(w.s.memLimit)
	}
	out := &writeOut{}
	total := 0
	first := true
	var bodyErr error
	err = w.queryChunksOf("", q, chunk, func(rows []*exec.Vec, cols []exec.Column) error {
		if !first {
			mergeChunksAfterFirst.Add(1)
		}
		first = false
		n, err := w.mergeRows(ti, alias, salias, m, clauses, srcAt, chunk > 0, rows, cols, out)
		total += n
		bodyErr = err
		return err
	})
	if err != nil {
		if bodyErr != nil {
			return nil, bodyErr
		}
		return nil, placeInputError(err, w.sql, mergeLiterals(td, m))
	}
	out.tag = fmt.Sprintf("MERGE %d", total)
	return out, nil
}

// mergeClause is one WHEN clause of a MERGE as its query projects it.
type mergeClause struct {
	kind    sqlparse.MergeMatchKind
	cmd     sqlparse.CmdType
	first   int // first projected column of its values
	values  int
	seqCols []int // columns taking a sequence default (INSERT)
}

// mergeRows applies the actions of a MERGE's joined rows (all of them, or
// one chunk: chunked) and adds what RETURNING gives for them to out; it
// returns the number of rows the actions changed.
func (w *writer) mergeRows(ti *tableInfo, alias, salias string, m *sqlparse.MergeStmt, clauses []mergeClause, srcAt int, chunked bool, rows []*exec.Vec, cols []exec.Column, out *writeOut) (int, error) {
	td := ti.def
	var err error
	// a row an earlier chunk changed is in the target's pending delete
	// set (the rows deleted before the statement are not in its snapshot)
	var done *addrBits
	if p := w.v.pend.tables[td.Name]; chunked && p != nil {
		done = p.deleted
	}
	var delAddrs, updAddrs []uint64
	var updIdx, insIdx, delIdx []int32
	var updClause, insClause []int
	touched := map[int64]bool{}
	n := rows[0].N
	for i := 0; i < n; i++ {
		tPresent, sPresent := !rows[0].IsNull(i), !rows[1].IsNull(i)
		var kind sqlparse.MergeMatchKind
		switch {
		case tPresent && sPresent:
			kind = sqlparse.MergeMatchKind_MERGE_WHEN_MATCHED
		case sPresent:
			kind = sqlparse.MergeMatchKind_MERGE_WHEN_NOT_MATCHED_BY_TARGET
		case tPresent:
			kind = sqlparse.MergeMatchKind_MERGE_WHEN_NOT_MATCHED_BY_SOURCE
		default:
			continue
		}
		for ci, cl := range clauses {
			if cl.kind != kind {
				continue
			}
			cv := rows[cl.first-1]
			if cv.IsNull(i) || !cv.B[i] {
				continue
			}
			if tPresent && cl.cmd != sqlparse.CmdType_CMD_NOTHING {
				a := rows[0].I[i]
				if touched[a] || done.has(uint64(a)) {
					return 0, wire.Errorf(pgerr.CardinalityViolation, "MERGE command cannot affect row a second time").
						WithHint("Ensure that not more than one source row matches any one target row.")
				}
				touched[a] = true
			}
			switch cl.cmd {
			case sqlparse.CmdType_CMD_UPDATE:
				updAddrs = append(updAddrs, uint64(rows[0].I[i]))
				updIdx = append(updIdx, int32(i))
				updClause = append(updClause, ci)
			case sqlparse.CmdType_CMD_DELETE:
				delAddrs = append(delAddrs, uint64(rows[0].I[i]))
				delIdx = append(delIdx, int32(i))
			case sqlparse.CmdType_CMD_INSERT:
				insIdx = append(insIdx, int32(i))
				insClause = append(insClause, ci)
			}
			break
		}
	}
	// the new rows of updates and inserts, each from its clause's columns
	// (one gather per clause, then the rows back in join order)
	build := func(idx []int32, which []int) []*exec.Vec {
		out := emptyVecs(td.Columns)
		perm := make([]int32, len(idx))
		at, parts := int32(0), 0
		for ci, cl := range clauses {
			var mine []int32
			for k, i := range idx {
				if which[k] == ci {
					perm[k] = at + int32(len(mine))
					mine = append(mine, i)
				}
			}
			if len(mine) == 0 {
				continue
			}
			part := make([]*exec.Vec, len(td.Columns))
			for c := range td.Columns {
				part[c] = retype(rows[cl.first+c].Gather(mine), td.Columns[c].Type)
			}
			out = appendVecs(out, part)
			at += int32(len(mine))
			parts++
		}
		if parts > 1 {
			for c := range out {
				out[c] = out[c].Gather(perm)
			}
		}
		return out
	}
	upd := build(updIdx, updClause)
	ins := build(insIdx, insClause)
	fill := map[int][]bool{}
	for k, ci := range insClause {
		for _, c := range clauses[ci].seqCols {
			if fill[c] == nil {
				fill[c] = make([]bool, len(insIdx))
			}
			fill[c][k] = true
		}
	}
	if err := w.fillSequences(td, ins, fill); err != nil {
		return 0, err
	}
	var old []*exec.Vec
	if len(m.ReturningList) > 0 && len(delAddrs) > 0 {
		if old, err = w.rowsAt(ti, delAddrs); err != nil {
			return 0, err
		}
	}
	all := appendVecs(upd, ins)
	// Updated rows take ON UPDATE actions (their keys may survive in
	// upd), deleted rows ON DELETE ones; the new rows are checked once
	// both are removed and before any referential action, as PostgreSQL
	// orders them (the delete runs inside the update's check step).
	removeDeleted := func() error {
		return w.removeRows(ti, delAddrs, nil, nil, 0, func() error { return w.checkRows(ti, all) })
	}
	if err := w.removeRows(ti, updAddrs, nil, upd, 0, removeDeleted); err != nil {
		return 0, err
	}
	if err := w.apply(ti, nil, all); err != nil {
		return 0, err
	}
	count := len(updAddrs) + len(delAddrs) + len(insIdx)
	actions := make([]string, 0, count)
	for range updAddrs {
		actions = append(actions, "UPDATE")
	}
	for range insIdx {
		actions = append(actions, "INSERT")
	}
	if old != nil {
		all = appendVecs(all, old)
		for range delAddrs {
			actions = append(actions, "DELETE")
		}
	}
	if len(m.ReturningList) == 0 {
		return count, nil
	}
	// the source row of each returned row, in the same order
	idx := append(append(slices.Clone(updIdx), insIdx...), delIdx...)[:len(actions)]
	var srcCols []exec.ColumnDef
	var srcRows []*exec.Vec
	for c := srcAt; c < len(rows); c++ {
		if c == len(rows)-1 {
			break // the source's _merge_src marker
		}
		srcCols = append(srcCols, exec.ColumnDef{Name: cols[c].Name, Type: rows[c].T})
		srcRows = append(srcRows, rows[c].Gather(idx))
	}
	rcols, rvecs, err := w.mergeReturning(ti, alias, salias, m.ReturningList, all, actions, srcCols, srcRows)
	if err != nil {
		return 0, err
	}
	out.cols = rcols
	return count, w.holdReturning(out, rvecs)
}

// mergeActionColumn carries each RETURNING row's merge_action().
const mergeActionColumn = "_merge_action"

// withMergeAction rewrites a RETURNING list for the action column:
// merge_action() reads it, and * / alias.* list the table's own columns
// (so the helper column never shows).
func withMergeAction(list []*sqlparse.Node, alias string, cols []exec.ColumnDef) []*sqlparse.Node {
	var out []*sqlparse.Node
	for _, n := range list {
		rt := n.GetResTarget()
		if cr := rt.GetVal().GetColumnRef(); cr != nil && len(cr.Fields) > 0 && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			for _, c := range cols {
				fields := []*sqlparse.Node{pgString(alias), pgString(c.Name)}
				out = append(out, &sqlparse.Node{Node: &sqlparse.Node_ResTarget{ResTarget: &sqlparse.ResTarget{
					Val: &sqlparse.Node{Node: &sqlparse.Node_ColumnRef{ColumnRef: &sqlparse.ColumnRef{Fields: fields, Location: -1}}}, Location: -1}}})
			}
			continue
		}
		c := proto.Clone(n).(*sqlparse.Node)
		replaceMergeAction(c.ProtoReflect())
		out = append(out, c)
	}
	return out
}

func pgString(s string) *sqlparse.Node {
	return &sqlparse.Node{Node: &sqlparse.Node_String_{String_: &sqlparse.String{Sval: s}}}
}

// replaceMergeAction turns merge_action() calls into references to the
// action column, in place (on a clone).
func replaceMergeAction(msg protoreflect.Message) {
	if n, ok := msg.Interface().(*sqlparse.Node); ok {
		if n.GetMergeSupportFunc() != nil {
			n.Node = &sqlparse.Node_ColumnRef{ColumnRef: &sqlparse.ColumnRef{Fields: []*sqlparse.Node{pgString(mergeActionColumn)}, Location: -1}}
			return
		}
		if fc := n.GetFuncCall(); fc != nil && len(fc.Args) == 0 {
			if _, name := funcName(fc); name == "merge_action" {
				n.Node = &sqlparse.Node_ColumnRef{ColumnRef: &sqlparse.ColumnRef{Fields: []*sqlparse.Node{pgString(mergeActionColumn)}, Location: -1}}
				return
			}
		}
	}
	msg.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind {
			return true
		}
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				replaceMergeAction(l.Get(i).Message())
			}
		} else if !fd.IsMap() {
			replaceMergeAction(v.Message())
		}
		return true
	})
}

// mergeSource gives MERGE's source as a FROM item that also projects a
// non-NULL marker column — (SELECT alias.*, TRUE AS _merge_src FROM
// source) AS alias — and the name its columns go by.
func mergeSource(n *sqlparse.Node) (alias string, item *sqlparse.Node, err error) {
	switch {
	case n.GetRangeVar() != nil:
		rv := n.GetRangeVar()
		alias = rv.Relname
		if rv.Alias != nil {
			alias = rv.Alias.Aliasname
		}
	case n.GetRangeSubselect() != nil && n.GetRangeSubselect().Alias != nil:
		alias = n.GetRangeSubselect().Alias.Aliasname
	case n.GetRangeFunction() != nil && n.GetRangeFunction().Alias != nil:
		alias = n.GetRangeFunction().Alias.Aliasname
	default:
		return "", nil, wire.Errorf(wire.CodeFeatureNotSupported, "this MERGE source is not supported")
	}
	marker := &sqlparse.Node{Node: &sqlparse.Node_ResTarget{ResTarget: &sqlparse.ResTarget{Name: "_merge_src", Val: boolConst(true), Location: -1}}}
	inner := selectTree(nil, []*sqlparse.Node{resTarget(starOf(alias)), marker}, []*sqlparse.Node{n}, nil)
	return alias, subqueryNode(inner, alias, nil), nil
}

// mergeLiterals lists what MERGE's actions store, with the columns' types
// (for placeInputError), in clause order.
func mergeLiterals(td *exec.TableDef, m *sqlparse.MergeStmt) []literalTarget {
	var out []literalTarget
	for _, n := range m.MergeWhenClauses {
		wc := n.GetMergeWhenClause()
		switch wc.CommandType {
		case sqlparse.CmdType_CMD_UPDATE:
			out = append(out, setLiterals(td, wc.TargetList)...)
		case sqlparse.CmdType_CMD_INSERT:
			targets, err := insertTargets(td, wc.TargetList, "")
			if err != nil {
				continue
			}
			for k, v := range wc.Values {
				if k < len(targets) {
					out = append(out, literalTarget{v, td.Columns[targets[k]].Type, td.Columns[targets[k]].Name})
				}
			}
		}
	}
	return out
}

// mergeInsertItems gives a WHEN NOT MATCHED … INSERT's values in table
// column order.
func (w *writer) mergeInsertItems(td *exec.TableDef, wc *sqlparse.MergeWhenClause) ([]*sqlparse.Node, []int, error) {
	targets, err := insertTargets(td, wc.TargetList, "")
	if err != nil {
		return nil, nil, err
	}
	if len(wc.TargetList) == 0 && len(wc.Values) > 0 && len(wc.Values) < len(targets) {
		// without a column list the values fill the leading columns and
		// the rest get their defaults, as INSERT's do
		targets = targets[:len(wc.Values)]
	}
	if len(wc.Values) > 0 && len(wc.Values) != len(targets) {
		if len(wc.Values) > len(targets) {
			return nil, nil, wire.Errorf(pgerr.SyntaxError, "INSERT has more expressions than target columns")
		}
		return nil, nil, wire.Errorf(pgerr.SyntaxError, "INSERT has more target columns than expressions")
	}
	items := make([]*sqlparse.Node, len(td.Columns))
	var seqCols []int
	for c, cd := range td.Columns {
		p := slices.Index(targets, c)
		if len(wc.Values) > 0 && p >= 0 && wc.Values[p].GetSetToDefault() == nil {
			items[c], err = w.assignNode(wc.Values[p], cd)
		} else {
			if seqDefault(cd.Default) != "" {
				seqCols = append(seqCols, c)
			}
			items[c], err = w.defaultNode(cd)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	return items, seqCols, nil
}

// mergeReturning evaluates MERGE's RETURNING list over the changed rows
// (new contents for INSERT/UPDATE, old for DELETE) and, row by row, the
// source row that caused each change (NULL for NOT MATCHED BY SOURCE):
// the target's rows go by its alias, the source's by the source's, * is
// every target column and then every source column (PostgreSQL 17's
// expansion), merge_action() is the action.
func (w *writer) mergeReturning(ti *tableInfo, alias, salias string, list []*sqlparse.Node, rows []*exec.Vec, actions []string,
	srcCols []exec.ColumnDef, src []*exec.Vec) ([]wire.Column, []*exec.Vec, error) {
	const rowCol = "_merge_row"
	n := len(actions)
	num := func() *exec.Vec {
		v := exec.NewVec(exec.TInt8, n)
		for i := range v.I {
			v.I[i] = int64(i)
		}
		return v
	}
	av := exec.NewVec(exec.TText, n)
	copy(av.S, actions)
	tcols := append(slices.Clip(ti.def.Columns), exec.ColumnDef{Name: mergeActionColumn, Type: exec.TText}, exec.ColumnDef{Name: rowCol, Type: exec.TInt8})
	tvecs := append(slices.Clip(rows), av, num())
	scols := append(slices.Clip(srcCols), exec.ColumnDef{Name: rowCol, Type: exec.TInt8})
	svecs := append(slices.Clip(src), num())
	ref := func(rel, col string) *sqlparse.Node {
		return &sqlparse.Node{Node: &sqlparse.Node_ResTarget{ResTarget: &sqlparse.ResTarget{
			Val: &sqlparse.Node{Node: &sqlparse.Node_ColumnRef{ColumnRef: &sqlparse.ColumnRef{Fields: []*sqlparse.Node{pgString(rel), pgString(col)}, Location: -1}}}, Location: -1}}}
	}
	var expanded []*sqlparse.Node
	for _, item := range list {
		rt := item.GetResTarget()
		cr := rt.GetVal().GetColumnRef()
		if cr == nil || len(cr.Fields) == 0 || cr.Fields[len(cr.Fields)-1].GetAStar() == nil {
			c := proto.Clone(item).(*sqlparse.Node)
			replaceMergeAction(c.ProtoReflect())
			expanded = append(expanded, c)
			continue
		}
		rel := ""
		if len(cr.Fields) == 2 {
			rel = cr.Fields[0].GetString_().GetSval()
		}
		if rel != "" && rel != alias && rel != salias {
			return nil, nil, wire.Errorf(pgerr.UndefinedTable, "missing FROM-clause entry for table \"%s\"", rel)
		}
		if rel == "" || rel == alias {
			for _, c := range ti.def.Columns {
				expanded = append(expanded, ref(alias, c.Name))
			}
		}
		if rel == "" || rel == salias {
			for _, c := range srcCols {
				expanded = append(expanded, ref(salias, c.Name))
			}
		}
	}
	restore := w.shadow(map[string]*exec.TableDef{
		alias:  {OID: ti.def.OID, Schema: "public", Name: alias, Columns: tcols, Source: exec.MemTableFromVecs(tcols, tvecs)},
		salias: {Schema: "public", Name: salias, Columns: scols, Source: exec.MemTableFromVecs(scols, svecs)},
	})
	defer restore()
	// SELECT expanded FROM alias JOIN salias ON alias._merge_row =
	// salias._merge_row ORDER BY alias._merge_row
	on := &sqlparse.Node{Node: &sqlparse.Node_AExpr{AExpr: &sqlparse.A_Expr{Kind: sqlparse.A_Expr_Kind_AEXPR_OP,
		Name: []*sqlparse.Node{pgString("=")}, Lexpr: columnRef(alias, rowCol), Rexpr: columnRef(salias, rowCol), Location: -1}}}
	join := &sqlparse.Node{Node: &sqlparse.Node_JoinExpr{JoinExpr: &sqlparse.JoinExpr{Jointype: sqlparse.JoinType_JOIN_INNER,
		Larg: relationNode(alias), Rarg: relationNode(salias), Quals: on}}}
	q := selectTree(nil, expanded, []*sqlparse.Node{join}, nil)
	q.GetSelectStmt().SortClause = []*sqlparse.Node{{Node: &sqlparse.Node_SortBy{SortBy: &sqlparse.SortBy{Node: columnRef(alias, rowCol),
		SortbyDir: sqlparse.SortByDir_SORTBY_DEFAULT, SortbyNulls: sqlparse.SortByNulls_SORTBY_NULLS_DEFAULT, Location: -1}}}}
	vecs, ecols, err := w.queryTree(q)
	if err != nil {
		return nil, nil, err
	}
	return columns(ecols), vecs, nil
}

// shadow puts relations in front of the catalog's for the writer's
// queries and returns what puts the earlier ones back.
func (w *writer) shadow(rels map[string]*exec.TableDef) func() {
	type was struct {
		td  *exec.TableDef
		had bool
	}
	saved := map[string]was{}
	for name, td := range rels {
		old, had := w.v.extra[name]
		saved[name] = was{old, had}
		w.v.extra[name] = td
	}
	return func() {
		for name, s := range saved {
			if s.had {
				w.v.extra[name] = s.td
			} else {
				delete(w.v.extra, name)
			}
		}
	}
}
