package lance

import (
	"context"
	"errors"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ErrRowNotFound: Take was given the address of a row that does not
// exist or is deleted in this version.
var ErrRowNotFound = errors.New("lance: row address not found")

// Take returns the rows at the given addresses, in the given order
// (duplicates allowed), projected to columns (nil = all). With
// withAddress the batch ends with the "_rowaddr" column. A deleted or
// nonexistent address is ErrRowNotFound. Only fragments holding a
// requested address are read.
func (d *Dataset) Take(ctx context.Context, addrs []uint64, columns []string, withAddress bool) (arrow.RecordBatch, error) {
	// a non-nil (possibly empty) address set: never a full scan
	sc, err := d.Scan(ctx, ScanOptions{Columns: columns, WithRowAddress: true, RowAddresses: append([]uint64{}, addrs...)})
	if err != nil {
		return nil, err
	}
	defer sc.Close()
	var recs []arrow.RecordBatch
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for {
		rec, err := sc.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		recs = append(recs, rec)
	}
	all, err := concatBatches(sc.Schema(), recs)
	if err != nil {
		return nil, err
	}
	defer all.Release()
	addrCol := all.Column(int(all.NumCols()) - 1).(*array.Uint64)
	row := make(map[uint64]int, addrCol.Len())
	for i := 0; i < addrCol.Len(); i++ {
		row[addrCol.Value(i)] = i
	}
	// requested order as runs of consecutive rows (sorted requests
	// become a handful of slices)
	var runs [][2]int
	for _, a := range addrs {
		i, ok := row[a]
		if !ok {
			f, off := SplitRowAddress(a)
			return nil, wrapf(ErrRowNotFound, "fragment %d offset %d in version %d", f, off, d.version)
		}
		if n := len(runs); n > 0 && runs[n-1][1] == i {
			runs[n-1][1]++
		} else {
			runs = append(runs, [2]int{i, i + 1})
		}
	}
	out, err := selectRows(all, runs)
	if err != nil {
		return nil, err
	}
	if withAddress {
		return out, nil
	}
	defer out.Release()
	fs := out.Schema().Fields()
	md := out.Schema().Metadata()
	cols := out.Columns()
	return array.NewRecordBatch(arrow.NewSchema(fs[:len(fs)-1], &md), cols[:len(cols)-1], out.NumRows()), nil
}

// concatBatches joins batches of one schema into a single batch.
func concatBatches(sch *arrow.Schema, recs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	switch len(recs) {
	case 0:
		cols := make([]arrow.Array, sch.NumFields())
		for i, f := range sch.Fields() {
			cols[i] = array.MakeArrayOfNull(memory.DefaultAllocator, f.Type, 0)
		}
		rec := array.NewRecordBatch(sch, cols, 0)
		for _, c := range cols {
			c.Release()
		}
		return rec, nil
	case 1:
		recs[0].Retain()
		return recs[0], nil
	}
	cols := make([]arrow.Array, sch.NumFields())
	var n int64
	for _, r := range recs {
		n += r.NumRows()
	}
	for ci := range cols {
		parts := make([]arrow.Array, len(recs))
		for i, r := range recs {
			parts[i] = r.Column(ci)
		}
		c, err := array.Concatenate(parts, memory.DefaultAllocator)
		if err != nil {
			for _, c := range cols[:ci] {
				c.Release()
			}
			return nil, err
		}
		cols[ci] = c
	}
	rec := array.NewRecordBatch(sch, cols, n)
	for _, c := range cols {
		c.Release()
	}
	return rec, nil
}
