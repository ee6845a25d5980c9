package lancesrc

import (
	"context"
	"slices"
	"testing"

	"github.com/pggraph/pggraph/exec"
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

// TestKeyIndexTextKeys: a text key column keeps the generic encoded form
// (integer columns use int64 maps) and derives across commits exactly.
func TestKeyIndexTextKeys(t *testing.T) {
	ctx := context.Background()
	col := keyColumn{name: idSchema.Field(1).Name, typ: exec.TText}
	truth := func(ds *lance.Dataset) map[string][]uint64 {
		am := newAddrMap(0, false)
		if _, _, err := scanKeys(ctx, ds, col, nil, am, nil); err != nil {
			t.Fatal(err)
		}
		m := map[string][]uint64{}
		am.all(func(k string, a uint64) { m[k] = append(m[k], a) })
		for _, v := range m {
			slices.Sort(v)
		}
		return m
	}
	ds := committer(t)(lance.New(objstore.NewMem(), "txt.lance", lance.Options{}).StageOverwrite(ctx, idRows(t, seqIDs(0, 500)), lance.StageOptions{MaxRowsPerFile: 100}))
	cache := newIndexCache(1 << 30)
	x, err := cache.get(ctx, ds, col)
	if err != nil {
		t.Fatal(err)
	}
	if x.base.ints {
		t.Fatal("a text column got an integer index")
	}
	ds = committer(t)(ds.StageAppend(ctx, idRows(t, []int64{7, 900}), lance.StageOptions{})) // "v7" twice now
	live := liveAddrs(truth(ds))
	ds = committer(t)(ds.StageDelete(ctx, live[:2], lance.StageOptions{}))
	if x, err = cache.get(ctx, ds, col); err != nil {
		t.Fatal(err)
	}
	if cache.derives != 1 || cache.builds != 1 {
		t.Fatalf("builds %d derives %d, want the later version derived", cache.builds, cache.derives)
	}
	sameIndex(t, "text keys", contents(x), truth(ds))
	if got := contents(x)[string(exec.AppendKey(nil, textVec("v7"), 0))]; len(got) != 2 {
		t.Fatalf("key v7: %d addresses, want 2", len(got))
	}
	checkTextOrder(t, x, truth(ds))
}

// checkTextOrder says a text index lists its live keys in byte order
// (base and added merged), each once, within strict and inclusive
// bounds, both directions, and that a limit keeps the first keys.
func checkTextOrder(t *testing.T, x *keyIndex, live map[string][]uint64) {
	t.Helper()
	in := func(lo, hi exec.TextBound, desc bool, limit int) []string {
		a := exec.TextKeysWithin(x.baseOrder.textsOf(x.base), lo, hi)
		var b []string
		if x.added.valid() {
			b = exec.TextKeysWithin(x.addedOrder.textsOf(x.added), lo, hi)
		}
		return exec.MergeTextKeys(a, b, desc, limit)
	}
	var want []string
	for k := range live {
		v, ok := exec.TextKey(k)
		if !ok {
			t.Fatalf("key %q does not decode as text", k)
		}
		want = append(want, v)
	}
	// keys whose rows were all deleted may stay listed: the sub-ranges
	// are checked against the full listing, which holds every live key
	all := in(exec.TextBound{}, exec.TextBound{}, false, 0)
	if !slices.IsSorted(all) || len(slices.Compact(slices.Clone(all))) != len(all) {
		t.Fatal("text keys not ascending and distinct")
	}
	for _, v := range want {
		if _, found := slices.BinarySearch(all, v); !found {
			t.Fatalf("live key %q missing from the ordered keys", v)
		}
	}
	want = all
	lo := exec.TextBound{Value: want[10], Set: true, Strict: true}
	hi := exec.TextBound{Value: want[40], Set: true}
	for _, c := range []struct {
		lo, hi exec.TextBound
		want   []string
	}{
		{exec.TextBound{}, exec.TextBound{}, want},
		{lo, hi, want[11:41]},
		{exec.TextBound{Value: want[10], Set: true}, exec.TextBound{Value: want[40], Set: true, Strict: true}, want[10:40]},
	} {
		if got := in(c.lo, c.hi, false, 0); !slices.Equal(got, c.want) {
			t.Fatalf("text keys in %+v..%+v: got %d keys, want %d", c.lo, c.hi, len(got), len(c.want))
		}
		down := in(c.lo, c.hi, true, 3)
		if len(down) != 3 || down[0] != c.want[len(c.want)-1] || down[2] != c.want[len(c.want)-3] {
			t.Fatalf("descending limit 3: %v", down)
		}
	}
}

func textVec(s string) *exec.Vec {
	v := exec.NewVec(exec.TText, 1)
	v.S[0] = s
	return v
}
