package planner

import (
	"fmt"
	"slices"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/planner/graphsql"
	"github.com/pggraph/pggraph/wire"
)

// UPDATE, DELETE and TRUNCATE find their rows with one exec query over
// the view that projects the target's hidden _rowaddr column (and, for
// UPDATE, every column's new value cast to its type): joins (FROM,
// USING), subqueries and every expression keep exec's semantics.

// update runs UPDATE … SET … [FROM …] [WHERE …] [RETURNING …].
func (w *writer) update(up *sqlparse.UpdateStmt) (*writeOut, error) {
	ti, alias, err := w.target(up.Relation)
	if err != nil {
		return nil, err
	}
	items, assigned, seqCols, err := w.setItems(ti.def, alias, up.TargetList)
	if err != nil {
		return nil, err
	}
	targets := []*sqlparse.Node{resTarget(columnRef(alias, "_rowaddr"))}
	for _, it := range items {
		targets = append(targets, resTarget(it))
	}
	// with FROM, RETURNING may name the FROM relations: it is evaluated
	// by the updating query, target columns standing for their new values
	withRet := false
	if len(up.FromClause) > 0 && len(up.ReturningList) > 0 && len(seqCols) == 0 {
		list, err := returningNewValues(up.ReturningList, alias, ti.def, items, fromAliases(up.FromClause))
		if err != nil {
			return nil, err
		}
		targets, withRet = append(targets, list...), true
	}
	if err := w.fireStatement(ti, "UPDATE", true); err != nil {
		return nil, err
	}
	// row triggers see OLD: the current values come with the new ones
	withOld := hasRowTriggers(ti, "UPDATE")
	if withOld {
		targets = append(targets, allColumnTargets(alias, ti.def.Columns)...)
	}
	fill := map[int][]bool{}
	for _, c := range seqCols {
		fill[c] = nil
	}
	// a big UPDATE joins the pending state chunk by chunk as its rows
	// stream (updateChunked says when that changes nothing a client can
	// see): the statement holds one chunk of new rows, not all of them
	var chunk int64
	var chunks *updateChunks
	// (not under row triggers: their bodies run statements of their own)
	if withOld {
		w.heldBecause("its table has row-level UPDATE triggers", "Update fewer rows per statement (a narrower WHERE, for example a key range)")
	} else if w.updateChunked(ti, up, assigned, withRet) {
		chunk, chunks = stagedSpillBytes(w.s.memLimit), &updateChunks{}
	}
	out := &writeOut{}
	var n int
	first := true
	var bodyErr error
	from := append([]*sqlparse.Node{rangeVarNode(up.Relation)}, up.FromClause...)
	err = w.queryChunksOf("", selectTree(up.WithClause, targets, from, up.WhereClause), chunk, func(rows []*exec.Vec, ecols []exec.Column) error {
		if !first {
			updateChunksAfterFirst.Add(1)
		}
		first = false
		k, err := w.updateRows(ti, alias, up, assigned, fill, withRet, withOld, chunks, rows, ecols, out)
		n += k
		bodyErr = err
		return err
	})
	if err != nil {
		if bodyErr != nil {
			return nil, bodyErr
		}
		return nil, placeInputError(err, w.sql, setLiterals(ti.def, up.TargetList))
	}
	if chunks != nil {
		if err := chunks.finish(w, ti); err != nil {
			return nil, err
		}
	}
	if err := w.fireStatement(ti, "UPDATE", false); err != nil {
		return nil, err
	}
	out.tag = fmt.Sprintf("UPDATE %d", n)
	return out, nil
}

// updateRows changes the rows of an UPDATE (all of them, or one chunk:
// chunks not nil) to their new values and adds what RETURNING gives for them to
// out; it returns the number of rows updated. rows are the updating
// query's: each target row's address, its new values, and (withRet) the
// RETURNING values the query computed, and (withOld) the rows' current
// values, which row triggers see as OLD.
func (w *writer) updateRows(ti *tableInfo, alias string, up *sqlparse.UpdateStmt, assigned map[int]bool, fill map[int][]bool, withRet, withOld bool, chunks *updateChunks, rows []*exec.Vec, ecols []exec.Column, out *writeOut) (int, error) {
	if chunks != nil {
		rows = chunks.notUpdatedYet(w, ti, rows)
	}
	addrs, newRows := splitAddrs(rows, ti.def)
	removed := addrs
	if chunks != nil {
		removed = chunks.split(addrs)
	}
	var olds []*exec.Vec
	if withOld {
		k := len(newRows) - len(ti.def.Columns)
		newRows, olds = newRows[:k], newRows[k:]
		for c, cd := range ti.def.Columns {
			olds[c] = retype(olds[c], cd.Type)
		}
	}
	var retRows []*exec.Vec
	if withRet {
		newRows, retRows = newRows[:len(ti.def.Columns)], newRows[len(ti.def.Columns):]
	}
	if err := w.fillSequences(ti.def, newRows, fill); err != nil {
		return 0, err
	}
	// the validators skip the keys the UPDATE leaves alone, and UPDATE OF
	// triggers fire for the columns it sets
	w.assigned, w.assignedTable = assigned, ti.def.Name
	if olds != nil {
		keep, err := w.fireRow(ti, "UPDATE", true, olds, newRows)
		if err != nil {
			w.assigned = nil
			return 0, err
		}
		if keep != nil { // BEFORE triggers skipped rows (never chunked: removed is addrs)
			kept := make([]uint64, len(keep))
			for k, i := range keep {
				kept[k] = addrs[i]
			}
			addrs, newRows, olds = kept, gatherVecs(newRows, keep), gatherVecs(olds, keep)
			removed = addrs
			if retRows != nil {
				retRows = gatherVecs(retRows, keep)
			}
		}
	}
	err := w.removeRows(ti, removed, nil, newRows, 0, func() error { return w.checkRows(ti, newRows) })
	w.assigned = nil
	if err != nil {
		return 0, err
	}
	if err := w.apply(ti, nil, newRows); err != nil {
		return 0, err
	}
	if olds != nil {
		w.assigned = assigned // AFTER UPDATE OF triggers, too
		_, err := w.fireRow(ti, "UPDATE", false, olds, newRows)
		w.assigned = nil
		if err != nil {
			return 0, err
		}
	}
	if withRet {
		end := len(ecols)
		if withOld {
			end -= len(ti.def.Columns)
		}
		out.cols = columns(ecols[1+len(ti.def.Columns) : end])
		return len(addrs), w.holdReturning(out, retRows)
	}
	cols, ret, err := w.returningVecs(ti, alias, up.ReturningList, newRows, nil)
	if err != nil {
		return 0, err
	}
	if cols != nil {
		out.cols = cols
	}
	return len(addrs), w.holdReturning(out, ret)
}

// returningNewValues rewrites an UPDATE's RETURNING list so that the
// target's columns (qualified by its alias, or unqualified) read their
// new values (items, SQL per column) and alias.* lists them.
func returningNewValues(list []*sqlparse.Node, alias string, td *exec.TableDef, items []*sqlparse.Node, from []string) ([]*sqlparse.Node, error) {
	col := func(name string) int {
		return slices.IndexFunc(td.Columns, func(c exec.ColumnDef) bool { return c.Name == name })
	}
	var out []*sqlparse.Node
	target := func() error {
		for c, cd := range td.Columns {
			out = append(out, &sqlparse.Node{Node: &sqlparse.Node_ResTarget{ResTarget: &sqlparse.ResTarget{Name: cd.Name, Val: proto.Clone(items[c]).(*sqlparse.Node), Location: -1}}})
		}
		return nil
	}
	for _, n := range list {
		rt := n.GetResTarget()
		if cr := rt.GetVal().GetColumnRef(); cr != nil && len(cr.Fields) > 0 && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			if len(cr.Fields) == 1 {
				// PostgreSQL: the target's columns (new values), then
				// every FROM item's, in FROM order
				if err := target(); err != nil {
					return nil, err
				}
				for _, a := range from {
					out = append(out, &sqlparse.Node{Node: &sqlparse.Node_ResTarget{ResTarget: &sqlparse.ResTarget{Val: starOf(a), Location: -1}}})
				}
				continue
			}
			if cr.Fields[0].GetString_().GetSval() == alias {
				if err := target(); err != nil {
					return nil, err
				}
				continue
			}
		}
		c := proto.Clone(n).(*sqlparse.Node)
		crt := c.GetResTarget()
		if cr := crt.GetVal().GetColumnRef(); cr != nil && crt.Name == "" {
			crt.Name = cr.Fields[len(cr.Fields)-1].GetString_().GetSval()
		}
		replaceColumnRefs(c.ProtoReflect(), func(cr *sqlparse.ColumnRef) *sqlparse.Node {
			var name string
			switch len(cr.Fields) {
			case 1:
				name = cr.Fields[0].GetString_().GetSval()
			case 2:
				if cr.Fields[0].GetString_().GetSval() != alias {
					return nil
				}
				name = cr.Fields[1].GetString_().GetSval()
			default:
				return nil
			}
			i := col(name)
			if i < 0 {
				return nil
			}
			return proto.Clone(items[i]).(*sqlparse.Node)
		})
		out = append(out, c)
	}
	return out, nil
}

// starOf is the column reference alias.*.
func starOf(alias string) *sqlparse.Node {
	return &sqlparse.Node{Node: &sqlparse.Node_ColumnRef{ColumnRef: &sqlparse.ColumnRef{Fields: []*sqlparse.Node{
		{Node: &sqlparse.Node_String_{String_: &sqlparse.String{Sval: alias}}},
		{Node: &sqlparse.Node_AStar{AStar: &sqlparse.A_Star{}}},
	}, Location: -1}}}
}

// fromAliases names the relations of FROM items in order, as * expands
// them: a table by its alias or name, a subquery or function by its
// alias, a join by its alias or else both sides.
func fromAliases(items []*sqlparse.Node) []string {
	var out []string
	for _, n := range items {
		switch {
		case n.GetRangeVar() != nil:
			rv := n.GetRangeVar()
			if rv.Alias != nil && rv.Alias.Aliasname != "" {
				out = append(out, rv.Alias.Aliasname)
			} else {
				out = append(out, rv.Relname)
			}
		case n.GetRangeSubselect() != nil:
			if a := n.GetRangeSubselect().Alias; a != nil {
				out = append(out, a.Aliasname)
			}
		case n.GetRangeFunction() != nil:
			if a := n.GetRangeFunction().Alias; a != nil {
				out = append(out, a.Aliasname)
			}
		case n.GetJoinExpr() != nil:
			j := n.GetJoinExpr()
			if j.Alias != nil && j.Alias.Aliasname != "" {
				out = append(out, j.Alias.Aliasname)
			} else {
				out = append(out, fromAliases([]*sqlparse.Node{j.Larg, j.Rarg})...)
			}
		}
	}
	return out
}

// replaceColumnRefs replaces, in place, every column reference for which
// repl returns a node.
func replaceColumnRefs(msg protoreflect.Message, repl func(*sqlparse.ColumnRef) *sqlparse.Node) {
	if n, ok := msg.Interface().(*sqlparse.Node); ok {
		if cr := n.GetColumnRef(); cr != nil {
			if r := repl(cr); r != nil {
				n.Node = r.Node
			}
			return
		}
	}
	msg.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind {
			return true
		}
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				replaceColumnRefs(l.Get(i).Message(), repl)
			}
		} else if !fd.IsMap() {
			replaceColumnRefs(v.Message(), repl)
		}
		return true
	})
}

// splitAddrs separates the address column (first) from the new values
// and keeps the first row per address (a join may match a row twice:
// PostgreSQL updates it once).
func splitAddrs(rows []*exec.Vec, td *exec.TableDef) ([]uint64, []*exec.Vec) {
	addrs, idx := firstPerAddr(rows[0])
	av := rows[0]
	vals := rows[1:]
	if len(idx) != av.N {
		vals = gatherVecs(vals, idx)
	}
	for c, cd := range td.Columns {
		if c < len(vals) {
			vals[c] = retype(vals[c], cd.Type)
		}
	}
	return addrs, vals
}

// setLiterals lists the string literals a SET list assigns, with their
// columns' types (for placeInputError).
func setLiterals(td *exec.TableDef, list []*sqlparse.Node) []literalTarget {
	var out []literalTarget
	for _, n := range list {
		rt := n.GetResTarget()
		if c := slices.IndexFunc(td.Columns, func(cd exec.ColumnDef) bool { return cd.Name == rt.Name }); c >= 0 {
			out = append(out, literalTarget{rt.Val, td.Columns[c].Type, rt.Name})
		}
	}
	return out
}

// setItems gives the new value of every column (table order) for a SET
// list, as an expression over the target (named alias): the assigned
// expression converted to the column type, or the current value.
// assigned tells the columns the list sets.
//
// seqCols lists the columns set to a sequence DEFAULT: their value is a
// NULL placeholder the caller fills (fillSequences).
func (w *writer) setItems(td *exec.TableDef, alias string, list []*sqlparse.Node) (items []*sqlparse.Node, assigned map[int]bool, seqCols []int, err error) {
	items = make([]*sqlparse.Node, len(td.Columns))
	for c, cd := range td.Columns {
		items[c] = columnRef(alias, cd.Name)
	}
	assigned = map[int]bool{}
	for _, n := range list {
		rt := n.GetResTarget()
		if len(rt.Indirection) > 0 {
			return nil, nil, nil, wire.Errorf(wire.CodeFeatureNotSupported, "assignment to a subfield or array element of column \"%s\" is not supported", rt.Name)
		}
		c := slices.IndexFunc(td.Columns, func(cd exec.ColumnDef) bool { return cd.Name == rt.Name })
		if c < 0 {
			return nil, nil, nil, w.at(wire.Errorf(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", rt.Name, td.Name), rt.Location)
		}
		if assigned[c] {
			return nil, nil, nil, wire.Errorf(pgerr.SyntaxError, "multiple assignments to same column \"%s\"", rt.Name)
		}
		assigned[c] = true
		val := rt.Val
		if mr := val.GetMultiAssignRef(); mr != nil {
			row := mr.Source.GetRowExpr()
			if row == nil || int(mr.Colno) > len(row.Args) {
				return nil, nil, nil, wire.Errorf(wire.CodeFeatureNotSupported, "multiple-column assignment from a subquery is not supported")
			}
			if len(row.Args) != int(mr.Ncolumns) {
				return nil, nil, nil, wire.Errorf(pgerr.SyntaxError, "number of columns does not match number of values")
			}
			val = row.Args[mr.Colno-1]
		}
		var err error
		if val.GetSetToDefault() != nil {
			if seqDefault(td.Columns[c].Default) != "" {
				seqCols = append(seqCols, c)
			}
			items[c], err = w.defaultNode(td.Columns[c])
		} else {
			items[c], err = w.assignNode(val, td.Columns[c])
		}
		if err != nil {
			return nil, nil, nil, err
		}
	}
	return items, assigned, seqCols, nil
}

func rangeVarNode(rv *sqlparse.RangeVar) *sqlparse.Node {
	return &sqlparse.Node{Node: &sqlparse.Node_RangeVar{RangeVar: rv}}
}

// delete runs DELETE FROM … [USING …] [WHERE …] [RETURNING …].
func (w *writer) delete(del *sqlparse.DeleteStmt) (*writeOut, error) {
	if rv := del.Relation; rv.Schemaname == graphsql.Schema && rv.Relname == graphsql.ViewConflicts {
		return w.resolveConflicts(del)
	}
	ti, alias, err := w.target(del.Relation)
	if err != nil {
		return nil, err
	}
	if err := w.fireStatement(ti, "DELETE", true); err != nil {
		return nil, err
	}
	// RETURNING sees the deleted rows' old values and the USING
	// relations, so it is evaluated by the same query (one row per
	// deleted row: the first join match, as PostgreSQL deletes once)
	targets := []*sqlparse.Node{resTarget(columnRef(alias, "_rowaddr"))}
	// the referenced key columns come with the addresses: the cascade
	// needs the deleted keys, and the query reads the rows anyway
	refCols := w.referencedCols(ti.def.Name)
	targets = append(targets, columnTargets(alias, ti.def.Columns, refCols)...)
	targets = append(targets, del.ReturningList...)
	// row triggers see OLD: every column comes with the addresses
	withOld := hasRowTriggers(ti, "DELETE")
	if withOld {
		targets = append(targets, allColumnTargets(alias, ti.def.Columns)...)
	}
	from := append([]*sqlparse.Node{rangeVarNode(del.Relation)}, del.UsingClause...)
	query := selectTree(del.WithClause, targets, from, del.WhereClause)
	if withOld {
		w.heldBecause("its table has row-level DELETE triggers", "Delete fewer rows per statement (a narrower WHERE, for example a key range)")
	} else if w.deleteChunked(ti, refCols) {
		return w.deleteChunks(ti, del, query, len(refCols))
	}
	rows, ecols, err := w.queryTree(query)
	if err != nil {
		return nil, err
	}
	var olds []*exec.Vec
	if withOld {
		k := len(rows) - len(ti.def.Columns)
		rows, olds = rows[:k], rows[k:]
		ecols = ecols[:k]
	}
	addrs, idx := firstPerAddr(rows[0])
	if olds != nil {
		olds = gatherVecs(olds, idx)
		for c, cd := range ti.def.Columns {
			olds[c] = retype(olds[c], cd.Type)
		}
		keep, err := w.fireRow(ti, "DELETE", true, olds, nil)
		if err != nil {
			return nil, err
		}
		if keep != nil {
			kept, keptIdx := make([]uint64, len(keep)), make([]int32, len(keep))
			for k, i := range keep {
				kept[k], keptIdx[k] = addrs[i], idx[i]
			}
			addrs, idx, olds = kept, keptIdx, gatherVecs(olds, keep)
		}
	}
	var old []*exec.Vec
	if len(refCols) > 0 {
		old = make([]*exec.Vec, len(ti.def.Columns))
		for k, c := range refCols {
			v := rows[1+k]
			if len(idx) != v.N {
				v = v.Gather(idx)
			}
			old[c] = retype(v, ti.def.Columns[c].Type)
		}
	}
	if err := w.removeRows(ti, addrs, old, nil, 0, nil); err != nil {
		return nil, err
	}
	if olds != nil {
		if _, err := w.fireRow(ti, "DELETE", false, olds, nil); err != nil {
			return nil, err
		}
	}
	if err := w.fireStatement(ti, "DELETE", false); err != nil {
		return nil, err
	}
	out := &writeOut{tag: fmt.Sprintf("DELETE %d", len(addrs))}
	if len(del.ReturningList) > 0 {
		out.cols = columns(ecols[1+len(refCols):])
		if err := w.holdReturning(out, gatherVecs(rows[1+len(refCols):], idx)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// firstPerAddr returns the distinct addresses of an address column and
// the row of each one's first occurrence.
func firstPerAddr(av *exec.Vec) ([]uint64, []int32) {
	seen := &addrBits{} // a bit per address: statements of millions of rows
	addrs := make([]uint64, 0, av.N)
	idx := make([]int32, 0, av.N)
	for i := 0; i < av.N; i++ {
		if av.IsNull(i) {
			continue
		}
		if !seen.add(uint64(av.I[i])) {
			continue
		}
		addrs = append(addrs, uint64(av.I[i]))
		idx = append(idx, int32(i))
	}
	return addrs, idx
}

// truncate runs TRUNCATE [TABLE] t [, …] [CASCADE]: every row of the
// tables is deleted in the transaction (one graph commit with the rest).
// A table referenced by a foreign key of another table needs that table
// in the list, or CASCADE (which adds it), as in PostgreSQL.
func (w *writer) truncate(tr *sqlparse.TruncateStmt) (*writeOut, error) {
	var list []*tableInfo
	for _, n := range tr.Relations {
		ti, _, err := w.target(n.GetRangeVar())
		if err != nil {
			return nil, err
		}
		if !slices.Contains(list, ti) {
			list = append(list, ti)
		}
	}
	cascade := tr.Behavior == sqlparse.DropBehavior_DROP_CASCADE
	for changed := true; changed; {
		changed = false
		for _, ti := range list {
			for _, child := range w.children(ti.def.Name) {
				if slices.Contains(list, child) {
					continue
				}
				if !cascade {
					return nil, wire.Errorf(wire.CodeFeatureNotSupported, "cannot truncate a table referenced in a foreign key constraint").
						WithDetail(fmt.Sprintf("Table \"%s\" references \"%s\".", child.def.Name, ti.def.Name)).
						WithHint(fmt.Sprintf("Truncate table \"%s\" at the same time, or use TRUNCATE ... CASCADE.", child.def.Name))
				}
				if w.s.info.Notice != nil {
					w.s.info.Notice(&wire.Error{Code: pgerr.SuccessfulCompletion, Message: fmt.Sprintf("truncate cascades to table \"%s\"", child.def.Name)})
				}
				list = append(list, child)
				w.v.pend.markRead(child.def.Name)
				changed = true
			}
		}
	}
	if !w.describe {
		// BEFORE TRUNCATE statement triggers of every table, then the
		// truncation, then the AFTER ones (planner/triggers.go)
		for _, ti := range list {
			if err := w.fireStatement(ti, "TRUNCATE", true); err != nil {
				return nil, err
			}
		}
	}
	for _, ti := range list {
		w.v.pend.setTable(ti.def.Name, &pendingTable{mode: modeTruncated, schema: ti.schema, cols: ti.def.Columns})
		if tr.RestartSeqs && ti.meta != nil && !w.describe {
			// RESTART IDENTITY: owned sequences start over (at once: not
			// transactional, as in PostgreSQL)
			for _, c := range ti.meta.Columns {
				if c.Sequence == nil {
					continue
				}
				if _, err := w.s.seqSess.Setval(w.ctx, w.s.seqs, c.Sequence.Spec(), c.Sequence.Start, false); err != nil {
					return nil, seqError(err)
				}
			}
		}
	}
	w.v.pend.bump()
	if err := w.rebase(); err != nil {
		return nil, err
	}
	if !w.describe {
		for _, ti := range list {
			if err := w.fireStatement(ti, "TRUNCATE", false); err != nil {
				return nil, err
			}
		}
	}
	return &writeOut{tag: "TRUNCATE TABLE"}, nil
}

// children lists the tables with a foreign key referencing table.
func (w *writer) children(table string) []*tableInfo {
	var out []*tableInfo
	names := make([]string, 0, len(w.v.base.tables))
	for n := range w.v.base.tables {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		ti := w.v.base.tables[n]
		for _, fk := range ti.def.ForeignKeys {
			if fk.RefTable == table && n != table {
				out = append(out, ti)
				break
			}
		}
	}
	return out
}
