package file

import (
	"context"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// TestTakeRowsMatchesScan: TakeRows of random ascending rows of every
// column of every test file (sparse and whole-page layouts, all-null
// pages, lists, Lance-written files) equals those rows of a full scan,
// in memory and through a store.
func TestTakeRowsMatchesScan(t *testing.T) {
	ctx := context.Background()
	for _, f := range sparseTestFiles(t) {
		for how, r := range openBoth(t, f.b) {
			if r.NumRows() == 0 {
				continue
			}
			sc, err := r.Scan(ScanOptions{BatchRows: int(min(r.NumRows(), 1<<20))})
			if err != nil {
				t.Fatal(err)
			}
			full, err := sc.Next(ctx)
			sc.Close()
			if err != nil {
				if IsUnsupported(err) {
					continue
				}
				t.Fatal(err)
			}
			if uint64(full.NumRows()) != r.NumRows() {
				t.Fatalf("%s: scan batch of %d rows for %d", f.name, full.NumRows(), r.NumRows())
			}
			rng := newRand(9)
			for ci := range r.cols {
				for probe := 0; probe < 6; probe++ {
					var rows []uint64
					k := 1 + rng.Intn(5)
					for i := 0; i < k; i++ {
						rows = append(rows, uint64(rng.Int63n(int64(r.NumRows()))))
					}
					if probe == 0 {
						rows = []uint64{0, r.NumRows() - 1}
					}
					slices.Sort(rows)
					got, err := r.TakeRows(ctx, ci, rows)
					if err != nil {
						t.Fatalf("%s (%s) column %d rows %v: %v", f.name, how, ci, rows, err)
					}
					if got.Len() != len(rows) {
						t.Fatalf("%s column %d: %d values for %d rows", f.name, ci, got.Len(), len(rows))
					}
					for i, row := range rows {
						a := array.NewSlice(got, int64(i), int64(i)+1)
						b := array.NewSlice(full.Column(ci), int64(row), int64(row)+1)
						if !array.Equal(a, b) {
							t.Fatalf("%s (%s) column %d row %d: take %v, scan %v", f.name, how, ci, row, a, b)
						}
						a.Release()
						b.Release()
					}
					got.Release()
				}
			}
			if _, err := r.TakeRows(ctx, 0, []uint64{r.NumRows()}); err == nil {
				t.Errorf("%s: a row past the end was taken", f.name)
			}
			full.Release()
		}
	}
}
