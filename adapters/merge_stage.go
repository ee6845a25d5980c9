package adapters

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/protocol"
)

// Staged merges (graph.merge with strategy 'stop'; docs/architecture.md,
// "Conflicts resolved in SQL"). A merge is split in two:
//
//   - StageMerge classifies the source against the target head exactly
//     as Merge does, but rows both sides changed (same primary key) are
//     not refused: the staged result holds the target's version of each
//     such row — for a row both sides updated, with the source's changes
//     to the columns only it changed applied (the per-column merge, the
//     target's values where both set a column) — and every one is
//     reported as a RowConflict with its base, target ("ours") and
//     source ("theirs") versions and its conflicting columns. Table-level
//     conflicts still refuse the merge (40001). Staging stages no Lance
//     transaction and publishes nothing, so it adds no crash window; the
//     one thing it writes is, for a table re-columned on both sides, the
//     merged incarnation as a new dataset (merge_recolumn_both.go: the
//     staged rows live there), unreferenced until PublishMerge registers
//     it, which cleanup reclaims when the merge is abandoned.
//   - PublishMerge publishes a staged merge with the caller's final rows
//     per table (the staged deltas as the session changed them while
//     resolving) as one merge commit: the same writer, effects, lineage
//     (merged parent = the source head captured at staging) and recovery
//     as Merge, one conditional __manifest commit. It is strict: prepared
//     against the target snapshot the merge was staged on, so any target
//     commit since fails it with 40001 (the session has answered its
//     client since). The merge checks see the final rows.

// RowConflict is one row both sides of a staged merge changed. Each
// version is a one-row record in the table's physical schema, nil where
// that side has no row (deleted, or never had it).
type RowConflict struct {
	Table              string
	Base, Ours, Theirs arrow.RecordBatch
	// OursAddr is the address of Ours in the target's table (valid when
	// Ours is set): the staged result keeps that row unless StagedRow
	// says otherwise.
	OursAddr uint64
	// Columns are the data columns (positions in the table's physical
	// schema) in conflict: both sides set them to different values; for
	// a row deleted on one side or added on both, those whose values
	// differ between the sides (all of them for a deletion).
	Columns []int
	// StagedRow is the position, among the rows the staged result adds
	// to the table (Result.Rows' Added), of the row staged for a row
	// both sides updated: its per-column merge, the source's changes to
	// the other columns applied to the target's row (which is among the
	// staged deletions). -1: the target's row (OursAddr) is kept as is.
	StagedRow int
}

// StagedMerge is a merge classified but not published.
type StagedMerge struct {
	From, Into string
	// Target and Source are the heads the merge was staged between.
	Target, Source *graph.Snapshot
	// Result is the staged merged graph: Result.Merged's catalog, and per
	// replayed table the rows deleted from and added to its pin.
	Result *MergeResult
	// Conflicts lists the rows both sides changed, by table and key.
	Conflicts []RowConflict
	// both are the incarnations staging wrote for tables re-columned on
	// both sides (by stable id), registered as they are by PublishMerge
	both map[uint64]graph.TableEntry
}

// StageMerge stages the merge of o.From into o.Into (see above);
// o.Strategy is ignored.
func (g *Graph) StageMerge(ctx context.Context, o MergeOptions) (*StagedMerge, error) {
	from, into, err := o.branches()
	if err != nil {
		return nil, err
	}
	target, err := g.Head(ctx, into)
	if err != nil {
		return nil, branchErr(into, err)
	}
	source, err := g.Head(ctx, from)
	if err != nil {
		return nil, branchErr(from, err)
	}
	w := &mergeWriter{g: g, from: from, into: into, staging: true, source: source,
		staged: map[string]map[graph.TableKey]*lance.Staged{}, plans: map[string]map[graph.TableKey]*tableOps{}}
	pw := &protocol.PreparedWrite{OperationID: "staging", Base: protocol.NewBaseView(target), Lineage: &protocol.LineageIntent{}}
	if err := w.Prepare(ctx, pw); err != nil {
		return nil, err
	}
	p := w.stagedPlan
	return &StagedMerge{From: from, Into: into, Target: target, Source: source, Result: p.result(), Conflicts: p.rowConflicts, both: p.bothEntries}, nil
}

// PublishMerge publishes sm with rows as each table's final row changes
// (keys of sm.Result.Merged; deletions are addresses at the table's pin
// there). o gives the message and attribution.
func (g *Graph) PublishMerge(ctx context.Context, sm *StagedMerge, rows map[graph.TableKey]*MergedRows, o MergeOptions) (*protocol.Receipt, error) {
	message := o.Message
	if message == "" {
		message = fmt.Sprintf("merge %s into %s", sm.From, sm.Into)
	}
	if rows == nil {
		rows = map[graph.TableKey]*MergedRows{}
	}
	w := &mergeWriter{g: g, from: sm.From, into: sm.Into, source: sm.Source, rows: rows, stagedBoth: sm.both,
		staged: map[string]map[graph.TableKey]*lance.Staged{}, plans: map[string]map[graph.TableKey]*tableOps{}}
	co := g.attribute(protocol.CommitOptions{Branch: sm.Into, Message: message, Strict: true, Base: sm.Target, CommitID: o.CommitID}, o.Actor, o.Application, o.Client)
	return g.commit(ctx, w, co)
}

// publishRows declares the session's final rows of a staged merge as the
// merge's effects (in place of the replays Merge computes).
func (p *mergePlan) publishRows(ctx context.Context) error {
	reg := map[graph.TableKey]graph.TableEntry{}
	for _, r := range p.pw.Delta.Registrations {
		reg[r.Key()] = r
	}
	keys := make([]graph.TableKey, 0, len(p.w.rows))
	for k := range p.w.rows {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	for _, k := range keys {
		mr := p.w.rows[k]
		ops := &tableOps{deletes: mr.Deleted}
		if mr.Added != nil {
			ops.inserts = []Source{mr.Added}
		}
		if len(ops.deletes) == 0 && len(ops.inserts) == 0 {
			continue
		}
		onto, ok := reg[k]
		if !ok {
			onto, ok = p.target.State.Table(k)
		}
		if !ok || onto.State != graph.Live {
			return protocol.Errorf(protocol.KindInvalid, nil, "table %s is not part of the merged graph", k)
		}
		tds, err := p.w.g.openPin(ctx, pinOf(onto))
		if err != nil {
			return err
		}
		p.rows[k] = mr
		if err := p.stageRows(ctx, onto, tds, ops); err != nil {
			return err
		}
	}
	return nil
}

// stagedRows is what stageConflicts stages for one table.
type stagedRows struct {
	kept  []uint64          // source rows still to insert
	dels  []uint64          // target rows replaced by staged per-column merges
	added arrow.RecordBatch // the staged per-column merges (nil: none)
	// conflicts of the table; StagedRow counts from the first staged
	// per-column merge (the caller adds the rows inserted before them)
	conflicts []RowConflict
}

// stageConflicts finds the rows of one table both sides changed (as
// resolveRows does), records each as a RowConflict with its three
// versions, and drops the conflicted keys from the source rows to
// replay. Where both sides agree (both deleted the row, or made it
// equal) there is no conflict. The staged result of a conflicting row
// is the target's row, except for a row both sides updated: that one is
// staged as its per-column merge (merge_columns.go) with the target's
// values in the columns both sides set differently, so the source's
// changes to the row's other columns are kept; the target's row is then
// replaced (its address in dels, the merged row in added).
func (p *mergePlan) stageConflicts(ctx context.Context, table string, old, cur, tds *lance.Dataset, want map[string]int, wantPK map[string]string,
	baseAddr map[string]uint64, kept []uint64, keptKeys []string, keyAddr map[string]uint64) (stagedRows, error) {
	conflicted := map[string]bool{}
	for k, n := range want {
		if n > 0 {
			conflicted[wantPK[k]] = true
		}
	}
	theirsAddr := map[string]uint64{}
	for i, k := range keptKeys {
		theirsAddr[k] = kept[i]
		if _, ok := keyAddr[k]; ok {
			conflicted[k] = true
		}
	}
	if len(conflicted) == 0 {
		return stagedRows{kept: kept}, nil
	}
	pick := func(m map[string]uint64) []uint64 {
		var out []uint64
		for k := range conflicted {
			if a, ok := m[k]; ok {
				out = append(out, a)
			}
		}
		slices.Sort(out)
		return out
	}
	base, err := rowsByAddr(ctx, old, pick(baseAddr))
	if err != nil {
		return stagedRows{}, err
	}
	ours, err := rowsByAddr(ctx, tds, pick(keyAddr))
	if err != nil {
		return stagedRows{}, err
	}
	theirs, err := rowsByAddr(ctx, cur, pick(theirsAddr))
	if err != nil {
		return stagedRows{}, err
	}
	keys := make([]string, 0, len(conflicted))
	for k := range conflicted {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// per-column merges line up columns by position: only where the
	// base's physical schema is the branches' (not re-columned since)
	perColumn := old.Schema().Equal(cur.Schema()) && tds.Schema().Equal(cur.Schema())
	var out stagedRows
	ncols := len(cur.Schema().Fields())
	cols := make([][]arrow.Array, ncols)
	for _, k := range keys {
		rc := RowConflict{Table: table, StagedRow: -1}
		if a, ok := baseAddr[k]; ok {
			rc.Base = base[a]
		}
		if a, ok := keyAddr[k]; ok {
			rc.Ours, rc.OursAddr = ours[a], a
		}
		if a, ok := theirsAddr[k]; ok {
			rc.Theirs = theirs[a]
		}
		if rc.Ours == nil && rc.Theirs == nil {
			continue // both deleted it
		}
		if rc.Ours != nil && rc.Theirs != nil && rowKey(rc.Ours, 0, dataCols(rc.Ours)) == rowKey(rc.Theirs, 0, dataCols(rc.Theirs)) {
			continue // both made it the same
		}
		var merged []arrow.Array
		rc.Columns, merged = conflictColumns(rc, perColumn)
		if merged != nil {
			rc.StagedRow = len(out.dels)
			out.dels = append(out.dels, rc.OursAddr)
			for c := range cols {
				cols[c] = append(cols[c], merged[c])
			}
		}
		out.conflicts = append(out.conflicts, rc)
	}
	for i, a := range kept {
		if !conflicted[keptKeys[i]] {
			out.kept = append(out.kept, a)
		}
	}
	if len(out.dels) > 0 {
		arrs := make([]arrow.Array, ncols)
		for c := range cols {
			a, err := array.Concatenate(cols[c], memory.DefaultAllocator)
			if err != nil {
				return stagedRows{}, err
			}
			arrs[c] = a
		}
		out.added = array.NewRecordBatch(cur.Schema(), arrs, int64(len(out.dels)))
	}
	return out, nil
}

// conflictColumns lists the data columns (by position) a row conflict
// is about, and for a row both sides updated (perColumn: the three
// versions' columns line up) its per-column merge when that differs from
// the target's row (nil: the target's row is the staged result). A
// column is in conflict when both sides set it to different values;
// for a row deleted on one side, or added on both, every column whose
// values differ between the sides is.
func conflictColumns(rc RowConflict, perColumn bool) ([]int, []arrow.Array) {
	var sides []arrow.RecordBatch
	for _, r := range []arrow.RecordBatch{rc.Ours, rc.Theirs} {
		if r != nil {
			sides = append(sides, r)
		}
	}
	n := len(dataCols(sides[0]))
	var out []int
	if rc.Ours == nil || rc.Theirs == nil {
		for c := range n {
			out = append(out, c)
		}
		return out, nil
	}
	if rc.Base == nil || !perColumn || len(dataCols(rc.Base)) != n || len(dataCols(rc.Theirs)) != n {
		for c := range n {
			one := []int{c}
			if rowKey(rc.Ours, 0, one) != rowKey(rc.Theirs, 0, one) {
				out = append(out, c)
			}
		}
		return out, nil
	}
	merged := make([]arrow.Array, n)
	fromTheirs := false
	for c := range n {
		one := []int{c}
		bv, ov, tv := rowKey(rc.Base, 0, one), rowKey(rc.Ours, 0, one), rowKey(rc.Theirs, 0, one)
		switch {
		case tv == bv || tv == ov:
			merged[c] = rc.Ours.Column(c)
		case ov == bv:
			merged[c], fromTheirs = rc.Theirs.Column(c), true
		default: // both set it, differently: the target's value is staged
			out = append(out, c)
			merged[c] = rc.Ours.Column(c)
		}
	}
	if !fromTheirs {
		return out, nil
	}
	return out, merged
}

// rowsByAddr reads the rows at addrs (ascending) of ds as one-row
// records (data columns only).
func rowsByAddr(ctx context.Context, ds *lance.Dataset, addrs []uint64) (map[uint64]arrow.RecordBatch, error) {
	out := map[uint64]arrow.RecordBatch{}
	if len(addrs) == 0 {
		return out, nil
	}
	err := forEachRow(ctx, ds, lanceScan(addrs), func(rec arrow.RecordBatch, i int, addr uint64) error {
		cols := dataCols(rec)
		fields := make([]arrow.Field, len(cols))
		arrs := make([]arrow.Array, len(cols))
		for j, c := range cols {
			fields[j] = rec.Schema().Field(c)
			arrs[j] = array.NewSlice(rec.Column(c), int64(i), int64(i+1))
		}
		out[addr] = array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, 1)
		for _, a := range arrs {
			a.Release()
		}
		return nil
	})
	return out, err
}
