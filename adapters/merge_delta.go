package adapters

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/lance/format"
)

// The row delta of one table between two pins of one physical lineage
// (a Lance version and a descendant of it, possibly across a branch
// fork, which keeps fragment ids and data files): which rows of the old
// pin are gone and which rows are new. Fragments are compared by id,
// data file names (UUIDs, so identity) and deletion file; only fragments
// that differ are read.

// pin is a table dataset version.
type pin struct {
	location, branch string
	version          uint64
	txn              string // the entry's commit record (graph.TableEntry.Txn)
}

func pinOf(e graph.TableEntry) pin { return pin{e.Location, e.Branch, e.Version, e.Txn} }

// openPin opens a pinned version, materializing it first when it was
// published before it was written (graph.Root.Materialize).
func (g *Graph) openPin(ctx context.Context, p pin) (*lance.Dataset, error) {
	ds, err := lance.Open(ctx, g.Root.Store(), p.location, g.Root.DatasetOptions(p.location, p.branch, p.version))
	if err != nil && p.txn != "" && lance.IsNotFound(err) {
		return g.Root.Materialize(ctx, graph.TableEntry{Location: p.location, Branch: p.branch, Version: p.version, Txn: p.txn, Name: p.location})
	}
	return ds, err
}

// rowDelta is the change from an old pin to a new one.
type rowDelta struct {
	// deleted are the row addresses, in the old pin, of rows gone in the
	// new one (deleted, updated, or rewritten by a compaction)
	deleted []uint64
	// added are the row addresses, in the new pin, of rows the old one
	// does not have (new fragments, or rows live again in a shared
	// fragment when the pins are on different lineages)
	added []uint64
}

func (d rowDelta) empty() bool { return len(d.deleted) == 0 && len(d.added) == 0 }

func sameFiles(a, b *format.Fragment) bool {
	if len(a.Files) != len(b.Files) {
		return false
	}
	for i := range a.Files {
		if a.Files[i].Path != b.Files[i].Path {
			return false
		}
	}
	return true
}

func sameDeletions(a, b *format.Fragment) bool {
	x, y := a.DeletionFile, b.DeletionFile
	if x == nil || y == nil {
		return x == nil && y == nil
	}
	return x.ID == y.ID && x.ReadVersion == y.ReadVersion && x.NumDeletedRows == y.NumDeletedRows && x.FileType == y.FileType
}

// liveAddrs returns the live row addresses of one fragment of ds.
func liveAddrs(ctx context.Context, ds *lance.Dataset, frag uint64) (map[uint64]bool, error) {
	sc, err := ds.Scan(ctx, lance.ScanOptions{Columns: []string{}, WithRowAddress: true,
		FragmentFilter: func(f *format.Fragment) bool { return f.ID == frag }})
	if err != nil {
		return nil, err
	}
	defer sc.Close()
	out := map[uint64]bool{}
	for {
		rec, err := sc.Next(ctx)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		col := rec.Column(int(rec.NumCols()) - 1).(*array.Uint64)
		for i := 0; i < col.Len(); i++ {
			out[col.Value(i)] = true
		}
		rec.Release()
	}
}

// deltaOf computes the row delta from old to cur, two pins of one table
// dataset. Fragments are the same only with the same id and the same
// data files (file names are UUIDs: two lineages share a file only by
// inheriting it), so the delta is exact for any two pins: a fragment the
// other pin lacks is wholly deleted or added, and within a shared
// fragment the live rows are compared.
func deltaOf(ctx context.Context, old, cur *lance.Dataset) (rowDelta, error) {
	var d rowDelta
	curFrags := map[uint64]*format.Fragment{}
	for i := range cur.Fragments() {
		f := &cur.Fragments()[i]
		curFrags[f.ID] = f
	}
	oldFrags := map[uint64]*format.Fragment{}
	for i := range old.Fragments() {
		f := &old.Fragments()[i]
		oldFrags[f.ID] = f
		c := curFrags[f.ID]
		if c != nil && sameFiles(f, c) && sameDeletions(f, c) {
			continue
		}
		was, err := liveAddrs(ctx, old, f.ID)
		if err != nil {
			return d, err
		}
		now := map[uint64]bool{}
		if c != nil && sameFiles(f, c) {
			if now, err = liveAddrs(ctx, cur, f.ID); err != nil {
				return d, err
			}
		}
		for a := range was {
			if !now[a] {
				d.deleted = append(d.deleted, a)
			}
		}
		for a := range now {
			if !was[a] {
				d.added = append(d.added, a)
			}
		}
	}
	for id, c := range curFrags {
		if o := oldFrags[id]; o == nil || !sameFiles(o, c) {
			live, err := liveAddrs(ctx, cur, id)
			if err != nil {
				return d, err
			}
			for a := range live {
				d.added = append(d.added, a)
			}
		}
	}
	slices.Sort(d.deleted)
	slices.Sort(d.added)
	return d, nil
}

// rowsAt is a Source over the rows of ds at the given addresses (sorted).
func rowsAt(ds *lance.Dataset, addrs []uint64) Source {
	return func(ctx context.Context) (array.RecordReader, error) {
		sc, err := ds.Scan(ctx, lance.ScanOptions{RowAddresses: addrs})
		if err != nil {
			return nil, err
		}
		r := &scanReader{ctx: ctx, sc: sc}
		r.refs.Store(1)
		return r, nil
	}
}

// scanReader adapts a lance Scanner to an arrow RecordReader; ctx is the
// reading write's, checked before every batch.
type scanReader struct {
	ctx  context.Context
	refs atomic.Int64
	sc   *lance.Scanner
	cur  arrow.RecordBatch
	err  error
}

func (r *scanReader) Retain() { r.refs.Add(1) }
func (r *scanReader) Release() {
	if r.refs.Add(-1) == 0 {
		if r.cur != nil {
			r.cur.Release()
			r.cur = nil
		}
		r.sc.Close()
	}
}
func (r *scanReader) Schema() *arrow.Schema { return r.sc.Schema() }
func (r *scanReader) Err() error            { return r.err }
func (r *scanReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil {
		return false
	}
	if err := r.ctx.Err(); err != nil {
		r.err = err
		return false
	}
	rec, err := r.sc.Next(r.ctx)
	if errors.Is(err, io.EOF) {
		return false
	}
	if err != nil {
		r.err = err
		return false
	}
	r.cur = rec
	return true
}
func (r *scanReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record is the deprecated alias of RecordBatch.
func (r *scanReader) Record() arrow.RecordBatch { return r.cur }

// rowKey encodes the values of row i in cols (every column when nil) so
// that equal rows, and only equal rows, get equal keys.
func rowKey(rec arrow.RecordBatch, i int, cols []int) string {
	var b strings.Builder
	add := func(c int) {
		a := rec.Column(c)
		if a.IsNull(i) {
			b.WriteString("\x00N")
			return
		}
		v := a.ValueStr(i)
		fmt.Fprintf(&b, "\x01%d:%s", len(v), v)
	}
	if cols == nil {
		for c := 0; c < int(rec.NumCols()); c++ {
			add(c)
		}
	} else {
		for _, c := range cols {
			add(c)
		}
	}
	return b.String()
}

// forEachRow scans ds (every column, with row addresses) and calls fn
// per live row.
func forEachRow(ctx context.Context, ds *lance.Dataset, opts lance.ScanOptions, fn func(rec arrow.RecordBatch, i int, addr uint64) error) error {
	opts.WithRowAddress = true
	sc, err := ds.Scan(ctx, opts)
	if err != nil {
		return err
	}
	defer sc.Close()
	for {
		rec, err := sc.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		addrs := rec.Column(int(rec.NumCols()) - 1).(*array.Uint64)
		data := rec.NewSlice(0, rec.NumRows())
		for i := 0; i < int(rec.NumRows()); i++ {
			if err := fn(data, i, addrs.Value(i)); err != nil {
				data.Release()
				rec.Release()
				return err
			}
		}
		data.Release()
		rec.Release()
	}
}

// dataCols are the column indexes of a scan record without _rowaddr.
func dataCols(rec arrow.RecordBatch) []int {
	n := int(rec.NumCols())
	if n > 0 && rec.ColumnName(n-1) == "_rowaddr" {
		n--
	}
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// colIndexes maps column names to indexes of schema s.
func colIndexes(s *arrow.Schema, names []string) ([]int, error) {
	var out []int
	for _, n := range names {
		ix := s.FieldIndices(n)
		if len(ix) != 1 {
			return nil, fmt.Errorf("adapters: primary key column %q not in the table", n)
		}
		out = append(out, ix[0])
	}
	return out, nil
}
