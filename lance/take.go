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
// nonexistent address is ErrRowNotFound.
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
	type loc struct{ rec, row int }
	where := map[uint64]loc{}
	for {
		rec, err := sc.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		recs = append(recs, rec)
		ac := rec.Column(int(rec.NumCols()) - 1).(*array.Uint64)
		for i := 0; i < ac.Len(); i++ {
			where[ac.Value(i)] = loc{len(recs) - 1, i}
		}
	}
	full := sc.Schema()
	outSchema := full
	if !withAddress {
		fs := full.Fields()
		md := full.Metadata()
		outSchema = arrow.NewSchema(fs[:len(fs)-1], &md)
	}
	cols := make([]arrow.Array, outSchema.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for ci := range cols {
		parts := make([]arrow.Array, 0, len(addrs))
		for _, a := range addrs {
			l, ok := where[a]
			if !ok {
				for _, p := range parts {
					p.Release()
				}
				f, off := SplitRowAddress(a)
				return nil, wrapf(ErrRowNotFound, "fragment %d offset %d in version %d", f, off, d.version)
			}
			parts = append(parts, array.NewSlice(recs[l.rec].Column(ci), int64(l.row), int64(l.row+1)))
		}
		var err error
		if len(parts) == 0 {
			cols[ci] = array.MakeArrayOfNull(memory.DefaultAllocator, outSchema.Field(ci).Type, 0)
		} else {
			cols[ci], err = array.Concatenate(parts, memory.DefaultAllocator)
		}
		for _, p := range parts {
			p.Release()
		}
		if err != nil {
			return nil, err
		}
	}
	return array.NewRecordBatch(outSchema, cols, int64(len(addrs))), nil
}
