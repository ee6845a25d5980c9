package lance

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pggraph/pggraph/objstore"
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
		got := fmt.Sprint(rangesOf(tc.sel, tc.rows))
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
		// TakeLive answers the same rows, addresses and values
		rng.Shuffle(len(addrs), func(i, j int) { addrs[i], addrs[j] = addrs[j], addrs[i] })
		rec, took, err := ds.TakeLive(ctx, addrs, nil)
		if err != nil {
			t.Fatal(err)
		}
		var taken []scannedRow
		if rec != nil {
			taken = rowsOf(rec)
			rec.Release()
		}
		if len(taken) != len(got) || len(took) != len(got) {
			t.Fatalf("round %d: TakeLive gave %d rows (%d addresses), the scan %d", round, len(taken), len(took), len(got))
		}
		for i, r := range taken {
			g := got[i]
			if r.addr != g.addr || took[i] != g.addr || r.id != g.id || (r.name == nil) != (g.name == nil) || (r.name != nil && *r.name != *g.name) || r.score != g.score {
				t.Fatalf("round %d: TakeLive row %d %+v, scan %+v", round, i, r, g)
			}
		}
	}
}

func TestKeepMask(t *testing.T) {
	cases := []struct {
		name     string
		dv, sel  []uint32
		noSel    bool
		start, n uint64
		want     string // kept offsets, or "all"
	}{
		{"nothing deleted", nil, nil, true, 10, 5, "all"},
		{"deletions outside the window", []uint32{1, 20}, nil, true, 10, 5, "all"},
		{"deletions inside", []uint32{9, 10, 12, 15}, nil, true, 10, 5, "[11 13 14]"},
		{"selection", nil, []uint32{3, 11, 14, 30}, false, 10, 5, "[11 14]"},
		{"selection covering the window", nil, []uint32{10, 11, 12, 13, 14}, false, 10, 5, "all"},
		{"selection minus deletions", []uint32{11}, []uint32{11, 12}, false, 10, 5, "[12]"},
		{"all deleted", []uint32{10, 11, 12, 13, 14}, nil, true, 10, 5, "[]"},
		{"empty selection", nil, nil, false, 10, 5, "[]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs := &fragScan{dv: roaring.BitmapOf(tc.dv...)}
			if !tc.noSel {
				fs.sel, fs.selecting = tc.sel, true
			}
			keep, kept := fs.keepMask(tc.start, tc.n)
			got := "all"
			if keep != nil {
				var offs []uint64
				for i, k := range keep {
					if k {
						offs = append(offs, tc.start+uint64(i))
					}
				}
				got = fmt.Sprint(offs)
				if len(offs) != kept {
					t.Fatalf("kept %d, mask has %d", kept, len(offs))
				}
				if offs == nil {
					got = "[]"
				}
			} else if kept != int(tc.n) {
				t.Fatalf("nil mask with kept %d", kept)
			}
			if got != tc.want {
				t.Fatalf("kept %s, want %s", got, tc.want)
			}
		})
	}
}

// countingView counts reads but names inner as the store it wraps (as
// the fencing wrapper does), so the shared caches key it as inner.
type countingView struct {
	*objstore.Counting
	inner objstore.Store
}

func (c countingView) Unwrap() objstore.Store { return c.inner }

// TestPointTakeReadsChunksAndHonoursDeletions: once a data file is open
// (shared across versions and store wrappers), taking one row reads a
// few KiB — its chunk of each column, no page, no footer, no deletion
// file again — and the cached deletion vectors still answer per version:
// a row deleted in a later version is gone there and present in the
// earlier one.
func TestPointTakeReadsChunksAndHonoursDeletions(t *testing.T) {
	ctx := context.Background()
	mem := objstore.NewMem()
	const rows = 400_000
	ds, err := Create(ctx, mem, "t", rowsReader(t, 0, rows, 50_000), Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := ds.StageDelete(ctx, []uint64{RowAddress(0, 10)}, StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ds, err = st.Commit(ctx, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	cs := objstore.NewCounting(mem)
	view := *ds
	view.store = countingView{cs, mem}
	take := func(d *Dataset, off uint32) (int64, error) {
		t.Helper()
		rec, err := d.Take(ctx, []uint64{RowAddress(0, off)}, nil, false)
		if err != nil {
			return 0, err
		}
		defer rec.Release()
		if got := rec.Column(0).(*array.Int64).Value(0); got != int64(off) {
			t.Fatalf("row %d: id %d", off, got)
		}
		if got := rec.Column(2).(*array.Float64).Value(0); got != float64(off)/2 {
			t.Fatalf("row %d: score %v", off, got)
		}
		return cs.Stats().BytesRead, nil
	}
	if _, err := take(&view, 11); err != nil { // opens the file, reads chunk tables
		t.Fatal(err)
	}
	for _, off := range []uint32{12, rows / 2, rows - 1, 77_777} {
		cs.Reset()
		n, err := take(&view, off)
		if err != nil {
			t.Fatal(err)
		}
		if n > 24<<10 {
			t.Fatalf("taking row %d read %d bytes", off, n)
		}
	}
	if _, err := take(&view, 10); !errors.Is(err, ErrRowNotFound) {
		t.Fatalf("deleted row: %v", err)
	}
	st, err = ds.StageDelete(ctx, []uint64{RowAddress(0, 12)}, StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	later, err := st.Commit(ctx, CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := take(later, 12); !errors.Is(err, ErrRowNotFound) {
		t.Fatalf("row deleted in the later version: %v", err)
	}
	if _, err := take(later, 10); !errors.Is(err, ErrRowNotFound) {
		t.Fatalf("row deleted in the earlier version, in the later: %v", err)
	}
	if _, err := take(ds, 12); err != nil {
		t.Fatalf("the earlier version lost row 12: %v", err)
	}
}

func TestSelectRowAddresses(t *testing.T) {
	cases := []struct {
		addrs []uint64
		want  string
	}{
		{nil, "[]"},
		{[]uint64{RowAddress(0, 5)}, "[{0 [5]}]"},
		{[]uint64{RowAddress(2, 9), RowAddress(0, 5), RowAddress(2, 1), RowAddress(0, 5), RowAddress(7, 0)}, "[{0 [5]} {2 [1 9]} {7 [0]}]"},
		{[]uint64{RowAddress(1, 3), RowAddress(1, 3), RowAddress(1, 4)}, "[{1 [3 4]}]"},
	}
	for _, tc := range cases {
		in := slices.Clone(tc.addrs)
		if got := fmt.Sprint(selectRowAddresses(in)); got != tc.want {
			t.Errorf("selectRowAddresses(%v) = %s, want %s", tc.addrs, got, tc.want)
		}
		if !slices.Equal(in, tc.addrs) {
			t.Errorf("the caller's addresses were reordered: %v", in)
		}
	}
}
