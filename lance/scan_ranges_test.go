package lance

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

func TestRangesOf(t *testing.T) {
	cases := []struct {
		sel  []uint32
		rows uint64
		want string
	}{
		{nil, 10, "[]"},
		{[]uint32{0}, 10, "[{0 1}]"},
		{[]uint32{3, 4, 5}, 10, "[{3 6}]"},
		{[]uint32{1, 1 + selectionGap + 1}, 1000, fmt.Sprintf("[{1 %d}]", 1+selectionGap+2)},
		{[]uint32{1, 1 + selectionGap + 2}, 1000, fmt.Sprintf("[{1 2} {%d %d}]", 1+selectionGap+2, 1+selectionGap+3)},
		{[]uint32{8, 9, 10, 11}, 10, "[{8 10}]"}, // offsets past the fragment are dropped
		{[]uint32{12}, 10, "[]"},
	}
	for _, tc := range cases {
		got := fmt.Sprint(rangesOf(roaring.BitmapOf(tc.sel...), tc.rows))
		if got != tc.want {
			t.Errorf("rangesOf(%v, %d) = %s, want %s", tc.sel, tc.rows, got, tc.want)
		}
	}
}

// TestScanRowAddressesMatchesFullScan: address-pushdown scans over
// several fragments with deletions, with batch sizes that cut ranges,
// return exactly the selected live rows with their values and addresses.
func TestScanRowAddressesMatchesFullScan(t *testing.T) {
	ctx := context.Background()
	_, ds := branchFixture(t)
	all := scanAll(t, ds, ScanOptions{})
	var del []uint64
	for _, r := range all {
		if r.id%11 == 3 {
			del = append(del, r.addr)
		}
	}
	st, err := ds.StageDelete(ctx, del, StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ds, err = st.Commit(ctx, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	live := map[uint64]scannedRow{}
	for _, r := range scanAll(t, ds, ScanOptions{}) {
		live[r.addr] = r
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 20; round++ {
		var addrs []uint64
		want := map[uint64]bool{}
		for _, r := range all { // live and deleted candidates
			if rng.IntN(4) == 0 {
				addrs = append(addrs, r.addr)
				if _, ok := live[r.addr]; ok {
					want[r.addr] = true
				}
			}
		}
		addrs = append(addrs, RowAddress(0, 1<<20), RowAddress(99, 0)) // nonexistent
		batch := 1 + rng.IntN(40)
		got := scanAll(t, ds, ScanOptions{RowAddresses: addrs, BatchRows: batch})
		if len(got) != len(want) {
			t.Fatalf("round %d (batch %d): %d rows, want %d", round, batch, len(got), len(want))
		}
		if !slices.IsSortedFunc(got, func(a, b scannedRow) int { return cmp.Compare(a.addr, b.addr) }) {
			t.Fatalf("round %d: rows out of address order", round)
		}
		for _, r := range got {
			l, ok := live[r.addr]
			if !ok || !want[r.addr] || l.id != r.id || (l.name == nil) != (r.name == nil) || l.score != r.score {
				t.Fatalf("round %d: row %+v (live %+v)", round, r, l)
			}
		}
	}
}
