package lancesrc

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/pggraph/pggraph/exec"
)

// Read logging for SERIALIZABLE arbitration (docs/architecture.md,
// "Isolation and row-level concurrency"). A statement that runs with a
// ReadLog in its context has every read of a Source recorded at the
// granularity the Source served it: the keys a lookup, count or
// existence probe asked for, the key range an ordered or ranged read
// listed, the row addresses read by address, and the filter hints of a
// scan (no hints: the whole table). Every read of a Lance table version
// goes through a Source, so a table with records in a statement's log
// lists everything that statement read of it; the planner treats a table
// without records as read whole.

// ReadKind is how a read selected rows.
type ReadKind uint8

const (
	// ReadScan read the rows satisfying every filter of Filters (none:
	// every row).
	ReadScan ReadKind = iota
	// ReadKeys read the rows whose Column equals one of Keys.
	ReadKeys
	// ReadRange read the rows whose integer Column lies in [Lo, Hi].
	ReadRange
	// ReadAddrs read the rows at Addrs.
	ReadAddrs
)

// Read is one recorded read of a table version.
type Read struct {
	Kind   ReadKind
	Column string // the key column (ReadKeys, ReadRange)
	Keys   *exec.Vec
	// KeysOnly (ReadKeys): the read returned nothing of the rows but
	// their key column — whether, and how often, each key is present (an
	// existence or count probe, a foreign key's parent check). A change
	// that removes a row with a key and adds one with the same key (an
	// UPDATE of other columns) leaves its result as it was.
	KeysOnly bool
	Lo, Hi   int64
	Addrs    []uint64
	Filters  []ReadFilter
}

// ReadFilter is a scan's filter hint with its column named.
type ReadFilter struct {
	Column string
	exec.ScanFilter
}

// ReadIdent names a table version as a Source reads it.
type ReadIdent struct {
	Root, Branch string
	Version      uint64
}

// maxLoggedValues bounds the keys and addresses one log keeps per table;
// past it the table counts as read whole (its reads are then summarized
// by the table alone, as before row-level read sets).
const maxLoggedValues = 50_000

// ReadLog collects one statement's reads, per table version. Safe for
// concurrent use (parallel scans record from several goroutines).
type ReadLog struct {
	mu     sync.Mutex
	reads  map[ReadIdent][]Read
	values map[ReadIdent]int
	whole  map[ReadIdent]bool
}

// NewReadLog returns an empty log.
func NewReadLog() *ReadLog {
	return &ReadLog{reads: map[ReadIdent][]Read{}, values: map[ReadIdent]int{}, whole: map[ReadIdent]bool{}}
}

// Reads returns what was recorded for a table version: ok is false when
// nothing was, or when a read covered the whole table.
func (l *ReadLog) Reads(id ReadIdent) ([]Read, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	rs := l.reads[id]
	if l.whole[id] || len(rs) == 0 {
		return nil, false
	}
	return rs, true
}

func (l *ReadLog) add(id ReadIdent, r Read, values int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.whole[id] {
		return
	}
	l.values[id] += values
	if l.values[id] > maxLoggedValues || (r.Kind == ReadScan && len(r.Filters) == 0) {
		l.whole[id] = true
		l.reads[id] = nil
		return
	}
	l.reads[id] = append(l.reads[id], r)
}

type readLogKey struct{}

// WithReadLog returns a context whose Source reads are recorded in l.
func WithReadLog(ctx context.Context, l *ReadLog) context.Context {
	return context.WithValue(ctx, readLogKey{}, l)
}

func readLogOf(ctx context.Context) *ReadLog {
	l, _ := ctx.Value(readLogKey{}).(*ReadLog)
	return l
}

// Ident names the table version this Source reads.
func (s *Source) Ident() ReadIdent {
	return ReadIdent{Root: s.ds.Root(), Branch: s.ds.Branch(), Version: s.ds.Version()}
}

func (s *Source) logScan(ctx context.Context, filters []exec.ScanFilter) {
	l := readLogOf(ctx)
	if l == nil {
		return
	}
	r := Read{Kind: ReadScan}
	for _, f := range filters {
		if f.Column < 0 || f.Column >= len(s.cols) {
			r.Filters = nil // unknown: the whole table
			break
		}
		r.Filters = append(r.Filters, ReadFilter{Column: s.cols[f.Column].Name, ScanFilter: f})
	}
	l.add(s.Ident(), r, len(r.Filters))
}

// logKeys records a read of the rows whose column equals one of keys;
// keysOnly: the read returns nothing but that column (Read.KeysOnly).
func (s *Source) logKeys(ctx context.Context, column int, keys *exec.Vec, keysOnly bool) {
	l := readLogOf(ctx)
	if l == nil {
		return
	}
	if column < 0 || column >= len(s.cols) {
		l.add(s.Ident(), Read{Kind: ReadScan}, 0)
		return
	}
	l.add(s.Ident(), Read{Kind: ReadKeys, Column: s.cols[column].Name, Keys: cloneVec(keys), KeysOnly: keysOnly}, keys.N)
}

func (s *Source) logRange(ctx context.Context, column int, lo, hi int64) {
	l := readLogOf(ctx)
	if l == nil {
		return
	}
	if column < 0 || column >= len(s.cols) {
		l.add(s.Ident(), Read{Kind: ReadScan}, 0)
		return
	}
	l.add(s.Ident(), Read{Kind: ReadRange, Column: s.cols[column].Name, Lo: lo, Hi: hi}, 1)
}

func (s *Source) logAddrs(ctx context.Context, addrs []uint64) {
	l := readLogOf(ctx)
	if l == nil {
		return
	}
	l.add(s.Ident(), Read{Kind: ReadAddrs, Addrs: slices.Clone(addrs)}, len(addrs))
}

// cloneVec copies a key vector the engine may reuse, strings included
// (they may point into a batch's buffers).
func cloneVec(v *exec.Vec) *exec.Vec {
	idx := make([]int32, v.N)
	for i := range idx {
		idx[i] = int32(i)
	}
	out := v.Gather(idx)
	for i, str := range out.S {
		out.S[i] = strings.Clone(str)
	}
	return out
}
