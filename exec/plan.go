package exec

import (
	"context"
	"errors"
	"github.com/pggraph/pggraph/access"
	"time"
)

// batchSize is the row count of batches produced by scans and buffers.
const batchSize = 1024

// colInfo is one output column of a plan.
type colInfo struct {
	name     string
	t        Type
	tableOID uint32
	attnum   int16
	// arrayOf is the array type of a domain a plain column of that type
	// or a cast to it has: RowDescription names it (domains.go)
	arrayOf uint32
}

// plan is a physical operator. run pushes batches to emit; emit returning
// errStop ends the producer early without error (LIMIT).
type plan interface {
	columns() []colInfo
	run(ec *evalCtx, emit func(*Batch) error) error
}

var errStop = errors.New("exec: stop")

// runCtx is the state of one statement execution.
type runCtx struct {
	ctx          context.Context
	budget       *memBudget
	loc          *time.Location
	style        DateStyle // DateStyle, IntervalStyle
	recursion    int       // WITH RECURSIVE iteration cap
	user         string
	sessionUser  string
	rolesFn      func() *access.Catalog
	roles        *access.Catalog // roleCatalog(): read on first use
	database     string
	pid          int32
	settings     func(name string) (string, bool)
	materialized map[int]*Batch
	working      map[int]*Batch
	now          time.Time
	hashed       map[int]*hashedSet         // uncorrelated IN-subquery sets
	joinStats    map[*joinNode]*nodeStats   // EXPLAIN ANALYZE: the join methods used
	reuse        map[*joinNode]*joinTable   // hash tables kept across a recursion's iterations (recursive_reuse.go)
	prebuilt     map[*joinNode]prebuiltJoin // join builds a spilled pipeline handed to the serial run (parallel_spill.go)

	// the session's dependencies (Session.Sequences, Advisory, Signal,
	// RowLocks); nil when the session lends none
	seqs     SequenceFunctions
	advisory *AdvisorySession
	signal   SignalBackend
	rowLocks func() []RowLockHold
}

// vecBytes estimates the memory a vector holds.
func vecBytes(v *Vec) int64 {
	n := int64(v.N) * 8
	if v.Nulls != nil {
		n += int64(v.N)
	}
	for _, s := range v.S {
		n += int64(len(s)) + 16
	}
	n += int64(len(v.D)) * 48
	n += int64(len(v.A)) * 64
	return n
}

func batchBytes(b *Batch) int64 {
	var n int64
	for _, c := range b.Cols {
		n += vecBytes(c)
	}
	return n
}

// checkCancel converts a done context into 57014.
func checkCancel(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return &Error{Code: CodeQueryCanceled, Message: "canceling statement due to statement timeout"}
		}
		return &Error{Code: CodeQueryCanceled, Message: "canceling statement due to user request"}
	}
	return nil
}

// buffer collects batches (materialization for sort, joins, CTEs).
type buffer struct {
	types []Type
	cols  []*Vec
	n     int
	bytes int64
}

func newBuffer(types []Type) *buffer {
	b := &buffer{types: types, cols: make([]*Vec, len(types))}
	for i, t := range types {
		b.cols[i] = NewVec(t, 0)
	}
	return b
}

func (b *buffer) add(rc *runCtx, bt *Batch) error {
	if bt.Live() == 0 {
		return nil
	}
	for i, c := range bt.Cols {
		b.cols[i].appendVec(c, bt.Sel)
	}
	b.n += bt.Live()
	sz := batchBytes(bt)
	if bt.Sel != nil && bt.N > 0 {
		sz = sz * int64(len(bt.Sel)) / int64(bt.N)
	}
	b.bytes += sz
	return rc.budget.reserve(sz)
}

func (b *buffer) batch() *Batch { return &Batch{Cols: b.cols, N: b.n} }

func (b *buffer) free(rc *runCtx) { rc.budget.release(b.bytes); b.bytes = 0 }

// emitChunks emits a materialized batch in batchSize slices. Each chunk
// is a dense batch whose columns share the full batch's storage (not the
// full batch under a selection: operators size per-batch work, such as a
// constant's broadcast, by Batch.N, which made large outputs quadratic).
func emitChunks(full *Batch, emit func(*Batch) error) error {
	if full.N <= batchSize {
		if full.Live() == 0 {
			return nil
		}
		return emit(full)
	}
	full = full.Compact()
	for lo := 0; lo < full.N; lo += batchSize {
		hi := min(lo+batchSize, full.N)
		b := &Batch{N: hi - lo, Cols: make([]*Vec, len(full.Cols))}
		for i, c := range full.Cols {
			b.Cols[i] = c.slice(lo, hi)
		}
		if err := emit(b); err != nil {
			return err
		}
	}
	return nil
}

func typesOf(cols []colInfo) []Type {
	t := make([]Type, len(cols))
	for i, c := range cols {
		t[i] = c.t
	}
	return t
}

// collect runs p to completion into a buffer.
func collect(ec *evalCtx, p plan) (*buffer, error) {
	return collectSized(ec, p, -1)
}

// collectSized is collect with an estimate of the row count (-1 =
// unknown): the columns are allocated once (up to 2M rows, so a wrong
// estimate cannot hold much unaccounted memory) instead of grown by copying.
func collectSized(ec *evalCtx, p plan, rows int64) (*buffer, error) {
	buf := newBuffer(typesOf(p.columns()))
	if rows > 0 {
		buf.reserveRows(int(min(rows, 1<<21)))
	}
	err := p.run(ec, func(b *Batch) error { return buf.add(ec.run, b) })
	return buf, err
}

// reserveRows sets the capacity of the (empty) buffer's fixed-width and
// text columns to n rows.
func (b *buffer) reserveRows(n int) {
	for _, c := range b.cols {
		switch c.T.Kind() {
		case KInt:
			c.I = make([]int64, 0, n)
		case KFloat:
			c.F = make([]float64, 0, n)
		case KBool:
			c.B = make([]bool, 0, n)
		case KStr:
			c.S = make([]string, 0, n)
		}
	}
}

func ctxErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
