package adapters

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/lance"
)

// Per-column row merges. A row (identified by its primary key) that
// both sides updated is not a conflict when they changed different
// columns: column by column, the merged row takes the side that changed
// it (the source's value where the target kept the base's, the target's
// otherwise; a column both set to the same value is that value). Only a
// column both sides set to different values — or a row one side deleted
// and the other updated — stays a conflict (reported, or settled by the
// merge's strategy, or staged for 'stop'). The merged row replaces the
// target's: its row is deleted and the merged one inserted, and the
// source's row for that key is not replayed. Constraints are checked on
// the result by the merge checks, as for any merge.

// columnMerge is mergeColumns's result.
type columnMerge struct {
	kept     []uint64 // source rows still to insert
	keptKeys []string
	dels     []uint64          // target rows replaced by merged ones
	added    arrow.RecordBatch // merged rows (nil: none)
}

// mergeColumns merges the rows both sides updated that can be merged
// per column. want/wantPK are the base rows the source deleted or
// updated that the target no longer has (by whole-row key, and their
// primary keys), baseAddr their addresses in old; kept/keptKeys the
// source's rows to insert; keyAddr the target's rows by primary key. A
// merged key's want entry is cleared.
func mergeColumns(ctx context.Context, old, cur, tds *lance.Dataset, want map[string]int, wantPK map[string]string, baseAddr map[string]uint64,
	kept []uint64, keptKeys []string, keyAddr map[string]uint64) (columnMerge, error) {
	out := columnMerge{kept: kept, keptKeys: keptKeys}
	if !old.Schema().Equal(cur.Schema()) || !tds.Schema().Equal(cur.Schema()) {
		return out, nil // re-columned: rows do not line up by position
	}
	// candidates: keys the source updated (a left-over base row and a
	// new row) that the target still has (so it updated them too)
	srcAddr := map[string]uint64{}
	for i, k := range keptKeys {
		srcAddr[k] = kept[i]
	}
	wantKey := map[string]string{} // primary key → whole-row key of its base row
	var baseAddrs, srcAddrs, tgtAddrs []uint64
	for key, n := range want {
		if n <= 0 {
			continue
		}
		pk := wantPK[key]
		sa, inSrc := srcAddr[pk]
		ta, inTgt := keyAddr[pk]
		ba, inBase := baseAddr[pk]
		if !inSrc || !inTgt || !inBase {
			continue
		}
		wantKey[pk] = key
		baseAddrs, srcAddrs, tgtAddrs = append(baseAddrs, ba), append(srcAddrs, sa), append(tgtAddrs, ta)
	}
	if len(wantKey) == 0 {
		return out, nil
	}
	rowsByAddr := func(ds *lance.Dataset, addrs []uint64) (map[uint64]arrow.RecordBatch, error) {
		m := map[uint64]arrow.RecordBatch{}
		err := forEachRow(ctx, ds, lanceScan(addrs), func(rec arrow.RecordBatch, i int, addr uint64) error {
			m[addr] = rec.NewSlice(int64(i), int64(i+1))
			return nil
		})
		return m, err
	}
	release := func(ms ...map[uint64]arrow.RecordBatch) {
		for _, m := range ms {
			for _, r := range m {
				r.Release()
			}
		}
	}
	base, err := rowsByAddr(old, baseAddrs)
	if err != nil {
		return out, err
	}
	src, err := rowsByAddr(cur, srcAddrs)
	if err != nil {
		release(base)
		return out, err
	}
	tgt, err := rowsByAddr(tds, tgtAddrs)
	if err != nil {
		release(base, src)
		return out, err
	}
	defer release(base, src, tgt)
	schema := cur.Schema()
	ncols := len(schema.Fields())
	cols := make([][]arrow.Array, ncols)
	merged := map[uint64]bool{} // source addresses merged
	for pk, key := range wantKey {
		b, s, t := base[baseAddr[pk]], src[srcAddr[pk]], tgt[keyAddr[pk]]
		if b == nil || s == nil || t == nil {
			continue
		}
		pick := make([]arrow.Array, ncols)
		ok := true
		for c := 0; c < ncols; c++ {
			one := []int{c}
			bv, sv, tv := rowKey(b, 0, one), rowKey(s, 0, one), rowKey(t, 0, one)
			switch {
			case sv == bv || sv == tv:
				pick[c] = t.Column(c)
			case tv == bv:
				pick[c] = s.Column(c)
			default:
				ok = false // both set the column to different values
			}
			if !ok {
				break
			}
		}
		if !ok {
			continue
		}
		for c := range pick {
			cols[c] = append(cols[c], pick[c])
		}
		merged[srcAddr[pk]] = true
		out.dels = append(out.dels, keyAddr[pk])
		want[key]--
	}
	if len(merged) == 0 {
		return out, nil
	}
	out.kept, out.keptKeys = nil, nil
	for i, a := range kept {
		if !merged[a] {
			out.kept = append(out.kept, a)
			out.keptKeys = append(out.keptKeys, keptKeys[i])
		}
	}
	arrs := make([]arrow.Array, ncols)
	for c := range cols {
		a, err := array.Concatenate(cols[c], memory.DefaultAllocator)
		if err != nil {
			for _, x := range arrs[:c] {
				x.Release()
			}
			return columnMerge{kept: kept, keptKeys: keptKeys}, err
		}
		arrs[c] = a
	}
	out.added = array.NewRecordBatch(schema, arrs, int64(len(merged)))
	for _, a := range arrs {
		a.Release()
	}
	return out, nil
}

// concatSources yields each source's batches in turn, streaming
// (chain.go).
func concatSources(schema *arrow.Schema, srcs ...Source) Source {
	return func(ctx context.Context) (array.RecordReader, error) { return newChain(ctx, schema, srcs), nil }
}
