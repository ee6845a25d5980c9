package lancesrc

import (
	"context"
	"testing"

	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
)

// TestKeyIndexDerivesAcrossCompaction: compacting many small fragments
// (a Rewrite: they are removed, their rows come back in a new fragment
// with new addresses) derives the next index from the previous one —
// reading only the new fragment's keys — instead of rebuilding the
// whole table's, and the derived index answers exactly the live rows.
func TestKeyIndexDerivesAcrossCompaction(t *testing.T) {
	ctx := context.Background()
	ds := committer(t)(lance.New(objstore.NewMem(), "c.lance", lance.Options{}).StageOverwrite(ctx, idRows(t, seqIDs(0, 20000)), lance.StageOptions{MaxRowsPerFile: 10000}))
	for i := 0; i < 40; i++ {
		ds = committer(t)(ds.StageAppend(ctx, idRows(t, []int64{int64(100000 + i)}), lance.StageOptions{}))
	}
	cache := newIndexCache(1 << 30)
	if _, err := cache.get(ctx, ds, idColumn); err != nil {
		t.Fatal(err)
	}
	copts := lance.CompactOptions{TargetRowsPerFragment: 10000}
	if n := ds.CompactionCandidates(copts); n != 40 {
		t.Fatalf("%d compaction candidates, want the 40 small fragments", n)
	}
	ds = committer(t)(ds.StageCompaction(ctx, copts, lance.StageOptions{}))
	builds := cache.builds
	x, err := cache.get(ctx, ds, idColumn)
	if err != nil {
		t.Fatal(err)
	}
	if cache.builds != builds || cache.derives != 1 {
		t.Fatalf("compaction: builds %d -> %d, derives %d; want the index derived", builds, cache.builds, cache.derives)
	}
	sameIndex(t, "after compaction", contents(x), liveKeys(t, ds))
	// and again after a delete of a compacted row: still exact
	live := liveAddrs(liveKeys(t, ds))
	ds = committer(t)(ds.StageDelete(ctx, live[len(live)-3:], lance.StageOptions{}))
	if x, err = cache.get(ctx, ds, idColumn); err != nil {
		t.Fatal(err)
	}
	sameIndex(t, "after compaction and delete", contents(x), liveKeys(t, ds))
}
