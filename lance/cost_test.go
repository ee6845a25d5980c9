package lance

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pggraph/pggraph/objstore"
)

// TestHotPathNeverLists pins the I/O of a warm write: staging a delete
// and committing it exactly, then refreshing, uses no List and a fixed
// number of operations however long the history is.
func TestHotPathNeverLists(t *testing.T) {
	ctx := context.Background()
	for _, history := range []int{1, 15, 30} {
		mem := objstore.NewMem()
		ds, err := Create(ctx, mem, "t", rowsReader(t, 0, 100, 100), Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i < history; i++ {
			st, err := ds.StageDelete(ctx, []uint64{RowAddress(0, uint32(i))}, StageOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if ds, err = st.Commit(ctx, CommitOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		cs := objstore.NewCounting(mem)
		warm := *ds
		warm.store = cs
		st, err := warm.StageDelete(ctx, []uint64{RowAddress(0, 99)}, StageOptions{})
		if err != nil {
			t.Fatal(err)
		}
		nd, err := st.Commit(ctx, CommitOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := nd.Latest(ctx); err != nil {
			t.Fatal(err)
		}
		s := cs.Stats()
		if s.Ops[objstore.OpList] != 0 {
			t.Fatalf("history %d: hot path listed %d times", history, s.Ops[objstore.OpList])
		}
		// delete: read old deletion vector (≤1 Get), write .bin + txn +
		// manifest (PutIfAbsent ×3), refresh (Stat), and at every
		// hintEvery-th version the hint (a volatile Put)
		total := s.Total(^objstore.OpMask(0))
		want := int64(5)
		if history == 1 {
			want = 4 // no previous deletion file to read
		}
		if nd.Version()%hintEvery == 0 {
			want++
		}
		if total != want {
			t.Fatalf("history %d: %d operations %v, want %d", history, total, s.Ops, want)
		}
	}
}

// TestTakeReadsOnlySelectedPages: a Take (an address-pushdown scan) of a
// few rows of a multi-page fragment fetches only the pages holding them
// (lance/file row ranges), wherever they are in the file.
func TestTakeReadsOnlySelectedPages(t *testing.T) {
	ctx := context.Background()
	mem := objstore.NewMem()
	const rows = 400_000
	ds, err := Create(ctx, mem, "t", rowsReader(t, 0, rows, 50_000), Options{})
	if err != nil {
		t.Fatal(err)
	}
	size := int64(ds.Fragments()[0].Files[0].FileSizeBytes)
	cases := []struct {
		name               string
		addrs              []uint64
		minShare, maxShare float64 // of the file's bytes read
	}{
		{"first row", []uint64{RowAddress(0, 0)}, 0, 0.4},
		{"first rows out of order", []uint64{RowAddress(0, 7), RowAddress(0, 3)}, 0, 0.4},
		{"middle row", []uint64{RowAddress(0, rows/2)}, 0, 0.4},
		{"last row", []uint64{RowAddress(0, rows-1)}, 0, 0.4},
		{"first and last", []uint64{RowAddress(0, rows-1), RowAddress(0, 0)}, 0, 0.7},
		// control: every row really spans the whole file
		{"every 1000th row", everyNth(rows, 1000), 0.9, 1.1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cs := objstore.NewCounting(mem)
			warm := *ds
			warm.store = cs
			rec, err := warm.Take(ctx, tc.addrs, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			defer rec.Release()
			if rec.NumRows() != int64(len(tc.addrs)) {
				t.Fatalf("%d rows", rec.NumRows())
			}
			for i, a := range tc.addrs {
				_, off := SplitRowAddress(a)
				if got := rec.Column(0).(*array.Int64).Value(i); got != int64(off) {
					t.Fatalf("row %d: id %d, want %d", i, got, off)
				}
				if got := rec.Column(2).(*array.Float64).Value(i); got != float64(off)/2 {
					t.Fatalf("row %d: score %v", i, got)
				}
			}
			read := cs.Stats().BytesRead
			if share := float64(read) / float64(size); share < tc.minShare || share > tc.maxShare {
				t.Fatalf("read %d of %d bytes (%.2f), want %.2f..%.2f", read, size, share, tc.minShare, tc.maxShare)
			}
		})
	}
}

func everyNth(rows, n int) []uint64 {
	var out []uint64
	for i := 0; i < rows; i += n {
		out = append(out, RowAddress(0, uint32(i)))
	}
	return out
}

// TestCreateBranchCost pins the I/O of a branch creation: the same
// operations however many branches exist, and no read of other refs.
func TestCreateBranchCost(t *testing.T) {
	ctx := context.Background()
	var totals []int64
	for _, existing := range []int{0, 20} {
		mem := objstore.NewMem()
		ds, err := Create(ctx, mem, "t", rowsReader(t, 0, 10, 10), Options{Location: "/t"})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < existing; i++ {
			if _, err := ds.CreateBranch(ctx, fmt.Sprintf("b%d", i), 0); err != nil {
				t.Fatal(err)
			}
		}
		cs := objstore.NewCounting(mem)
		warm := *ds
		warm.store = cs
		if _, err := warm.CreateBranch(ctx, "new", 0); err != nil {
			t.Fatal(err)
		}
		s := cs.Stats()
		if s.Ops[objstore.OpGet] > 2 {
			t.Fatalf("%d branches: %d Gets %v", existing, s.Ops[objstore.OpGet], s.Ops)
		}
		totals = append(totals, s.Total(^objstore.OpMask(0)))
	}
	if totals[0] != totals[1] {
		t.Fatalf("branch creation costs %d ops with no branches, %d with 20", totals[0], totals[1])
	}
}
