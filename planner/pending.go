package planner

import (
	"fmt"
	"maps"
	"slices"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/exec/lancesrc"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/planner/ddl"
	"github.com/pggraph/pggraph/wire"
)

// pendingAddrBit marks the address of a pending (uncommitted) insert, as
// exec.WithOverlay numbers them: top bit | position among the pending
// inserts of the table.
const pendingAddrBit = uint64(1) << 63

// pendingTable is one table's uncommitted changes against the pinned
// snapshot: rows to insert (Arrow records in table column order, with
// the table's Arrow schema) and base rows to delete (by row address).
// Records are never mutated once added, so a savepoint copy shares them.
type pendingTable struct {
	mode    int             // modeRows, modeCreated, modeReplaced, modeTruncated
	def     *graph.TableDef // modeReplaced: the new definition
	flushed bool            // rows went with the table's ReplaceTable
	schema  *arrow.Schema
	cols    []exec.ColumnDef
	inserts []arrow.RecordBatch
	deleted *addrBits // base rows deleted (addrset.go)
	// followed holds the positions of pending rows followed across
	// statements, by handle (pending_follow.go)
	followed []uint64
}

func (p *pendingTable) clone() *pendingTable {
	c := *p
	c.inserts = append([]arrow.RecordBatch(nil), p.inserts...)
	c.deleted = p.deleted.clone()
	c.followed = slices.Clone(p.followed)
	return &c
}

func (p *pendingTable) empty() bool {
	return p.mode == modeRows && len(p.inserts) == 0 && p.deleted.len() == 0
}

// remove drops rows by address: base rows join the delete set, pending
// rows are cut out of the insert records (later pending addresses shift:
// addresses are only used within one statement; rows followed across
// statements keep their handles, pending_follow.go). It
// reports the bytes of the records it built in memory for the rows kept
// (a staged record cut is read back and its rest kept in memory).
func (p *pendingTable) remove(addrs []uint64) (int64, error) {
	drop := &addrBits{}
	for _, a := range addrs {
		if a&pendingAddrBit != 0 {
			drop.add(a &^ pendingAddrBit)
			continue
		}
		if p.deleted == nil {
			p.deleted = &addrBits{}
		}
		p.deleted.add(a)
	}
	if drop.len() == 0 {
		return 0, nil
	}
	var seq uint64
	var built int64
	var kept []arrow.RecordBatch
	for _, rec := range p.inserts {
		var keep []int32
		for i := 0; i < int(rec.NumRows()); i++ {
			if !drop.has(seq) {
				keep = append(keep, int32(i))
			}
			seq++
		}
		switch {
		case len(keep) == int(rec.NumRows()):
			kept = append(kept, rec)
		case len(keep) > 0:
			r, err := gatherRecord(rec, p.cols, p.schema, keep)
			if err != nil {
				return 0, err
			}
			built += recordBytes(r)
			kept = append(kept, newPendingRecord(r))
		}
	}
	p.inserts = kept
	p.shiftFollowed(drop)
	return built, nil
}

// overlay is the exec view of the pending changes.
func (p *pendingTable) overlay() *exec.Overlay {
	ins := make([]arrow.RecordBatch, len(p.inserts))
	for i, rec := range p.inserts {
		ins[i] = execRecord(rec)
	}
	ov := &exec.Overlay{Inserts: ins}
	if p.deleted.len() > 0 {
		del := p.deleted
		ov.Deleted = del.has
	}
	return ov
}

// gatherRecord keeps the rows idx of rec.
func gatherRecord(rec arrow.RecordBatch, cols []exec.ColumnDef, schema *arrow.Schema, idx []int32) (arrow.RecordBatch, error) {
	vecs := make([]*exec.Vec, len(cols))
	rec = execRecord(rec)
	for c := range cols {
		v, err := exec.VecFromArrow(rec.Column(c), cols[c].Type)
		if err != nil {
			return nil, err
		}
		vecs[c] = v.Gather(idx)
	}
	return recordFromVecs(schema, cols, vecs)
}

// recordFromVecs builds a record with the table's Arrow schema from
// column vectors in table order. A value the storage type cannot hold
// (numeric overflow, a vector of the wrong dimension) is an error.
func recordFromVecs(schema *arrow.Schema, cols []exec.ColumnDef, vecs []*exec.Vec) (arrow.RecordBatch, error) {
	rec := exec.MemTableFromVecs(cols, vecs).Records[0]
	arrs := make([]arrow.Array, rec.NumCols())
	copy(arrs, rec.Columns())
	for i, f := range schema.Fields() {
		if i < len(arrs) && !arrow.TypeEqual(arrs[i].DataType(), f.Type) {
			a, err := storageArray(vecs[i], f.Type, arrs[i])
			if err != nil {
				return nil, err
			}
			arrs[i] = a
		}
	}
	return array.NewRecordBatch(schema, arrs, rec.NumRows()), nil
}

// pendingState is everything a transaction has done but not committed.
type pendingState struct {
	ddl     []ddl.Change // planned DDL, in order
	overlay *ddl.Overlay // catalog with ddl applied (nil: rebuild by replay)
	// derived is the exec catalog with ddl applied (cache)
	derived     *catalog
	derivedGen  uint64
	derivedFrom *catalog
	tables      map[string]*pendingTable // by table name
	reads       map[string]bool          // every table read, probed or written
	locks       map[string]bool          // FOR UPDATE/SHARE tables (also in reads)
	// since holds each table's pin when the transaction first read or
	// wrote it (row-level arbitration starts there: writeset.go); at is
	// the snapshot the running statement reads (set by newView).
	since map[string]graph.TableEntry
	at    *catalog
	// readLog ties each table read to the logs of the statements that
	// read it, and stmtLog is the running statement's log (SERIALIZABLE
	// transactions only: readset.go)
	readLog map[string]*tableReads
	stmtLog *lancesrc.ReadLog
	gen     uint64 // bumped on every change (catalog cache key)
	// bytes is the size of the pending insert records held in memory
	// (memory limit, spill threshold); staged records are not counted
	bytes int64
	// staged is the transaction's file of staged records (nil until its
	// first spill; pending_staged.go), shared with its copies
	staged *stagedFile
	// merge is the merge staged in the transaction (merge_stage.go)
	merge *stagedMerge
}

// newPendingState is an empty pending state. Its maps are made on first
// write (markRead, markLock, setTable): most transactions wire opens are
// one statement's implicit ones that read a table and write nothing.
func newPendingState() *pendingState { return &pendingState{} }

// markRead adds a table to the read set.
func (s *pendingState) markRead(name string) {
	if s.reads == nil {
		s.reads = map[string]bool{}
	}
	s.reads[name] = true
	s.noteRead(name)
	if _, ok := s.since[name]; !ok && s.at != nil {
		if ti, ok := s.at.tables[name]; ok {
			if s.since == nil {
				s.since = map[string]graph.TableEntry{}
			}
			s.since[name] = ti.entry
		}
	}
}

// markLock records a FOR UPDATE/SHARE table.
func (s *pendingState) markLock(name string) {
	if s.locks == nil {
		s.locks = map[string]bool{}
	}
	s.locks[name] = true
}

// setTable records a table's pending changes.
func (s *pendingState) setTable(name string, p *pendingTable) {
	if s.tables == nil {
		s.tables = map[string]*pendingTable{}
	}
	s.tables[name] = p
}

func (s *pendingState) clone() *pendingState {
	c := &pendingState{tables: make(map[string]*pendingTable, len(s.tables)), reads: maps.Clone(s.reads), locks: maps.Clone(s.locks), since: maps.Clone(s.since), at: s.at, gen: s.gen, bytes: s.bytes, staged: s.staged,
		ddl: slices.Clone(s.ddl), readLog: cloneReadLog(s.readLog), stmtLog: s.stmtLog}
	if s.merge != nil {
		c.merge = s.merge.clone()
	}
	for k, v := range s.tables {
		c.tables[k] = v.clone()
	}
	return c
}

// table returns (creating) the pending changes of a table.
func (s *pendingState) table(td *exec.TableDef, schema *arrow.Schema) *pendingTable {
	p := s.tables[td.Name]
	if p == nil {
		p = &pendingTable{schema: schema, cols: td.Columns}
		s.setTable(td.Name, p)
	}
	if p.schema == nil {
		p.schema, p.cols = schema, td.Columns
	}
	return p
}

// genCounter numbers pending states process-wide, so a prepared
// statement bound to one pending state is never reused for another.
var genCounter atomic.Uint64

// bump marks a change of the pending state.
func (s *pendingState) bump() { s.gen = genCounter.Add(1) }

// changed reports pending row or definition changes of a table.
func (s *pendingState) changed(table string) bool {
	if p, ok := s.tables[table]; ok && !p.empty() {
		return true
	}
	for _, ch := range s.ddl {
		switch c := ch.(type) {
		case *ddl.CreateTable:
			if c.Name == table {
				return true
			}
		case *ddl.AlterTable:
			if c.Name == table || c.NewName == table {
				return true
			}
		}
	}
	return false
}

// hasModes reports tables created, rewritten or truncated.
func (s *pendingState) hasModes() bool {
	for _, p := range s.tables {
		if p.mode != modeRows {
			return true
		}
	}
	return false
}

// rowLevel reports a pending state of row changes only (no DDL, no
// created, truncated or rewritten table): it commits with row-level
// arbitration (writeset.go).
func (s *pendingState) rowLevel() bool {
	return len(s.ddl) == 0 && !s.hasModes() && s.merge == nil
}

func (s *pendingState) hasWrites() bool {
	if len(s.ddl) > 0 || s.merge != nil {
		return true
	}
	for _, p := range s.tables {
		if !p.empty() {
			return true
		}
	}
	return false
}

// recordBytes is the size of a record's buffers.
func recordBytes(rec arrow.RecordBatch) int64 {
	var n int64
	var add func(d arrow.ArrayData)
	add = func(d arrow.ArrayData) {
		for _, b := range d.Buffers() {
			if b != nil {
				n += int64(b.Len())
			}
		}
		for _, c := range d.Children() {
			add(c)
		}
	}
	for _, c := range rec.Columns() {
		add(c.Data())
	}
	return n
}

// checkPendingBudget fails with 53200 when the transaction's pending
// rows held in memory plus the rows a statement is about to add (adding,
// in bytes) pass the session's memory limit. A statement's rows are
// counted as they arrive, so an INSERT … SELECT stops before it holds
// more than the limit rather than after building everything. The
// transaction's earlier rows are staged to disk past a quarter of the
// limit (pending_staged.go), so in practice this bounds one statement.
func (w *writer) checkPendingBudget(adding int64) error {
	lim := w.s.memLimit
	if lim <= 0 || w.v.pend.bytes+adding <= lim {
		return nil
	}
	detail := fmt.Sprintf("the statement's new rows and the transaction's pending rows held in memory exceed the session memory limit (%d bytes)", lim)
	hint := "Write fewer rows per statement (a transaction's earlier rows are staged to disk), or use COPY (it stages as it reads)."
	if w.heldWhy != "" {
		// the statement is one that cannot stream its rows (chunked_writes.go)
		detail = fmt.Sprintf("the statement holds all its new rows in memory because %s; with the transaction's pending rows held in memory they exceed the session memory limit (%d bytes)", w.heldWhy, lim)
		hint = w.heldHint + ". A transaction's earlier rows are staged to disk, so several smaller statements in one transaction commit together; --query-memory raises the limit."
	}
	return wire.Errorf(pgerr.OutOfMemory, "out of memory").WithDetail(detail).WithHint(hint)
}
