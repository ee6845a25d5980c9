package planner

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/internal/sqlparse"
)

// Chunked writes. A big INSERT … SELECT or UPDATE joins the pending
// state chunk by chunk as the query computing its rows streams (a chunk
// is the staging threshold, stagedSpillBytes): each chunk is checked
// against the table and the chunks before it, then added like any
// pending rows, which are staged to disk past the threshold
// (pending_staged.go). So one statement holds one chunk of its new rows
// in memory, not all of them.
//
// The query runs against a snapshot of the pending state taken when the
// statement starts (view.snapshot): it reads the rows as they were before
// the statement, as PostgreSQL's statement snapshot does, whatever path
// reaches the target (a self-join, a view, a CTE, a subquery, another
// schema's table of the same name) and never the chunks added meanwhile.
// The checks of each chunk read the live state.

// snapshot is a view of the pending state as it is now, with the same
// catalog and statement-local relations: later changes of v's pending
// state (the chunks a statement adds) do not reach it.
func (v *view) snapshot() *view {
	pend := v.pend
	if pend != nil {
		pend = pend.clone()
	}
	return &view{root: v.root, base: v.base, pend: pend, extra: v.extra, memo: map[string]*exec.TableDef{}}
}

// updateChunked reports an UPDATE whose new rows may join the pending
// state chunk by chunk without a client seeing a difference:
//   - it assigns no column of a unique key (the key of a row's new
//     version is its old one, removed in the same chunk; an assigned key
//     checked chunk by chunk could collide with a row a later chunk
//     changes) and none another table's foreign key references (no
//     referential action, which would run per chunk);
//   - its RETURNING, unless the updating query computes it (retInQuery:
//     with FROM, over the statement's snapshot), holds no subquery: it is
//     evaluated over each chunk's new rows after they joined the pending
//     state, so a subquery reading the target would see the earlier
//     chunks only. RETURNING rows are held by holdReturning, which
//     spills them to disk.
//
// The target's own pending rows are changed too (updateChunks).
func (w *writer) updateChunked(ti *tableInfo, up *sqlparse.UpdateStmt, assigned map[int]bool, retInQuery bool) bool {
	if w.describe {
		return false
	}
	if !retInQuery && listHasSubquery(up.ReturningList) {
		return w.heldBecause("its RETURNING has a subquery", "Update fewer rows per statement (a narrower WHERE, for example a key range), or return the subquery's value from a separate query")
	}
	if p := w.v.pend.tables[ti.def.Name]; p != nil && p.mode != modeRows {
		return w.heldBecause("its table was created, truncated or altered in this transaction", "Commit the transaction's schema change first")
	}
	w.assigned, w.assignedTable = assigned, ti.def.Name
	defer func() { w.assigned = nil }()
	for _, uk := range uniqueKeys(ti.def) {
		if !w.keepsAll(ti.def, uk.cols) {
			return w.heldBecause("it assigns a column of unique key \""+uk.name+"\"", "Update fewer rows per statement (a narrower WHERE, for example a key range)")
		}
	}
	if !w.keepsReferenced(ti) {
		return w.heldBecause("it assigns a column another table's foreign key references", "Update fewer rows per statement (a narrower WHERE, for example a key range)")
	}
	return true
}

// listHasSubquery reports a list of parse trees (a RETURNING list)
// holding a subquery.
func listHasSubquery(list []*sqlparse.Node) bool {
	for _, n := range list {
		if hasSubquery(n) {
			return true
		}
	}
	return false
}

// heldBecause records why the running statement holds all its new rows
// in memory (checkPendingBudget names it in its 53200) and reports the
// statement not chunked.
func (w *writer) heldBecause(why, hint string) bool {
	w.heldWhy, w.heldHint = why, hint
	return false
}

// updateChunks is the state of a chunked UPDATE across its chunks. The
// old versions of the target's base rows join the pending delete set
// with their chunk. Its pending rows (the transaction's own inserts) are
// addressed by their position among the pending inserts of the
// snapshot; removing them would shift the positions of the rest, so
// their old versions are removed once, after the last chunk (the new
// chunks are appended after them, so those positions hold until then).
// Meanwhile both versions are pending, which only the chunks' checks
// see, and they skip the keys an UPDATE leaves alone.
type updateChunks struct {
	pending addrBits // snapshot positions of the pending rows updated
}

// split returns a chunk's base-row addresses (removed with the chunk)
// and records its pending-row addresses for the end.
func (u *updateChunks) split(addrs []uint64) []uint64 {
	base := addrs[:0:0]
	for _, a := range addrs {
		if a&pendingAddrBit != 0 {
			u.pending.add(a &^ pendingAddrBit)
			continue
		}
		base = append(base, a)
	}
	return base
}

// finish removes the old versions of the pending rows updated.
func (u *updateChunks) finish(w *writer, ti *tableInfo) error {
	if u.pending.len() == 0 {
		return nil
	}
	addrs := make([]uint64, 0, u.pending.len())
	for a := range u.pending.all() {
		addrs = append(addrs, a|pendingAddrBit)
	}
	return w.apply(ti, addrs, nil)
}

// notUpdatedYet drops the rows of a chunk that an earlier chunk already
// changed (a join matched them again: PostgreSQL updates a row once).
// Those base rows are in the target's pending delete set now (the rows
// deleted before the statement are not in its snapshot, so they never
// reach here), the pending ones in u.pending.
func (u *updateChunks) notUpdatedYet(w *writer, ti *tableInfo, rows []*exec.Vec) []*exec.Vec {
	p := w.v.pend.tables[ti.def.Name]
	if len(rows) == 0 || ((p == nil || p.deleted.len() == 0) && u.pending.len() == 0) {
		return rows
	}
	av := rows[0]
	keep := make([]int32, 0, av.N)
	for i := 0; i < av.N; i++ {
		if av.IsNull(i) {
			keep = append(keep, int32(i))
			continue
		}
		a := uint64(av.I[i])
		done := p != nil && p.deleted.has(a)
		if a&pendingAddrBit != 0 {
			done = u.pending.has(a &^ pendingAddrBit)
		}
		if !done {
			keep = append(keep, int32(i))
		}
	}
	if len(keep) == av.N {
		return rows
	}
	return gatherVecs(rows, keep)
}

// deleteChunked reports a DELETE whose rows may leave the table chunk by
// chunk as the query finding them streams (refCols: the target's
// columns another table's foreign keys reference):
//   - no other table references the target (no referential action or
//     check per chunk: a self-reference deleted in a later chunk would
//     fail an earlier chunk's check);
//   - its table was not created, truncated or altered in this
//     transaction.
//
// Its RETURNING is computed by the query over the statement's snapshot
// (old values, USING relations), so it never changes the outcome; its
// rows are held by holdReturning, which spills them to disk. Row
// triggers hold the statement (the caller).
func (w *writer) deleteChunked(ti *tableInfo, refCols []int) bool {
	if w.describe {
		return false
	}
	if p := w.v.pend.tables[ti.def.Name]; p != nil && p.mode != modeRows {
		return w.heldBecause("its table was created, truncated or altered in this transaction", "Commit the transaction's schema change first")
	}
	if len(refCols) > 0 {
		return w.heldBecause("another table's foreign key references its table", "Delete fewer rows per statement (a narrower WHERE, for example a key range)")
	}
	return true
}

// deleteChunks runs a DELETE chunk by chunk (deleteChunked): each chunk's
// base rows join the pending delete set with it; the transaction's own
// pending rows it deletes are removed after the last chunk, as a chunked
// UPDATE's (updateChunks), and a row a join matched again in a later
// chunk is deleted once. query yields each row's address, refs
// referenced-key columns (none here) and the RETURNING values.
func (w *writer) deleteChunks(ti *tableInfo, del *sqlparse.DeleteStmt, query *sqlparse.Node, refs int) (*writeOut, error) {
	chunks := &updateChunks{}
	out := &writeOut{}
	n := 0
	first := true
	var bodyErr error
	err := w.queryChunksOf("", query, stagedSpillBytes(w.s.memLimit), func(rows []*exec.Vec, ecols []exec.Column) error {
		if !first {
			deleteChunksAfterFirst.Add(1)
		}
		first = false
		rows = chunks.notUpdatedYet(w, ti, rows)
		addrs, idx := firstPerAddr(rows[0])
		n += len(addrs)
		if err := w.apply(ti, chunks.split(addrs), nil); err != nil {
			bodyErr = err
			return err
		}
		if len(del.ReturningList) == 0 {
			return nil
		}
		out.cols = columns(ecols[1+refs:])
		bodyErr = w.holdReturning(out, gatherVecs(rows[1+refs:], idx))
		return bodyErr
	})
	if err != nil {
		if bodyErr != nil {
			return nil, bodyErr
		}
		return nil, err
	}
	if err := chunks.finish(w, ti); err != nil {
		return nil, err
	}
	if err := w.fireStatement(ti, "DELETE", false); err != nil {
		return nil, err
	}
	out.tag = fmt.Sprintf("DELETE %d", n)
	return out, nil
}

// deleteChunksAfterFirst counts the chunks DELETE statements removed
// after their first (tests: the chunked path ran).
var deleteChunksAfterFirst atomic.Int64

// mergeChunked reports a MERGE whose actions may join the pending state
// chunk by chunk without a client seeing a difference (assigned: the
// columns its UPDATE clauses assign; cmds: its clauses' actions):
//   - its updates assign no column of a unique key and none another
//     table's foreign key references, as a chunked UPDATE's;
//   - it does not both delete and insert rows of a table with a unique
//     key (an insert checked before a later chunk's delete of the same
//     key would collide), and deletes no row another table references
//     (no referential action per chunk);
//   - the target has no pending inserts before the statement (each chunk
//     checks its new rows' keys in full against the table with the rows
//     it changes removed, which for pending rows would shift the
//     addresses of the rest);
//   - its RETURNING holds no subquery (it is evaluated over each chunk's
//     rows after they joined the pending state, as an UPDATE's); its
//     rows are held by holdReturning, which spills them to disk.
//
// A row matched again in a later chunk is found in the target's pending
// delete set (21000, as within a chunk).
func (w *writer) mergeChunked(ti *tableInfo, m *sqlparse.MergeStmt, assigned map[int]bool, cmds map[sqlparse.CmdType]bool) bool {
	if w.describe {
		return false
	}
	const split = "Merge fewer rows per statement (restrict the source, for example to a key range)"
	if listHasSubquery(m.ReturningList) {
		return w.heldBecause("its RETURNING has a subquery", split+", or return the subquery's value from a separate query")
	}
	if p := w.v.pend.tables[ti.def.Name]; p != nil && (p.mode != modeRows || len(p.inserts) > 0) {
		return w.heldBecause("its target has rows inserted or changed earlier in this transaction", split+", or commit the transaction's earlier changes of the target first")
	}
	keys := uniqueKeys(ti.def)
	if cmds[sqlparse.CmdType_CMD_DELETE] && cmds[sqlparse.CmdType_CMD_INSERT] && len(keys) > 0 {
		return w.heldBecause("it both deletes and inserts rows of a table with a unique key", split+", or run the DELETE and INSERT actions as separate statements")
	}
	if cmds[sqlparse.CmdType_CMD_DELETE] && len(w.referencedCols(ti.def.Name)) > 0 {
		return w.heldBecause("it deletes rows of a table another table's foreign key references", split)
	}
	w.assigned, w.assignedTable = assigned, ti.def.Name
	defer func() { w.assigned = nil }()
	for _, uk := range keys {
		if !w.keepsAll(ti.def, uk.cols) {
			return w.heldBecause("its UPDATE assigns a column of unique key \""+uk.name+"\"", split)
		}
	}
	if !w.keepsReferenced(ti) {
		return w.heldBecause("its UPDATE assigns a column another table's foreign key references", split)
	}
	return true
}

// mergeChunksAfterFirst counts the chunks MERGE statements added after
// their first (tests: the chunked path ran).
var mergeChunksAfterFirst atomic.Int64

// updateChunksAfterFirst counts the chunks UPDATE statements added after
// their first (tests: the chunked path ran).
var updateChunksAfterFirst atomic.Int64

// holdReturning keeps a chunk's RETURNING rows (column vectors) until
// the statement ends (the client gets them with its command tag, as
// PostgreSQL sends a RETURNING statement's rows from a tuplestore once
// it completed). A chunked statement holds one chunk of new rows but
// every row it returns: past the staging threshold (a quarter of the
// session memory limit, at most 64 MB) the rows go to a spill file
// (exec.SpillFile, in --temp-dir) and are read back as the client is
// sent them (spilledResult), so a RETURNING of any size is bounded by
// disk, not memory.
func (w *writer) holdReturning(out *writeOut, vecs []*exec.Vec) error {
	if len(vecs) == 0 || vecs[0].N == 0 {
		return nil
	}
	b := &exec.Batch{N: vecs[0].N, Cols: vecs}
	size := exec.BatchBytes(b)
	if out.cc == nil {
		out.cc = &cellCodec{m: pgtype.NewMap(), loc: w.s.location(), style: w.s.dateStyle()}
	}
	if out.spill == nil && out.held+size <= stagedSpillBytes(w.s.memLimit) {
		out.held += size
		for i := 0; i < b.N; i++ {
			out.rows = append(out.rows, out.cc.row(vecs, i))
		}
		return nil
	}
	if out.spill == nil {
		f, err := exec.NewSpillFile()
		if err != nil {
			return err
		}
		out.spill = f // closed by the result, else its descriptor by the GC
	}
	returningChunksSpilled.Add(1)
	return out.spill.Write(b)
}

// returningChunksSpilled counts the RETURNING chunks written to spill
// files (tests: the spilled path ran).
var returningChunksSpilled atomic.Int64

// spilledResult is a RETURNING result whose later rows are in a spill
// file: the rows held in memory first, then the file's batches, each
// converted as the client is sent it.
type spilledResult struct {
	rowsResult
	spill   *exec.SpillFile
	cc      *cellCodec
	rewound bool
	b       *exec.Batch
	bi      int
}

func (r *spilledResult) Next(ctx context.Context) ([]any, bool, error) {
	if row, ok, err := r.rowsResult.Next(ctx); ok || err != nil {
		return row, ok, err
	}
	if !r.rewound {
		r.rewound = true
		if err := r.spill.Rewind(); err != nil {
			return nil, false, err
		}
	}
	for r.b == nil || r.bi >= r.b.N {
		b, err := r.spill.Read()
		if err != nil {
			return nil, false, err
		}
		if b == nil {
			return nil, false, nil
		}
		r.b, r.bi = b, 0
	}
	r.bi++
	return r.cc.row(r.b.Cols, r.bi-1), true, nil
}

func (r *spilledResult) Close() error {
	r.spill.Close()
	return nil
}
