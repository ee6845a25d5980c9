package lance

import (
	"context"
	"testing"
)

// TestRewriteAddresses: every live row of the compacted fragments maps to
// the address holding the same row after the compaction (two groups, a
// fragment with deletions, one fragment left alone); deleted rows and
// rows of untouched fragments keep their address; versions that are not
// a compaction have no map.
func TestRewriteAddresses(t *testing.T) {
	ctx := context.Background()
	store, _ := localStore(t)
	ds, _ := smallFragments(t, store) // 6 fragments of 10 rows, every 7th row deleted
	// a large fragment between two runs of small ones splits the
	// compaction into two groups
	st, err := ds.StageAppend(ctx, rowsReader(t, 100, 140, 40), StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ds, err = st.Commit(ctx, CommitOptions{Mode: CommitExact}); err != nil {
		t.Fatal(err)
	}
	for lo := int64(200); lo < 230; lo += 10 {
		st, err := ds.StageAppend(ctx, rowsReader(t, lo, lo+10, 10), StageOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if ds, err = st.Commit(ctx, CommitOptions{Mode: CommitExact}); err != nil {
			t.Fatal(err)
		}
	}
	if m, err := ds.RewriteAddresses(ctx, mustCheckout(t, ds, ds.Version()-1)); err != nil || m != nil {
		t.Fatalf("an append has an address map: %v %v", m, err)
	}
	before := scanAll(t, ds, ScanOptions{})
	stc, err := ds.StageCompaction(ctx, CompactOptions{TargetRowsPerFragment: 25}, StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	after, err := stc.Commit(ctx, CommitOptions{Mode: CommitExact})
	if err != nil {
		t.Fatal(err)
	}
	m, err := after.RewriteAddresses(ctx, ds)
	if err != nil || m == nil {
		t.Fatalf("no address map for a compaction: %v", err)
	}
	byAddr := map[uint64]int64{}
	for _, r := range scanAll(t, after, ScanOptions{}) {
		byAddr[r.addr] = r.id
	}
	moved := 0
	for _, r := range before {
		na, ok := m.Map(r.addr)
		if ok {
			moved++
		} else if na != r.addr {
			t.Fatalf("row %d: unmoved address %x became %x", r.id, r.addr, na)
		}
		if got, live := byAddr[na]; !live || got != r.id {
			t.Fatalf("row %d at %x maps to %x, which holds %d (live %v)", r.id, r.addr, na, got, live)
		}
	}
	if moved != len(before)-40 {
		t.Fatalf("%d rows moved, want every row but the large fragment's %d", moved, len(before)-40)
	}
	// a row deleted before the compaction is not mapped
	if _, ok := m.Map(0<<32 | 7); ok {
		t.Fatal("a deleted row was mapped")
	}
}

func mustCheckout(t *testing.T, ds *Dataset, v uint64) *Dataset {
	t.Helper()
	d, err := ds.Checkout(context.Background(), v)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
