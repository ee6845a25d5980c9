package planner

import (
	"bytes"
	"errors"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"weak"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/exec/lancesrc"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// Staged pending rows. A transaction's pending inserts (INSERT, COPY,
// the new images of UPDATE and MERGE) are Arrow records held in memory
// until COMMIT. Once the records a transaction holds in memory pass its
// spill threshold (stagedSpillBytes), every in-memory record of the
// transaction is written to the transaction's staged file and dropped
// from memory; a record is read back (and kept only as long as a reader
// holds it, or until the next garbage collection) when a statement or
// the COMMIT reads it. So a transaction far larger than memory commits,
// holding at most the threshold plus one statement's rows in memory.
//
// The staged file is scratch, like exec's spill files: created in
// exec.SpillDir and unlinked at once, never fsynced, never seen by
// another transaction or process (the COMMIT still writes the rows to
// the table's data files as it does for in-memory rows, so durability
// and visibility are unchanged). It occupies disk only while its
// descriptor is open: after ROLLBACK, COMMIT or a disconnect the
// descriptor is closed once nothing refers to the records (a garbage
// collection is started when a transaction that staged rows ends), and a
// crash or kill leaves nothing behind.
//
// Every pending insert record is a *pendingRecord, which stays the same
// object when it moves to disk: savepoint copies and the statement's
// before-image (statementDelta compares records by identity) share it,
// so none of them keeps the in-memory rows alive after the spill.

// maxPendingInMemory caps the pending rows a transaction holds in memory
// before it stages them; a session memory limit lowers it (a quarter of
// the limit, leaving the rest for the statement's own rows).
const maxPendingInMemory = 64 << 20

// stagedSpillBytes is a session's spill threshold.
func stagedSpillBytes(memLimit int64) int64 {
	if forceStagedSpill > 0 {
		return forceStagedSpill
	}
	if memLimit > 0 {
		return max(min(memLimit/4, maxPendingInMemory), 1)
	}
	return maxPendingInMemory
}

// forceStagedSpill, when positive, overrides every session's threshold
// (tests: a few rows stage).
var forceStagedSpill int64

// Process-wide accounting of pending rows (PendingRowStats).
var (
	pendingPeakInMemory atomic.Int64 // the most one transaction held in memory
	stagedBytesTotal    atomic.Int64 // encoded bytes ever written to staged files
	stagedFilesOpen     atomic.Int64 // staged files whose descriptor is open
	stagedBytesRead     atomic.Int64 // encoded bytes read back (tests: what a check reads)
)

// PendingRowStats reports the most pending-row bytes one transaction held
// in memory since the process started, the bytes ever written to staged
// files, and the staged files open now (tests and the soak read them).
func PendingRowStats() (peakInMemory, stagedBytes, filesOpen int64) {
	return pendingPeakInMemory.Load(), stagedBytesTotal.Load(), stagedFilesOpen.Load()
}

// ResetPendingRowPeak starts a new measurement of PendingRowStats' peak.
func ResetPendingRowPeak() { pendingPeakInMemory.Store(0) }

// notePendingBytes records a transaction's in-memory pending bytes in
// the process's peak.
func notePendingBytes(n int64) {
	for {
		p := pendingPeakInMemory.Load()
		if n <= p || pendingPeakInMemory.CompareAndSwap(p, n) {
			return
		}
	}
}

// stagedFile is one transaction's file of staged records, appended to
// and read at offsets (pread: readers need no lock).
type stagedFile struct {
	mu   sync.Mutex
	f    *os.File
	size int64
}

func newStagedFile() (*stagedFile, error) {
	f, err := os.CreateTemp(exec.SpillDir, "pggraph-pending-*")
	if err != nil {
		return nil, stagedError("create a temporary file", err)
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, stagedError("create a temporary file", err)
	}
	sf := &stagedFile{f: f}
	stagedFilesOpen.Add(1)
	// the descriptor lives as long as a record can be read from it
	runtime.AddCleanup(sf, func(f *os.File) {
		f.Close()
		stagedFilesOpen.Add(-1)
	}, f)
	return sf, nil
}

// stagedError is the SQLSTATE of a failed staged-file operation: 53100
// for a full disk, 58030 otherwise; no path (the file is a temporary).
func stagedError(op string, err error) error {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return wire.Errorf(pgerr.DiskFull, "could not %s for the transaction's pending rows: No space left on device", op).
			WithHint("Check free disk space in the temporary directory, or commit in smaller transactions.")
	}
	return wire.Errorf(wire.CodeIOError, "could not %s for the transaction's pending rows", op)
}

// append writes a record and returns where it is.
func (sf *stagedFile) append(rec arrow.RecordBatch) (off, n int64, err error) {
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(rec.Schema()))
	if err := w.Write(rec); err != nil {
		return 0, 0, stagedError("encode rows", err)
	}
	if err := w.Close(); err != nil {
		return 0, 0, stagedError("encode rows", err)
	}
	sf.mu.Lock()
	defer sf.mu.Unlock()
	off = sf.size
	if _, err := sf.f.WriteAt(buf.Bytes(), off); err != nil {
		return 0, 0, stagedError("write to a temporary file", err)
	}
	sf.size += int64(buf.Len())
	stagedBytesTotal.Add(int64(buf.Len()))
	return off, int64(buf.Len()), nil
}

// read decodes the record written at off.
func (sf *stagedFile) read(off, n int64) (arrow.RecordBatch, error) {
	buf := make([]byte, n)
	if _, err := sf.f.ReadAt(buf, off); err != nil {
		return nil, stagedError("read from a temporary file", err)
	}
	stagedBytesRead.Add(n)
	r, err := ipc.NewReader(bytes.NewReader(buf))
	if err != nil {
		return nil, stagedError("decode rows", err)
	}
	defer r.Release()
	if !r.Next() {
		if err := r.Err(); err != nil {
			return nil, stagedError("decode rows", err)
		}
		return nil, stagedError("decode rows", errors.New("no record"))
	}
	rec := r.RecordBatch()
	rec.Retain()
	return rec, nil
}

// pendingRecord is one pending insert record, in memory or staged. It
// implements arrow.RecordBatch, so every reader of pending inserts reads
// it as a record; a staged record is read back on demand, column by
// column (a key probe over the transaction's rows reads only the key
// column).
type pendingRecord struct {
	schema *arrow.Schema
	rows   int64
	mu     sync.Mutex
	mem    arrow.RecordBatch // nil once staged
	file   *stagedFile
	cols   []stagedColumn // where each column is, once staged
}

// stagedColumn is one column of a staged record: its place in the file,
// and the array read back while something still holds it (readers ask
// for a record's columns one at a time).
type stagedColumn struct {
	off, n int64
	cache  weak.Pointer[stagedLoad]
}

type stagedLoad struct{ arr arrow.Array }

func newPendingRecord(rec arrow.RecordBatch) *pendingRecord {
	return &pendingRecord{schema: rec.Schema(), rows: rec.NumRows(), mem: rec}
}

// stage moves the record to f; it reports the in-memory bytes freed.
func (r *pendingRecord) stage(f *stagedFile) (int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mem == nil {
		return 0, nil
	}
	cols := make([]stagedColumn, r.mem.NumCols())
	for i := range cols {
		one := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{r.schema.Field(i)}, nil), []arrow.Array{r.mem.Column(i)}, r.rows)
		off, n, err := f.append(one)
		if err != nil {
			return 0, err
		}
		cols[i] = stagedColumn{off: off, n: n}
	}
	freed := recordBytes(r.mem)
	r.file, r.cols, r.mem = f, cols, nil
	return freed, nil
}

// inMemory reports the record not staged.
func (r *pendingRecord) inMemory() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.mem != nil
}

// column is column i. A staged column that cannot be read back (an I/O
// error on the temporary file) panics with the 58030; the statement's
// recover turns it into an error reply.
func (r *pendingRecord) column(i int) arrow.Array {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mem != nil {
		return r.mem.Column(i)
	}
	c := &r.cols[i]
	if l := c.cache.Value(); l != nil {
		return l.arr
	}
	rec, err := r.file.read(c.off, c.n)
	if err != nil {
		panic(err)
	}
	l := &stagedLoad{arr: rec.Column(0)}
	c.cache = weak.Make(l)
	return l.arr
}

// load is the whole record.
func (r *pendingRecord) load() arrow.RecordBatch {
	r.mu.Lock()
	mem := r.mem
	r.mu.Unlock()
	if mem != nil {
		return mem
	}
	return array.NewRecordBatch(r.schema, r.Columns(), r.rows)
}

func (r *pendingRecord) MarshalJSON() ([]byte, error) { return r.load().MarshalJSON() }
func (r *pendingRecord) Release()                     {}
func (r *pendingRecord) Retain()                      {}
func (r *pendingRecord) Schema() *arrow.Schema        { return r.schema }
func (r *pendingRecord) NumRows() int64               { return r.rows }
func (r *pendingRecord) NumCols() int64               { return int64(r.schema.NumFields()) }
func (r *pendingRecord) Column(i int) arrow.Array     { return r.column(i) }
func (r *pendingRecord) ColumnName(i int) string      { return r.schema.Field(i).Name }
func (r *pendingRecord) Columns() []arrow.Array {
	cols := make([]arrow.Array, r.schema.NumFields())
	for i := range cols {
		cols[i] = r.column(i)
	}
	return cols
}
func (r *pendingRecord) SetColumn(i int, col arrow.Array) (arrow.RecordBatch, error) {
	return r.load().SetColumn(i, col)
}
func (r *pendingRecord) NewSlice(i, j int64) arrow.RecordBatch { return r.load().NewSlice(i, j) }

// execView is the record as exec reads it (execRecord) without reading
// a staged record: its vector (fixed-size list) columns are converted
// when read.
func (r *pendingRecord) execView() arrow.RecordBatch {
	for _, f := range r.schema.Fields() {
		if f.Type.ID() == arrow.FIXED_SIZE_LIST {
			r.mu.Lock()
			mem := r.mem
			r.mu.Unlock()
			if mem != nil {
				return lancesrc.ExecForm(mem)
			}
			return &execFormRecord{src: r, schema: execSchemaOf(r.schema)}
		}
	}
	return r
}

// execSchemaOf is the schema execRecord gives records of a storage
// schema: vector columns read as lists.
func execSchemaOf(s *arrow.Schema) *arrow.Schema {
	fields := append([]arrow.Field(nil), s.Fields()...)
	for i, f := range fields {
		if t, ok := f.Type.(*arrow.FixedSizeListType); ok {
			fields[i].Type = arrow.ListOfField(t.ElemField())
		}
	}
	return arrow.NewSchema(fields, nil)
}

// execFormRecord is a pending record converted to exec's form as its
// columns are read.
type execFormRecord struct {
	src    *pendingRecord
	schema *arrow.Schema
}

// column is column i of src in exec's form.
func (e *execFormRecord) column(i int) arrow.Array {
	a := e.src.column(i)
	if _, ok := a.(*array.FixedSizeList); !ok {
		return a
	}
	one := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{e.src.schema.Field(i)}, nil), []arrow.Array{a}, e.src.rows)
	return execRecord(one).Column(0)
}

func (e *execFormRecord) Columns() []arrow.Array {
	cols := make([]arrow.Array, e.schema.NumFields())
	for i := range cols {
		cols[i] = e.column(i)
	}
	return cols
}
func (e *execFormRecord) load() arrow.RecordBatch {
	return array.NewRecordBatch(e.schema, e.Columns(), e.src.rows)
}
func (e *execFormRecord) MarshalJSON() ([]byte, error)          { return e.load().MarshalJSON() }
func (e *execFormRecord) Release()                              {}
func (e *execFormRecord) Retain()                               {}
func (e *execFormRecord) Schema() *arrow.Schema                 { return e.schema }
func (e *execFormRecord) NumRows() int64                        { return e.src.rows }
func (e *execFormRecord) NumCols() int64                        { return int64(e.schema.NumFields()) }
func (e *execFormRecord) Column(i int) arrow.Array              { return e.column(i) }
func (e *execFormRecord) ColumnName(i int) string               { return e.schema.Field(i).Name }
func (e *execFormRecord) NewSlice(i, j int64) arrow.RecordBatch { return e.load().NewSlice(i, j) }
func (e *execFormRecord) SetColumn(i int, c arrow.Array) (arrow.RecordBatch, error) {
	return e.load().SetColumn(i, c)
}

// addInsert appends a new pending insert record of the table and
// accounts its bytes in the state.
func (s *pendingState) addInsert(p *pendingTable, rec arrow.RecordBatch) {
	p.inserts = append(p.inserts, newPendingRecord(rec))
	s.bytes += recordBytes(rec)
	notePendingBytes(s.bytes)
}

// spillOver stages every in-memory pending record once the state holds
// more than limit bytes of them.
func (s *pendingState) spillOver(limit int64) error {
	if s.bytes <= limit {
		return nil
	}
	if s.staged == nil {
		f, err := newStagedFile()
		if err != nil {
			return err
		}
		s.staged = f
	}
	for _, p := range s.tables {
		for _, rec := range p.inserts {
			pr, ok := rec.(*pendingRecord)
			if !ok {
				continue
			}
			if _, err := pr.stage(s.staged); err != nil {
				return err
			}
		}
	}
	// every record is staged now (a count copied from a savepoint may
	// still hold records staged since; it starts over here)
	s.bytes = 0
	return nil
}

// hasStaged reports staged records among a table's pending inserts.
func (p *pendingTable) hasStaged() bool {
	for _, rec := range p.inserts {
		if pr, ok := rec.(*pendingRecord); ok && !pr.inMemory() {
			return true
		}
	}
	return false
}

// endPending lets the pending state of a transaction that ended go: the
// plans bound to it (a prepared statement's, a literal shape's) would
// otherwise keep its records until they are bound again, and a staged
// file is closed by the garbage collection that finds its records
// unreachable (started here).
func (s *session) endPending(pend *pendingState) {
	for p := range s.pendBound {
		if p.gen != 0 {
			p.prep, p.gen = nil, 0
		}
	}
	s.pendBound = nil
	for _, sh := range s.shapes {
		if sh.gen != 0 {
			sh.prep, sh.gen = nil, 0
		}
	}
	if pend != nil && pend.staged != nil {
		go runtime.GC()
	}
}
