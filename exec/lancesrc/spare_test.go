package lancesrc

import (
	"context"
	"runtime"
	"testing"
	"weak"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
)

// TestOversizedIndexKeptOncePerDataset: an index too large for the
// shared cache is kept in a spare slot (the next lookup of that version
// does not rebuild it, the next version derives from it), and only the
// newest version's: an older one is released, so sources that remember
// indexes weakly do not pin one index per version.
func TestOversizedIndexKeptOncePerDataset(t *testing.T) {
	ctx := context.Background()
	v0 := committer(t)(lance.New(objstore.NewMem(), "big.lance", lance.Options{}).StageOverwrite(ctx, idRows(t, seqIDs(0, 5000)), lance.StageOptions{}))
	v1 := committer(t)(v0.StageAppend(ctx, idRows(t, []int64{90000}), lance.StageOptions{}))
	cache := newIndexCache(1) // nothing fits
	x0, held, err := cache.getHeld(ctx, v0, idColumn)
	if err != nil {
		t.Fatal(err)
	}
	if !held || len(cache.entries) != 0 || cache.spareOf(cacheKey{store: v0.Store(), root: v0.Root(), branch: v0.Branch(), column: "id", typ: idColumn.typ.String()}) != x0 {
		t.Fatalf("held %v, %d shared entries, spare %v: want the index in a spare slot only", held, len(cache.entries), cache.spare)
	}
	again, err := cache.get(ctx, v0, idColumn)
	if err != nil {
		t.Fatal(err)
	}
	if again != x0 || cache.builds != 1 {
		t.Fatalf("second lookup rebuilt the index (builds %d)", cache.builds)
	}
	weak0 := weak.Make(x0)
	x0, again = nil, nil
	x1, err := cache.get(ctx, v1, idColumn)
	if err != nil {
		t.Fatal(err)
	}
	if cache.derives != 1 || cache.builds != 1 {
		t.Fatalf("builds %d derives %d, want v1 derived from the spare v0", cache.builds, cache.derives)
	}
	sameIndex(t, "derived from spare", contents(x1), liveKeys(t, v1))
	runtime.GC()
	runtime.GC()
	if weak0.Value() != nil {
		t.Fatal("v0's index is still alive after v1 replaced it in the spare slot")
	}
	runtime.KeepAlive(x1)

	// sharing disabled: nothing is kept, the caller owns the index
	off := newIndexCache(0)
	if _, held, err := off.getHeld(ctx, v0, idColumn); err != nil || held || len(off.spare) != 0 {
		t.Fatalf("limit 0: held %v, spare %d, err %v", held, len(off.spare), err)
	}
}

// TestIndexHeld: a Source reports its column's index as held once the
// process-wide cache keeps this version's index or an older one (here in
// a spare slot, the shared cache being too small), and not for a
// dataset never indexed.
func TestIndexHeld(t *testing.T) {
	ctx := context.Background()
	SetIndexCacheLimit(1)
	defer SetIndexCacheLimit(DefaultIndexCacheBytes)
	cols := []exec.ColumnDef{{Name: "id", Type: exec.TInt8}}
	v0 := committer(t)(lance.New(objstore.NewMem(), "held.lance", lance.Options{}).StageOverwrite(ctx, idRows(t, seqIDs(0, 3000)), lance.StageOptions{}))
	v1 := committer(t)(v0.StageAppend(ctx, idRows(t, []int64{7777}), lance.StageOptions{}))
	other := committer(t)(lance.New(objstore.NewMem(), "other.lance", lance.Options{}).StageOverwrite(ctx, idRows(t, seqIDs(0, 10)), lance.StageOptions{}))
	if New(v1, cols, []int{0}).IndexHeld(0) {
		t.Fatal("held before any lookup")
	}
	s0 := New(v0, cols, []int{0})
	keys := exec.NewVec(exec.TInt8, 1)
	keys.I[0] = 5
	n := 0
	if err := s0.LookupKeys(ctx, 0, keys, exec.ScanRequest{Columns: []int{0}, NeedAddrs: true}, func(rec arrow.RecordBatch, _ []uint64) error {
		n += int(rec.NumRows())
		return nil
	}); err != nil || n != 1 {
		t.Fatalf("lookup: %d rows, %v", n, err)
	}
	if !New(v1, cols, []int{0}).IndexHeld(0) {
		t.Fatal("v1 does not see v0's spare index to derive from")
	}
	if New(other, cols, []int{0}).IndexHeld(0) {
		t.Fatal("another dataset reports an index")
	}
}
