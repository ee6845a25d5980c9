package planner

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/planner/ddl"
	"github.com/pggraph/pggraph/wire"
)

// insert runs INSERT: the rows come from one exec query that yields them
// in table column order, each value cast to its column's type (DEFAULT
// and omitted columns get the column default); ON CONFLICT splits them
// into rows to insert, to skip and to update; validators run before the
// rows join the pending state.
func (w *writer) insert(ins *sqlparse.InsertStmt) (*writeOut, error) {
	ti, alias, err := w.target(ins.Relation)
	if err != nil {
		return nil, err
	}
	td := ti.def
	targets, err := insertTargets(td, ins.Cols, w.sql)
	if err != nil {
		return nil, err
	}
	stmt, fill, targets, err := w.insertSource(td, targets, ins)
	if err != nil {
		return nil, err
	}
	if ins.OnConflictClause != nil {
		if err := refuseRowTriggers(ti, "INSERT", "INSERT … ON CONFLICT"); err != nil {
			return nil, err
		}
		if err := refuseRowTriggers(ti, "UPDATE", "INSERT … ON CONFLICT"); err != nil {
			return nil, err
		}
	}
	if err := w.fireStatement(ti, "INSERT", true); err != nil {
		return nil, err
	}
	// a big INSERT … SELECT joins the pending state chunk by chunk (each
	// chunk checked against the table and the chunks before it, then
	// staged like any pending rows past the threshold): the statement
	// holds one chunk of its rows in memory, not all of them
	var chunk int64
	if w.streamable(ti, ins, fill) {
		chunk = stagedSpillBytes(w.s.memLimit)
	}
	if pt := w.v.pend.tables[td.Name]; pt != nil {
		w.conflictFrom = uint64(pendingRows(pt))
	} else {
		w.conflictFrom = 0
	}
	out := &writeOut{}
	var n int
	first := true
	var bodyErr error
	off := 0 // the chunk's first row in the statement (fill's masks)
	err = w.queryChunksOf("", stmt, chunk, func(rows []*exec.Vec, _ []exec.Column) error {
		if !first {
			insertChunksAfterFirst.Add(1)
		}
		cf := chunkFill(fill, off, rows)
		if len(rows) > 0 {
			off += rows[0].N
		}
		cols, ret, k, err := w.insertRows(ti, alias, ins, targets, cf, rows, first)
		first = false
		if err != nil {
			bodyErr = err
			return err
		}
		n += k
		out.cols = cols
		return w.holdReturning(out, ret)
	})
	if err != nil {
		if bodyErr != nil {
			return nil, bodyErr
		}
		return nil, placeInputError(err, w.sql, insertLiterals(td, targets, ins))
	}
	if err := w.fireStatement(ti, "INSERT", false); err != nil {
		return nil, err
	}
	out.tag = fmt.Sprintf("INSERT 0 %d", n)
	return out, nil
}

// insertRows checks and adds rows of an INSERT (all of them, or one
// chunk of a streamed INSERT … SELECT: first tells the first chunk) and
// evaluates RETURNING over them; it returns the RETURNING columns and
// rows and the number of rows inserted.
func (w *writer) insertRows(ti *tableInfo, alias string, ins *sqlparse.InsertStmt, targets []int, fill map[int][]bool, rows []*exec.Vec, first bool) ([]wire.Column, []*exec.Vec, int, error) {
	td := ti.def
	if len(rows) != len(td.Columns) {
		return nil, nil, 0, wire.Errorf(pgerr.SyntaxError, "INSERT has more expressions than target columns")
	}
	for c, cd := range td.Columns {
		rows[c] = retype(rows[c], cd.Type)
	}
	if err := checkLengths(td, rows); err != nil {
		return nil, nil, 0, err
	}
	if first {
		if err := checkGeneratedAlways(ti, targets, fill, ins.Override); err != nil {
			return nil, nil, 0, err
		}
	}
	if err := w.fillSequences(td, rows, fill); err != nil {
		return nil, nil, 0, err
	}
	keep, err := w.fireRow(ti, "INSERT", true, nil, rows)
	if err != nil {
		return nil, nil, 0, err
	}
	if keep != nil {
		rows = gatherVecs(rows, keep)
	}
	var updated []*exec.Vec
	var updatedAddrs []uint64
	var order []int32
	if oc := ins.OnConflictClause; oc != nil {
		rows, updatedAddrs, updated, order, err = w.onConflict(ti, alias, oc, rows)
		if err != nil {
			return nil, nil, 0, err
		}
	}
	all := rows
	if updated != nil {
		all = inProposalOrder(appendVecs(rows, updated), order)
	}
	if err := w.removeRows(ti, updatedAddrs, nil, updated, 0, func() error { return w.checkRows(ti, all) }); err != nil {
		return nil, nil, 0, err
	}
	for _, a := range updatedAddrs {
		// a pending row from before the statement updated: its old
		// version is cut out, the statement's rows move down one
		if a&pendingAddrBit != 0 && a&^pendingAddrBit < w.conflictFrom {
			w.conflictFrom--
		}
	}
	if err := w.apply(ti, nil, all); err != nil {
		return nil, nil, 0, err
	}
	n := 0
	if len(all) > 0 {
		n = all[0].N
	}
	if _, err := w.fireRow(ti, "INSERT", false, nil, all); err != nil {
		return nil, nil, 0, err
	}
	cols, ret, err := w.returningVecs(ti, alias, ins.ReturningList, all, nil)
	return cols, ret, n, err
}

// streamable reports an INSERT whose rows may join the pending state
// chunk by chunk as its source streams (a VALUES list's rows stream in
// order, so its per-row DEFAULT masks are cut per chunk: chunkFill), and
// an ON CONFLICT whose
// outcome cannot depend on the chunking. A source reading the target
// streams too: it reads a snapshot of the pending state from before the
// statement (chunked_writes.go), never the chunks added meanwhile.
//
// ON CONFLICT arbitrates each chunk's rows against the table and the
// chunks before it (a row inserted or updated by an earlier chunk is a
// conflict: DO NOTHING skips the proposal, DO UPDATE answers 21000 as
// within one chunk, conflictFrom), so DO NOTHING always streams. DO
// UPDATE streams when its SET assigns no column of a unique key and none
// another table's foreign key references (as a chunked UPDATE) and its
// SET and WHERE hold no subquery (one would read the target with the
// earlier chunks applied, where PostgreSQL reads the statement's
// snapshot).
func (w *writer) streamable(ti *tableInfo, ins *sqlparse.InsertStmt, fill map[int][]bool) bool {
	if w.describe || ins.SelectStmt == nil {
		return false
	}
	oc := ins.OnConflictClause
	if oc == nil || oc.Action != sqlparse.OnConflictAction_ONCONFLICT_UPDATE {
		return true
	}
	const split = "Insert fewer rows per statement (restrict the source, for example to a key range)"
	if hasSubquery(oc.WhereClause) {
		return w.heldBecause("its ON CONFLICT DO UPDATE has a subquery", split)
	}
	assigned := map[int]bool{}
	for _, n := range oc.TargetList {
		rt := n.GetResTarget()
		if rt == nil || hasSubquery(rt.Val) {
			return w.heldBecause("its ON CONFLICT DO UPDATE has a subquery", split)
		}
		c := slices.IndexFunc(ti.def.Columns, func(cd exec.ColumnDef) bool { return cd.Name == rt.Name })
		if c < 0 {
			return false // the statement's own 42703
		}
		assigned[c] = true
	}
	w.assigned, w.assignedTable = assigned, ti.def.Name
	defer func() { w.assigned = nil }()
	for _, uk := range uniqueKeys(ti.def) {
		if !w.keepsAll(ti.def, uk.cols) {
			return w.heldBecause("its ON CONFLICT DO UPDATE assigns a column of unique key \""+uk.name+"\"", split)
		}
	}
	if !w.keepsReferenced(ti) {
		return w.heldBecause("its ON CONFLICT DO UPDATE assigns a column another table's foreign key references", split)
	}
	return true
}

// chunkFill is fill for the chunk of rows starting at row off of the
// statement: a VALUES list's per-row sequence masks cut to the chunk's
// rows (a nil mask, every row, stays nil).
func chunkFill(fill map[int][]bool, off int, rows []*exec.Vec) map[int][]bool {
	n := 0
	if len(rows) > 0 {
		n = rows[0].N
	}
	cut := false
	for _, m := range fill {
		cut = cut || m != nil
	}
	if !cut || (off == 0 && n == len(firstMask(fill))) {
		return fill
	}
	out := make(map[int][]bool, len(fill))
	for c, m := range fill {
		if m != nil {
			m = m[min(off, len(m)):min(off+n, len(m))]
		}
		out[c] = m
	}
	return out
}

// firstMask is one of fill's per-row masks (nil when none has one).
func firstMask(fill map[int][]bool) []bool {
	for _, m := range fill {
		if m != nil {
			return m
		}
	}
	return nil
}

// hasSubquery reports a parse tree holding a subquery.
func hasSubquery(n *sqlparse.Node) bool {
	if n == nil {
		return false
	}
	found := false
	walkMessages(n.ProtoReflect(), func(m protoreflect.ProtoMessage) {
		if _, ok := m.(*sqlparse.SubLink); ok {
			found = true
		}
	})
	return found
}

// insertChunksAfterFirst counts the chunks INSERT … SELECT statements
// added after their first (tests: the streamed path ran).
var insertChunksAfterFirst atomic.Int64

// retype gives a result vector the column's exact type (same kind: exec
// casts produced it), so keys and records match the table.
func retype(v *exec.Vec, t exec.Type) *exec.Vec {
	if v.T.OID == t.OID && v.T.Mod == t.Mod {
		return v
	}
	c := *v
	c.T = t
	return &c
}

// insertTargets maps INSERT's column list to table column indexes (all
// columns in order when there is none); sql, when given, is the text the
// column names come from, for the error cursor.
func insertTargets(td *exec.TableDef, cols []*sqlparse.Node, sql string) ([]int, error) {
	if len(cols) == 0 {
		out := make([]int, len(td.Columns))
		for i := range out {
			out[i] = i
		}
		return out, nil
	}
	out := make([]int, 0, len(cols))
	for _, n := range cols {
		rt := n.GetResTarget()
		if len(rt.Indirection) > 0 {
			return nil, wire.Errorf(wire.CodeFeatureNotSupported, "INSERT into a subfield or array element of column \"%s\" is not supported", rt.Name)
		}
		i := slices.IndexFunc(td.Columns, func(c exec.ColumnDef) bool { return c.Name == rt.Name })
		if i < 0 {
			return nil, positioned(wire.Errorf(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", rt.Name, td.Name), sql, rt.Location)
		}
		if slices.Contains(out, i) {
			return nil, wire.Errorf(pgerr.DuplicateColumn, "column \"%s\" specified more than once", rt.Name)
		}
		out = append(out, i)
	}
	return out, nil
}

// insertLiterals lists the string literals of a VALUES or SELECT source
// with the types of the columns they fill (for placeInputError).
func insertLiterals(td *exec.TableDef, targets []int, ins *sqlparse.InsertStmt) []literalTarget {
	sel := ins.SelectStmt.GetSelectStmt()
	if sel == nil {
		return nil
	}
	var out []literalTarget
	for k, n := range sel.TargetList { // INSERT … SELECT 'literal', …
		if k < len(targets) {
			out = append(out, literalTarget{n.GetResTarget().GetVal(), td.Columns[targets[k]].Type, td.Columns[targets[k]].Name})
		}
	}
	for _, l := range sel.ValuesLists {
		for k, item := range l.GetList().Items {
			if k < len(targets) {
				out = append(out, literalTarget{item, td.Columns[targets[k]].Type, td.Columns[targets[k]].Name})
			}
		}
	}
	return out
}

// targetLocation is where the i-th column of an INSERT's column list
// starts (-1 when the list is implicit or shorter).
func targetLocation(cols []*sqlparse.Node, i int) int32 {
	if i < len(cols) {
		return cols[i].GetResTarget().GetLocation()
	}
	return -1
}

// selectTargetLocation is where the i-th output expression of a plain
// SELECT source starts (-1 for other sources).
func selectTargetLocation(n *sqlparse.Node, i int) int32 {
	sel := n.GetSelectStmt()
	if sel == nil || i >= len(sel.TargetList) {
		return -1
	}
	rt := sel.TargetList[i].GetResTarget()
	if l := nodeLocation(rt.GetVal()); l >= 0 {
		return l
	}
	return rt.GetLocation()
}

// insertSource builds the query yielding the new rows in table order,
// as a parse tree exec binds as it is (querytree.go): the VALUES list
// with every value converted to its column's type, or a SELECT over the
// source query, or the defaults. Without a column list the targets are
// the table's first columns, as many as the source yields (the rest get
// their defaults, as in PostgreSQL); it returns the targets it used.
func (w *writer) insertSource(td *exec.TableDef, targets []int, ins *sqlparse.InsertStmt) (*sqlparse.Node, map[int][]bool, []int, error) {
	fill := map[int][]bool{} // sequence-defaulted cells (nil mask: every row)
	sel := ins.SelectStmt.GetSelectStmt()
	pos := make([]int, len(td.Columns)) // table column -> position in targets (-1: default)
	implicit := func(n int) {           // no column list, a source n columns wide
		targets = targets[:n]
		for c := range pos {
			pos[c] = slices.Index(targets, c)
		}
	}
	implicit(len(targets))
	if sel != nil && len(ins.Cols) == 0 && len(sel.ValuesLists) > 0 && isPlainValues(sel) {
		implicit(min(len(targets), len(sel.ValuesLists[0].GetList().Items)))
	}
	if sel == nil { // DEFAULT VALUES
		items := make([]*sqlparse.Node, len(td.Columns))
		for c, cd := range td.Columns {
			n, err := w.defaultNode(cd)
			if err != nil {
				return nil, nil, nil, err
			}
			items[c] = resTarget(n)
			if seqDefault(cd.Default) != "" {
				fill[c] = nil
			}
		}
		return selectTree(ins.WithClause, items, nil, nil), fill, targets, nil
	}
	if isPlainValues(sel) {
		lists := make([]*sqlparse.Node, len(sel.ValuesLists))
		for r, l := range sel.ValuesLists {
			items := l.GetList().Items
			if len(items) > len(targets) {
				return nil, nil, nil, w.at(wire.Errorf(pgerr.SyntaxError, "INSERT has more expressions than target columns"), nodeLocation(items[len(targets)]))
			}
			if len(items) < len(targets) {
				return nil, nil, nil, w.at(wire.Errorf(pgerr.SyntaxError, "INSERT has more target columns than expressions"), targetLocation(ins.Cols, len(items)))
			}
			row := make([]*sqlparse.Node, len(td.Columns))
			for c, cd := range td.Columns {
				var err error
				if pos[c] >= 0 && items[pos[c]].GetSetToDefault() == nil {
					row[c], err = w.assignNode(items[pos[c]], cd)
				} else {
					if seqDefault(cd.Default) != "" {
						if fill[c] == nil {
							fill[c] = make([]bool, len(sel.ValuesLists))
						}
						fill[c][r] = true
					}
					row[c], err = w.defaultNode(cd)
				}
				if err != nil {
					return nil, nil, nil, err
				}
			}
			lists[r] = &sqlparse.Node{Node: &sqlparse.Node_List{List: &sqlparse.List{Items: row}}}
		}
		values := &sqlparse.SelectStmt{ValuesLists: lists, WithClause: ins.WithClause}
		return &sqlparse.Node{Node: &sqlparse.Node_SelectStmt{SelectStmt: values}}, fill, targets, nil
	}
	// the source's width must match the target list (a column alias list
	// shorter than the source would silently drop columns)
	width := selectTree(ins.WithClause, []*sqlparse.Node{resTarget(&sqlparse.Node{Node: &sqlparse.Node_ColumnRef{ColumnRef: &sqlparse.ColumnRef{
		Fields: []*sqlparse.Node{{Node: &sqlparse.Node_AStar{AStar: &sqlparse.A_Star{}}}}, Location: -1}}})},
		[]*sqlparse.Node{subqueryNode(ins.SelectStmt, "_src", nil)}, nil)
	eng := &exec.Engine{Catalog: w.v, MemoryLimit: w.s.memLimit}
	if prep, err := eng.PrepareStmtFor(w.s.execSession(), "", width, w.declared); err == nil {
		switch n := len(prep.Columns); {
		case n > len(targets):
			return nil, nil, nil, w.at(wire.Errorf(pgerr.SyntaxError, "INSERT has more expressions than target columns"), selectTargetLocation(ins.SelectStmt, len(targets)))
		case n < len(targets) && len(ins.Cols) == 0:
			implicit(n)
		case n < len(targets):
			return nil, nil, nil, w.at(wire.Errorf(pgerr.SyntaxError, "INSERT has more target columns than expressions"), targetLocation(ins.Cols, n))
		}
	}
	names := make([]string, len(targets))
	for i := range targets {
		names[i] = fmt.Sprintf("c%d", i+1)
	}
	items := make([]*sqlparse.Node, len(td.Columns))
	for c, cd := range td.Columns {
		var n *sqlparse.Node
		var err error
		if pos[c] >= 0 {
			n, err = w.assignFromSubqueryNode(columnRef("_src", names[pos[c]]), cd, selectTargetLocation(ins.SelectStmt, pos[c]))
		} else {
			n, err = w.defaultNode(cd)
			if seqDefault(cd.Default) != "" {
				fill[c] = nil
			}
		}
		if err != nil {
			return nil, nil, nil, err
		}
		items[c] = resTarget(n)
	}
	return selectTree(ins.WithClause, items, []*sqlparse.Node{subqueryNode(ins.SelectStmt, "_src", names)}, nil), fill, targets, nil
}

// isPlainValues reports a bare VALUES list (no ORDER BY/LIMIT/WITH).
func isPlainValues(sel *sqlparse.SelectStmt) bool {
	return len(sel.ValuesLists) > 0 && len(sel.SortClause) == 0 && sel.LimitCount == nil && sel.LimitOffset == nil && sel.WithClause == nil
}

var nodeCache sync.Map // SQL text -> parsed node (read-only, shared)

// typeNameNode is the parse node of a column type's name.
func typeNameNode(t exec.Type) (*sqlparse.TypeName, error) {
	n, err := cachedExpr("CAST(NULL AS " + typeSQL(t) + ")")
	if err != nil {
		return nil, err
	}
	return n.GetTypeCast().TypeName, nil
}

func cachedExpr(sql string) (*sqlparse.Node, error) {
	if n, ok := nodeCache.Load(sql); ok {
		return n.(*sqlparse.Node), nil
	}
	n, err := parseExpr(sql)
	if err != nil {
		return nil, wire.Errorf(pgerr.SyntaxError, "invalid expression %q", sql)
	}
	nodeCache.Store(sql, n)
	return n, nil
}

// projectRecord builds a record from columns (names are irrelevant).
func projectRecord(cols []arrow.Array, n int64) arrow.RecordBatch {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: fmt.Sprintf("c%d", i), Type: c.DataType(), Nullable: true}
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, n)
}

// inProposalOrder reorders rows by their positions among the proposed
// rows.
func inProposalOrder(rows []*exec.Vec, order []int32) []*exec.Vec {
	idx := make([]int32, len(order))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortStableFunc(idx, func(a, b int32) int { return int(order[a]) - int(order[b]) })
	return gatherVecs(rows, idx)
}

// checkGeneratedAlways refuses an explicit value for a GENERATED ALWAYS
// AS IDENTITY column (428C9), as PostgreSQL does, unless the statement
// says OVERRIDING SYSTEM VALUE. A target whose every row is DEFAULT is
// not explicit (fill marks defaulted cells: nil = every row).
func checkGeneratedAlways(ti *tableInfo, targets []int, fill map[int][]bool, override sqlparse.OverridingKind) error {
	if ti.meta == nil || override == sqlparse.OverridingKind_OVERRIDING_SYSTEM_VALUE {
		return nil
	}
	for _, c := range targets {
		if c >= len(ti.def.Columns) {
			continue
		}
		name := ti.def.Columns[c].Name
		always := false
		for _, cm := range ti.meta.Columns {
			if cm.Name == name && cm.Identity == ddl.IdentityAlways {
				always = true
			}
		}
		if !always {
			continue
		}
		mask, defaulted := fill[c]
		if defaulted && mask != nil && slices.Contains(mask, false) {
			defaulted = false
		}
		if !defaulted {
			return wire.Errorf(pgerr.GeneratedAlways, "cannot insert a non-DEFAULT value into column \"%s\"", name).
				WithDetail(fmt.Sprintf("Column \"%s\" is an identity column defined as GENERATED ALWAYS.", name)).
				WithHint("Use OVERRIDING SYSTEM VALUE to override.")
		}
	}
	return nil
}
