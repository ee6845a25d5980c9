package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Key lookups through a transaction's pending writes. Without them a
// table the transaction had written fell back to a full scan for every
// later `WHERE pk = $1` in the same transaction (an ORM's insert-then-
// select, a migration's updates by id): the base snapshot answers through
// its key index with the deleted addresses left out, and the pending
// inserts are matched by key in one pass over their key column.

// KeyColumns implements KeyLookupSource: the base source's key columns
// (none when the base has no key index).
func (o *overlaySource) KeyColumns() []int {
	if kl, ok := o.base.(KeyLookupSource); ok {
		return kl.KeyColumns()
	}
	return nil
}

// LookupKeys implements KeyLookupSource: the base's rows with these keys
// that the transaction did not delete, then its pending inserts with
// these keys, under the addresses Scan gives them.
func (o *overlaySource) LookupKeys(ctx context.Context, column int, keys *Vec, req ScanRequest, emit func(arrow.RecordBatch, []uint64) error) error {
	kl, ok := o.base.(KeyLookupSource)
	if !ok {
		return errf(CodeInternalError, "key lookup on a source without a key index")
	}
	base := req
	base.NeedAddrs = req.NeedAddrs || o.ov.Deleted != nil
	if err := kl.LookupKeys(ctx, column, keys, base, o.skipDeleted(req, emit)); err != nil {
		return err
	}
	want := make(map[string]bool, keys.N)
	var kb []byte
	for i := 0; i < keys.N; i++ {
		if !keys.IsNull(i) {
			kb = appendKey(kb[:0], keys, i)
			want[string(kb)] = true
		}
	}
	if len(want) == 0 {
		return nil
	}
	var seq uint64 // the pending row's position across all inserts, as in Scan
	for _, rec := range o.ov.Inserts {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := int(rec.NumRows())
		kv, err := vecFromArrow(rec.Column(column), o.cols[column].Type)
		if err != nil {
			return err
		}
		var rows []int32
		for i := 0; i < n; i++ {
			if kv.IsNull(i) {
				continue
			}
			kb = appendKey(kb[:0], kv, i)
			if want[string(kb)] {
				rows = append(rows, int32(i))
			}
		}
		if len(rows) > 0 {
			out := project(rec, req.Columns)
			cols := make([]arrow.Array, out.NumCols())
			fields := make([]arrow.Field, len(cols))
			for c := range cols {
				v, err := vecFromArrow(out.Column(c), o.cols[req.Columns[c]].Type)
				if err != nil {
					return err
				}
				// exec's Arrow form (a pending insert may hold the storage
				// form, e.g. a vector's fixed-size list)
				cols[c] = vecToArrow(memory.DefaultAllocator, v.Gather(rows))
				fields[c] = arrow.Field{Name: out.Schema().Field(c).Name, Type: cols[c].DataType(), Nullable: true}
			}
			var ad []uint64
			if req.NeedAddrs {
				ad = make([]uint64, len(rows))
				for i, r := range rows {
					ad[i] = pendingAddrBit | (seq + uint64(r))
				}
			}
			if err := emit(array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(len(rows))), ad); err != nil {
				return err
			}
		}
		seq += uint64(n)
	}
	return nil
}
