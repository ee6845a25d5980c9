package file

import (
	"context"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ColumnIndex is the index of the top-level column with Lance field id
// id, for TakeRows (ok=false: the file has no such column).
func (r *Reader) ColumnIndex(id int32) (int, bool) {
	for _, f := range r.fields {
		if f.ID == id && f.ParentID == -1 {
			if idx := r.schema.FieldIndices(f.Name); len(idx) == 1 {
				return idx[0], true
			}
			return 0, false
		}
	}
	return 0, false
}

// TakeRows returns the values of column ci at the given rows (ascending,
// within the file), in order: the few-rows read of a key lookup, without
// a Scanner. A row of a page that can be read sparsely costs the chunk
// (or full-zip bytes) holding it; other pages are decoded once per call;
// all-null pages are never read.
func (r *Reader) TakeRows(ctx context.Context, ci int, rows []uint64) (arrow.Array, error) {
	if ci < 0 || ci >= len(r.cols) {
		return nil, mismatch("", "no column %d", ci)
	}
	f := r.schema.Field(ci)
	starts := r.pageStarts[ci]
	var parts []arrow.Array
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	var whole arrow.Array // the last page decoded whole
	wholePage := -1
	defer func() {
		if whole != nil {
			whole.Release()
		}
	}()
	prev := uint64(0)
	for i, row := range rows {
		if row >= r.numRows || (i > 0 && row < prev) {
			return nil, mismatch(f.Name, "rows must be ascending and within the file's %d rows", r.numRows)
		}
		prev = row
		pi := sort.Search(len(starts), func(k int) bool { return starts[k] > row }) - 1
		if pi < 0 || pi >= len(r.cols[ci].pages) {
			return nil, corrupt(f.Name, "no page holds row %d", row)
		}
		pm := r.cols[ci].pages[pi]
		off := row - starts[pi]
		if off >= pm.length {
			return nil, corrupt(f.Name, "no page holds row %d", row)
		}
		if pm.layout.kind == layoutAllNull && len(pm.layout.layers) <= 1 {
			if !f.Nullable {
				return nil, corrupt(f.Name, "all-null page in a non-nullable column")
			}
			parts = append(parts, array.MakeArrayOfNull(memory.DefaultAllocator, f.Type, 1))
			continue
		}
		if r.sparseKind(ci, pm) != sparseNone {
			a, first, err := r.decodeRows(ctx, ci, pi, off, off+1)
			if err != nil {
				return nil, err
			}
			parts = append(parts, array.NewSlice(a, int64(off-first), int64(off-first)+1))
			a.Release()
			continue
		}
		if wholePage != pi {
			if whole != nil {
				whole.Release()
				whole, wholePage = nil, -1
			}
			a, err := r.decodePage(ctx, ci, pm)
			if err != nil {
				return nil, err
			}
			if uint64(a.Len()) != pm.length {
				a.Release()
				return nil, corrupt(f.Name, "page %d decodes to %d rows, metadata says %d", pi, a.Len(), pm.length)
			}
			whole, wholePage = a, pi
		}
		parts = append(parts, array.NewSlice(whole, int64(off), int64(off)+1))
	}
	switch len(parts) {
	case 0:
		return array.MakeArrayOfNull(memory.DefaultAllocator, f.Type, 0), nil
	case 1:
		parts[0].Retain()
		return parts[0], nil
	}
	a, err := array.Concatenate(parts, memory.DefaultAllocator)
	if err != nil {
		return nil, corrupt(f.Name, "concatenate: %v", err)
	}
	return a, nil
}
