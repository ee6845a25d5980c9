package adapters

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/protocol"
)

// Merges across re-columned tables. An ALTER TABLE that changes a
// table's stored columns (ADD, DROP or RENAME COLUMN, a type change)
// rewrites it into a new incarnation with the same stable id; surviving
// columns keep their column ids. When one branch re-columned a table and
// the other changed its rows, the rows changed on the one lineage are
// merged into the other incarnation, lining columns up by id:
//
//   - target re-columned, source changed rows: the source's row delta
//     (its base → its head, one lineage) is merged into the target's live
//     incarnation;
//   - source re-columned, target changed rows: the source's incarnation
//     is registered on the target (as for any table the source created)
//     and the target's own row delta since its base is merged into it,
//     on top of whatever the source changed in it.
//
// Each changed row is mapped into the other incarnation's columns: a
// column by id (a rename changes nothing), a column the other side added
// takes its DEFAULT (MergeDefaults, evaluated once per merge by the SQL
// layer; NULL without one), a column it dropped is dropped, a column it
// retyped is cast (a value that does not convert is a conflict naming
// the column). Rows are then merged per primary key and per column, as
// on tables with one lineage (merge_columns.go): the "other" row is the
// other incarnation's row with that key, the base is the mapped base
// row, so a column both sides set differently, a row updated on one side
// and deleted on the other, or a key added on both with different values
// conflicts; the merge's strategy settles conflicts ('ours', 'theirs';
// 'stop' stages the target's version of each, in place when the
// target's rows are the other side, else as a pending row). The
// merge checks validate the merged result as for any merge. A table
// without a primary key merges by value (merge_recolumn_keyless.go); one
// whose primary key columns changed cannot line rows up and stays
// unsupported (0A000). Cost: the changed rows are
// held in memory (O(delta)), plus one scan of the other incarnation.

// MergeDefaults evaluates, for a merge into target, the DEFAULT of the
// columns cols (positions in table.Def) as one-row arrays of their
// physical types; registered by the SQL layer (SetMergeDefaults).
type MergeDefaults func(ctx context.Context, target *graph.Snapshot, table graph.TableEntry, cols []int) ([]arrow.Array, error)

var mergeDefaults sync.Map // *Graph → MergeDefaults

// SetMergeDefaults makes every later Merge of g evaluate new columns'
// defaults with f (nil: NULL).
func SetMergeDefaults(g *Graph, f MergeDefaults) {
	if f == nil {
		mergeDefaults.Delete(g)
		return
	}
	mergeDefaults.Store(g, f)
}

// recolumned is one lineage's row delta merged into another incarnation:
// the other incarnation's rows to remove (by primary key, rowKey over its
// key columns) and the rows to add (its physical schema).
type recolumned struct {
	delKeys map[string]bool
	added   arrow.RecordBatch // nil: none
	// a table without a primary key: delVals copies to delete per value
	// of the other incarnation's columns proj (rowKey over them)
	delVals map[string]int
	proj    []int
}

// recolumnSide names the two sides of a re-columned merge: rows change
// on the replayed lineage and merge into the other incarnation.
type recolumnSide struct {
	table             string // SQL name (the other incarnation's)
	replayed, other   string // branch names
	replayedIsSource  bool
	rewriter, changer string // for messages
}

// colLine lines the replayed lineage's columns up with the other
// incarnation's by column id.
type colLine struct {
	to       *arrow.Schema
	toDef    graph.TableDef
	src      []int // per physical column of to: the replayed column, -1 when new
	fromPK   []int
	toPK     []int
	defaults []arrow.Array // per column of to: its default (new columns)
}

func (p *mergePlan) lineColumns(ctx context.Context, side recolumnSide, from graph.TableDef, fromSchema *arrow.Schema, to graph.TableEntry, toSchema *arrow.Schema) (*colLine, string, error) {
	if (len(to.Def.PrimaryKey) == 0) != (len(from.PrimaryKey) == 0) {
		return nil, "changed its primary key", nil
	}
	fromByID := map[uint64]graph.ColumnDef{}
	for _, c := range from.Columns {
		fromByID[c.ID] = c
	}
	l := &colLine{to: toSchema, toDef: to.Def, src: make([]int, len(toSchema.Fields())), defaults: make([]arrow.Array, len(toSchema.Fields()))}
	var newCols []int
	var newPos []int
	for i := range l.src {
		l.src[i] = -1
	}
	for ci, c := range to.Def.Columns {
		ix := toSchema.FieldIndices(c.Name)
		if len(ix) != 1 {
			return nil, "", fmt.Errorf("adapters: column %q of %q not in its dataset", c.Name, to.Name)
		}
		fc, ok := fromByID[c.ID]
		if !ok {
			newCols, newPos = append(newCols, ci), append(newPos, ix[0])
			continue
		}
		fx := fromSchema.FieldIndices(fc.Name)
		if len(fx) != 1 {
			return nil, "", fmt.Errorf("adapters: column %q of %q not in its dataset", fc.Name, to.Name)
		}
		l.src[ix[0]] = fx[0]
	}
	for _, n := range to.Def.PrimaryKey {
		tix := toSchema.FieldIndices(n)
		if len(tix) != 1 || l.src[tix[0]] < 0 {
			return nil, "changed its primary key", nil
		}
		l.toPK = append(l.toPK, tix[0])
		l.fromPK = append(l.fromPK, l.src[tix[0]])
	}
	if len(from.PrimaryKey) != len(l.fromPK) {
		return nil, "changed its primary key", nil
	}
	for i := range l.toPK {
		if !arrow.TypeEqual(fromSchema.Field(l.fromPK[i]).Type, toSchema.Field(l.toPK[i]).Type) {
			return nil, "changed the type of its primary key", nil
		}
	}
	if len(newCols) > 0 {
		var defs []arrow.Array
		if f, ok := mergeDefaults.Load(p.w.g); ok {
			var err error
			if defs, err = f.(MergeDefaults)(ctx, p.target, to, newCols); err != nil {
				return nil, "", err
			}
		}
		for i, pos := range newPos {
			if i < len(defs) && defs[i] != nil && defs[i].Len() == 1 && arrow.TypeEqual(defs[i].DataType(), toSchema.Field(pos).Type) {
				l.defaults[pos] = defs[i]
				continue
			}
			l.defaults[pos] = array.MakeArrayOfNull(memory.DefaultAllocator, toSchema.Field(pos).Type, 1)
		}
	}
	return l, "", nil
}

// mapRow maps a one-row record of the replayed lineage into the other
// incarnation's physical schema; bad names a column whose value does not
// convert.
func (l *colLine) mapRow(ctx context.Context, rec arrow.RecordBatch) (arrow.RecordBatch, string, error) {
	arrs := make([]arrow.Array, len(l.src))
	defer func() {
		for _, a := range arrs {
			if a != nil {
				a.Release()
			}
		}
	}()
	for j, s := range l.src {
		ft := l.to.Field(j).Type
		if s < 0 {
			l.defaults[j].Retain()
			arrs[j] = l.defaults[j]
			continue
		}
		col := rec.Column(s)
		if arrow.TypeEqual(col.DataType(), ft) {
			col.Retain()
			arrs[j] = col
			continue
		}
		c, ok := castOne(col, ft)
		if !ok {
			return nil, l.to.Field(j).Name, nil
		}
		arrs[j] = c
	}
	return array.NewRecordBatch(l.to, arrs, 1), "", nil
}

// castOne converts a one-value array to type t through the value's text
// (the builders' own parsing); ok false when the text does not parse as
// t (a retyped column whose value the other side's type cannot hold).
func castOne(a arrow.Array, t arrow.DataType) (arrow.Array, bool) {
	b := array.NewBuilder(memory.DefaultAllocator, t)
	defer b.Release()
	if a.IsNull(0) {
		b.AppendNull()
		return b.NewArray(), true
	}
	if err := b.AppendValueFromString(a.ValueStr(0)); err != nil {
		return nil, false
	}
	return b.NewArray(), true
}

// keyText renders a primary key for messages: (a, b)=(1, x).
func keyText(rec arrow.RecordBatch, cols []int) string {
	var names, vals []string
	for _, c := range cols {
		names = append(names, rec.Schema().Field(c).Name)
		if rec.Column(c).IsNull(0) {
			vals = append(vals, "NULL")
		} else {
			vals = append(vals, rec.Column(c).ValueStr(0))
		}
	}
	return "(" + strings.Join(names, ", ") + ")=(" + strings.Join(vals, ", ") + ")"
}

// mapDelta merges the row delta of one lineage (base → src, definition
// from) into the other incarnation (ods, entry to). ok false: a
// conflict was recorded (or the table is unsupported).
func (p *mergePlan) mapDelta(ctx context.Context, side recolumnSide, base, src pin, from graph.TableDef, to graph.TableEntry, ods *lance.Dataset) (*recolumned, bool, error) {
	g := p.w.g
	old, err := g.openPin(ctx, base)
	if err != nil {
		return nil, false, err
	}
	cur, err := g.openPin(ctx, src)
	if err != nil {
		return nil, false, err
	}
	l, why, err := p.lineColumns(ctx, side, from, cur.Schema(), to, ods.Schema())
	if err != nil {
		return nil, false, err
	}
	if why != "" {
		p.unsupported = append(p.unsupported, MergeConflict{Table: side.table, Reason: fmt.Sprintf(
			"re-columned on %s while %s changed its rows, and the table %s: merging rows into a re-columned table", side.rewriter, side.changer, why)})
		return nil, false, nil
	}
	d, err := deltaOf(ctx, old, cur)
	if err != nil || d.empty() {
		return &recolumned{}, err == nil, err
	}
	if len(l.toPK) == 0 {
		// no primary key: rows merge by value (merge_recolumn_keyless.go)
		return p.mapDeltaKeyless(ctx, side, old, cur, d, l, ods)
	}
	baseRows, err := rowsByAddr(ctx, old, d.deleted)
	if err != nil {
		return nil, false, err
	}
	srcRows, err := rowsByAddr(ctx, cur, d.added)
	if err != nil {
		return nil, false, err
	}
	type change struct{ b, s arrow.RecordBatch }
	changes := map[string]*change{}
	for _, r := range baseRows {
		changes[rowKey(r, 0, l.fromPK)] = &change{b: r}
	}
	for _, r := range srcRows {
		k := rowKey(r, 0, l.fromPK)
		if c := changes[k]; c != nil {
			c.s = r
		} else {
			changes[k] = &change{s: r}
		}
	}
	for k, c := range changes {
		if c.b != nil && c.s != nil && rowKey(c.b, 0, nil) == rowKey(c.s, 0, nil) {
			delete(changes, k) // rewritten in place (a compaction): no change
		}
	}
	// the other incarnation's rows with the changed keys
	others := map[string]arrow.RecordBatch{}
	otherAddr := map[string]uint64{}
	if len(changes) > 0 {
		var addrs []uint64
		keyOf := map[uint64]string{}
		if err := forEachRow(ctx, ods, lance.ScanOptions{}, func(rec arrow.RecordBatch, i int, addr uint64) error {
			if k := rowKey(rec, i, l.toPK); changes[k] != nil {
				addrs = append(addrs, addr)
				keyOf[addr] = k
			}
			return nil
		}); err != nil {
			return nil, false, err
		}
		rows, err := rowsByAddr(ctx, ods, addrs)
		if err != nil {
			return nil, false, err
		}
		for a, r := range rows {
			others[keyOf[a]] = r
			otherAddr[keyOf[a]] = a
		}
	}
	keys := make([]string, 0, len(changes))
	for k := range changes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := &recolumned{delKeys: map[string]bool{}}
	var added []arrow.RecordBatch
	replayedWins := p.w.strategy == MergeTheirs && side.replayedIsSource || p.w.strategy == MergeOurs && !side.replayedIsSource
	otherWins := p.w.strategy != "" && !replayedWins
	// a 'stop' merge stages the conflicting rows: with the target's rows
	// on the other side its row stays (addressable in its table); with
	// the target's changes replayed into the source's incarnation, the
	// target's version is staged as a pending row (RowConflict.StagedRow)
	// and ours/theirs swap
	stage := p.w.staging && p.w.strategy == ""
	oursReplayed := stage && !side.replayedIsSource
	var conflicts []string
	for _, k := range keys {
		c := changes[k]
		o := others[k]
		var mb, ms arrow.RecordBatch
		if c.b != nil {
			var bad string
			if mb, bad, err = l.mapRow(ctx, c.b); err != nil {
				return nil, false, err
			}
			if bad != "" {
				mb = nil // an unconvertible base value: compared as changed
			}
		}
		if c.s != nil {
			var bad string
			if ms, bad, err = l.mapRow(ctx, c.s); err != nil {
				return nil, false, err
			}
			if bad != "" {
				conflicts = append(conflicts, fmt.Sprintf("row %s: the value of column %q on %s does not convert to its type on %s",
					keyText(c.s, l.fromPK), bad, side.replayed, side.other))
				continue
			}
		}
		take := func() { // the replayed side's row wins
			if o != nil {
				out.delKeys[k] = true
			}
			if ms != nil {
				added = append(added, ms)
			}
		}
		var conflict string
		rc := RowConflict{Table: side.table, Base: mb, Ours: o, Theirs: ms, OursAddr: otherAddr[k], StagedRow: -1}
		if oursReplayed {
			rc.Ours, rc.Theirs, rc.OursAddr = ms, o, 0
		}
		// stageOurs stages the target's version of a conflicting row
		// replayed from the target: the other row goes, row (the
		// target's row or its per-column merge) is a pending insert
		stageOurs := func(row arrow.RecordBatch) {
			if o != nil {
				out.delKeys[k] = true
			}
			if row != nil {
				rc.StagedRow = len(added)
				added = append(added, row)
			}
		}
		switch {
		case c.b == nil: // added on the replayed side
			if o == nil {
				added = append(added, ms)
			} else if rowKey(o, 0, nil) != rowKey(ms, 0, nil) {
				conflict = "added on both branches with different values"
				rc.Columns = differing(o, ms)
				if oursReplayed {
					stageOurs(ms)
				}
			}
		case c.s == nil: // deleted on the replayed side
			if o == nil {
				break // deleted on both
			}
			if mb != nil && rowKey(o, 0, nil) == rowKey(mb, 0, nil) {
				out.delKeys[k] = true
			} else {
				conflict = fmt.Sprintf("deleted on %s but changed on %s", side.replayed, side.other)
				rc.Columns = allColumns(o)
				if oursReplayed {
					stageOurs(nil)
				}
			}
		default: // updated on the replayed side
			if o == nil {
				conflict = fmt.Sprintf("updated on %s but deleted on %s", side.replayed, side.other)
				rc.Columns = allColumns(ms)
				if oursReplayed {
					stageOurs(ms)
				}
				break
			}
			merged, cols, pos := l.mergeRow(c.b, c.s, mb, ms, o)
			if len(cols) > 0 {
				conflict = fmt.Sprintf("column %s set differently on both branches", strings.Join(cols, ", "))
				rc.Columns = pos
				if oursReplayed {
					// the per-column merge with the target's values where
					// both set a column
					stageOurs(withColumns(merged, ms, pos))
					break
				}
				if stage && rowKey(merged, 0, nil) != rowKey(o, 0, nil) {
					// staged as its per-column merge (the target's values
					// where both set a column)
					rc.StagedRow = len(added)
					out.delKeys[k] = true
					added = append(added, merged)
				}
				break
			}
			if rowKey(merged, 0, nil) != rowKey(o, 0, nil) {
				out.delKeys[k] = true
				added = append(added, merged)
			}
		}
		if conflict == "" {
			continue
		}
		switch {
		case replayedWins:
			take()
		case otherWins:
		case stage:
			p.rowConflicts = append(p.rowConflicts, rc)
		default:
			row := ms
			if row == nil {
				row = o
			}
			conflicts = append(conflicts, fmt.Sprintf("row %s: %s", keyText(row, l.toPK), conflict))
		}
	}
	if len(conflicts) > 0 {
		more := ""
		if len(conflicts) > 3 {
			more = fmt.Sprintf(" (and %d more rows)", len(conflicts)-3)
			conflicts = conflicts[:3]
		}
		p.conflict(side.table, "re-columned on %s while %s changed its rows: %s%s", side.rewriter, side.changer, strings.Join(conflicts, "; "), more)
		return nil, false, nil
	}
	if len(added) > 0 {
		rec, err := concatRecords(l.to, added)
		if err != nil {
			return nil, false, err
		}
		out.added = rec
	}
	return out, true, nil
}

// concatRecords concatenates one-schema records into one.
func concatRecords(s *arrow.Schema, recs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	arrs := make([]arrow.Array, len(s.Fields()))
	var n int64
	for _, r := range recs {
		n += r.NumRows()
	}
	for c := range arrs {
		parts := make([]arrow.Array, len(recs))
		for i, r := range recs {
			parts[i] = r.Column(c)
		}
		a, err := array.Concatenate(parts, memory.DefaultAllocator)
		if err != nil {
			for _, x := range arrs[:c] {
				x.Release()
			}
			return nil, err
		}
		arrs[c] = a
	}
	rec := array.NewRecordBatch(s, arrs, n)
	for _, a := range arrs {
		a.Release()
	}
	return rec, nil
}

// mergeRow merges a row updated on the replayed side (b → s, mapped mb,
// ms) with the other incarnation's row o, column by column: a column the
// replayed side changed takes its value unless the other side changed it
// too (to something else); columns only the other incarnation has keep
// its value. It returns the merged row and the names of conflicting
// columns.
func (l *colLine) mergeRow(b, s, mb, ms, o arrow.RecordBatch) (arrow.RecordBatch, []string, []int) {
	arrs := make([]arrow.Array, len(l.src))
	var bad []string
	var pos []int
	for j, sc := range l.src {
		arrs[j] = o.Column(j)
		if sc < 0 {
			continue
		}
		one := []int{sc}
		if rowKey(b, 0, one) == rowKey(s, 0, one) {
			continue // unchanged on the replayed side
		}
		mine := []int{j}
		ov, sv := rowKey(o, 0, mine), rowKey(ms, 0, mine)
		if ov == sv {
			continue
		}
		if mb != nil && ov == rowKey(mb, 0, mine) {
			arrs[j] = ms.Column(j)
			continue
		}
		bad = append(bad, fmt.Sprintf("%q", l.to.Field(j).Name))
		pos = append(pos, j)
	}
	return array.NewRecordBatch(l.to, arrs, 1), bad, pos
}

// withColumns is row r with the columns cols (positions) taken from w
// (both of one schema).
func withColumns(r, w arrow.RecordBatch, cols []int) arrow.RecordBatch {
	arrs := make([]arrow.Array, r.NumCols())
	for j := range arrs {
		arrs[j] = r.Column(j)
	}
	for _, j := range cols {
		arrs[j] = w.Column(j)
	}
	return array.NewRecordBatch(r.Schema(), arrs, 1)
}

// allColumns lists every column of a row (by position).
func allColumns(r arrow.RecordBatch) []int {
	out := make([]int, r.NumCols())
	for i := range out {
		out[i] = i
	}
	return out
}

// differing lists the columns (by position) whose values differ between
// two rows of one schema.
func differing(a, b arrow.RecordBatch) []int {
	var out []int
	for c := 0; c < int(a.NumCols()); c++ {
		if rowKey(a, 0, []int{c}) != rowKey(b, 0, []int{c}) {
			out = append(out, c)
		}
	}
	return out
}

// applyRecolumned writes rc onto the table onto (deleting its rows with
// rc's keys, adding rc's rows) as one staged Lance transaction.
func (p *mergePlan) applyRecolumned(ctx context.Context, onto graph.TableEntry, rc *recolumned) error {
	if len(rc.delKeys) == 0 && len(rc.delVals) == 0 && rc.added == nil {
		return nil
	}
	tds, err := p.w.g.openPin(ctx, pinOf(onto))
	if err != nil {
		return err
	}
	dels, err := valueDeletes(ctx, tds, rc, nil)
	if err != nil {
		return err
	}
	if len(rc.delKeys) > 0 {
		pk, err := colIndexes(tds.Schema(), onto.Def.PrimaryKey)
		if err != nil {
			return err
		}
		if err := forEachRow(ctx, tds, lance.ScanOptions{}, func(rec arrow.RecordBatch, i int, addr uint64) error {
			if rc.delKeys[rowKey(rec, i, pk)] {
				dels = append(dels, addr)
			}
			return nil
		}); err != nil {
			return err
		}
	}
	ops := &tableOps{deletes: dels}
	mr := &MergedRows{Deleted: dels}
	if rc.added != nil {
		if !rc.added.Schema().Equal(tds.Schema()) {
			return protocol.Errorf(protocol.KindInvalid, nil, "merged rows of %q do not match its schema", onto.Name)
		}
		ops.inserts = []Source{Batches(tds.Schema(), rc.added)}
		mr.Added = ops.inserts[0]
	}
	p.rows[onto.Key()] = mr
	if p.w.staging {
		return nil
	}
	return p.stageRows(ctx, onto, tds, ops)
}

// liveEntryWithID is the live table with stable id id in st.
func liveEntryWithID(st *graph.State, id uint64) (graph.TableEntry, bool) {
	for _, e := range st.Tables {
		if e.ID == id && e.State == graph.Live {
			return e, true
		}
	}
	return graph.TableEntry{}, false
}

// intoRecolumned merges the rows the source changed in its incarnation s
// (base sbE) into the incarnation t2 the target re-columned it into.
func (p *mergePlan) intoRecolumned(ctx context.Context, s, sbE, t2 graph.TableEntry) error {
	if !sameCatalog(s, sbE) {
		p.conflict(s.Name, "its definition changed on both branches: %s re-columned it (ALTER TABLE that rewrites rows, or TRUNCATE) while %s altered it (%s)",
			p.w.into, p.w.from, defChange(sbE, s))
		return nil
	}
	if p.w.rows != nil {
		return nil // publishing a staged merge: its rows are the session's
	}
	ods, err := p.w.g.openPin(ctx, pinOf(t2))
	if err != nil {
		return err
	}
	side := recolumnSide{table: t2.Name, replayed: p.w.from, other: p.w.into, replayedIsSource: true, rewriter: p.w.into, changer: p.w.from}
	rc, ok, err := p.mapDelta(ctx, side, pinOf(sbE), pinOf(s), s.Def, t2, ods)
	if err != nil || !ok {
		return err
	}
	return p.applyRecolumned(ctx, t2, rc)
}

// recolumnedOnSource finds the tables the source re-columned whose rows
// the target changed since its base, and merges the target's row delta
// into the source's incarnation (registered on the target by the
// classification, which applies the merged rows).
func (p *mergePlan) recolumnedOnSource(ctx context.Context, sb, tb *graph.Snapshot) error {
	for _, s := range p.source.State.Tables {
		if s.State == graph.Live {
			continue
		}
		k := s.Key()
		if p.both[k.ID] {
			continue
		}
		sbE, ok := sb.State.Table(k)
		if !ok || sbE.State != graph.Live {
			continue
		}
		t, ok := p.target.State.Table(k)
		if !ok || t.State != graph.Live {
			continue
		}
		tbE, ok := tb.State.Table(k)
		if !ok || tbE.State != graph.Live || samePin(t, tbE) || !sameCatalog(t, tbE) {
			continue // unchanged rows on the target, or a definition changed on both (a conflict)
		}
		s2, ok := liveEntryWithID(&p.source.State, k.ID)
		if !ok {
			continue
		}
		if _, ok := p.target.State.Table(s2.Key()); ok {
			continue
		}
		p.recolIDs[k.ID] = true
		if p.w.rows != nil {
			continue // publishing a staged merge: its rows are the session's
		}
		ods, err := p.w.g.openPin(ctx, pinOf(s2))
		if err != nil {
			return err
		}
		side := recolumnSide{table: s2.Name, replayed: p.w.into, other: p.w.from, replayedIsSource: false, rewriter: p.w.from, changer: p.w.into}
		rc, ok, err := p.mapDelta(ctx, side, pinOf(tbE), pinOf(t), t.Def, s2, ods)
		if err != nil {
			return err
		}
		if ok {
			p.recol[s2.Key()] = rc
		}
	}
	return nil
}

// defChange describes how a table's catalog entry changed from a to b,
// in SQL terms.
func defChange(a, b graph.TableEntry) string {
	var parts []string
	if a.Name != b.Name {
		parts = append(parts, fmt.Sprintf("renamed to %q", b.Name))
	}
	ids := map[uint64]graph.ColumnDef{}
	for _, c := range a.Def.Columns {
		ids[c.ID] = c
	}
	seen := map[uint64]bool{}
	for _, c := range b.Def.Columns {
		seen[c.ID] = true
		o, ok := ids[c.ID]
		switch {
		case !ok:
			parts = append(parts, fmt.Sprintf("column %q added", c.Name))
		case o.Name != c.Name:
			parts = append(parts, fmt.Sprintf("column %q renamed to %q", o.Name, c.Name))
		case o.Type != c.Type:
			parts = append(parts, fmt.Sprintf("column %q retyped", c.Name))
		case o.Nullable != c.Nullable:
			parts = append(parts, fmt.Sprintf("column %q nullability changed", c.Name))
		}
	}
	for _, c := range a.Def.Columns {
		if !seen[c.ID] {
			parts = append(parts, fmt.Sprintf("column %q dropped", c.Name))
		}
	}
	if string(a.Def.Extra) != string(b.Def.Extra) && len(parts) == 0 {
		parts = append(parts, "constraints, defaults or indexes changed")
	}
	if len(parts) == 0 {
		parts = append(parts, "definition changed")
	}
	return strings.Join(parts, ", ")
}
