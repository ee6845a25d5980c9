package lance

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/lance/file"
	"github.com/pggraph/pggraph/lance/format"
)

// TakeLive reads the live rows at the given row addresses (any order;
// addresses of deleted or absent rows yield nothing) in address order:
// the given columns (nil = all) and the row address column last, with
// the addresses as a slice too. It answers what a Scan with RowAddresses
// and WithRowAddress answers, without a Scanner per fragment and file: a
// key lookup reads one or a few rows, and the scan machinery around the
// chunk read was most of its cost. Returns a nil record when no row is
// live.
func (d *Dataset) TakeLive(ctx context.Context, addrs []uint64, columns []string) (arrow.RecordBatch, []uint64, error) {
	plan, err := d.scanPlan(columns, true)
	if err != nil {
		return nil, nil, err
	}
	type fragRows struct {
		fr   *format.Fragment
		rows []uint64
	}
	var frs []fragRows
	var out []uint64
	frags := d.Fragments()
	for _, sel := range selectRowAddresses(addrs) {
		var fr *format.Fragment
		for i := range frags {
			if frags[i].ID == sel.id {
				fr = &frags[i]
				break
			}
		}
		if fr == nil {
			continue
		}
		dv, err := scanDeletionVector(ctx, d, fr)
		if err != nil {
			return nil, nil, err
		}
		var rows []uint64
		for _, o := range sel.offs {
			if uint64(o) >= fr.PhysicalRows {
				break
			}
			if dv != nil && dv.Contains(o) {
				continue
			}
			rows = append(rows, uint64(o))
			out = append(out, RowAddress(fr.ID, o))
		}
		if len(rows) > 0 {
			frs = append(frs, fragRows{fr: fr, rows: rows})
		}
	}
	if len(out) == 0 {
		return nil, nil, nil
	}
	cols := make([]arrow.Array, len(plan.cols)+1)
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for pos, c := range plan.cols {
		var parts []arrow.Array
		release := func() {
			for _, p := range parts {
				p.Release()
			}
		}
		for _, f := range frs {
			a, err := d.takeColumn(ctx, f.fr, c, f.rows)
			if err != nil {
				release()
				return nil, nil, err
			}
			parts = append(parts, a)
		}
		if len(parts) == 1 {
			cols[pos] = parts[0]
			continue
		}
		a, err := array.Concatenate(parts, memory.DefaultAllocator)
		release()
		if err != nil {
			return nil, nil, wrapf(ErrCorrupt, "column %q: %v", c.name, err)
		}
		cols[pos] = a
	}
	data := array.NewData(arrow.PrimitiveTypes.Uint64, len(out),
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Uint64Traits.CastToBytes(out))}, nil, 0, 0)
	cols[len(cols)-1] = array.NewUint64Data(data)
	data.Release()
	return array.NewRecordBatch(plan.schema, cols, int64(len(out))), out, nil
}

// takeColumn reads column c of fragment fr at the given rows.
func (d *Dataset) takeColumn(ctx context.Context, fr *format.Fragment, c projected, rows []uint64) (arrow.Array, error) {
	fi := dataFileOf(fr, c)
	if fi < 0 {
		return nil, wrapf(ErrCorrupt, "fragment %d has no data file with column %q", fr.ID, c.name)
	}
	df := &fr.Files[fi]
	key, err := d.dataFileKey(df)
	if err != nil {
		return nil, err
	}
	r, err := file.OpenCached(ctx, d.store, key, df.FileSizeBytes)
	if err != nil {
		return nil, err
	}
	if r.NumRows() != fr.PhysicalRows {
		return nil, wrapf(ErrCorrupt, "data file %s has %d rows, fragment %d says %d", df.Path, r.NumRows(), fr.ID, fr.PhysicalRows)
	}
	ci, ok := r.ColumnIndex(c.fieldID)
	if !ok {
		return nil, wrapf(ErrCorrupt, "data file %s lacks field id %d", df.Path, c.fieldID)
	}
	return r.TakeRows(ctx, ci, rows)
}

// dataFileOf is the index of fr's data file holding column c, or -1.
// Files record the column's field id (Lance, and our writer since it
// matched Lance); the top-level id is accepted for files written before.
func dataFileOf(fr *format.Fragment, c projected) int {
	fi := -1
	for j := range fr.Files {
		for _, id := range fr.Files[j].Fields {
			if id == c.colID || id == c.fieldID {
				fi = j
			}
		}
	}
	return fi
}
