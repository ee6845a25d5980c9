package file

import (
	"bytes"
	"context"
	"reflect"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestRandomizedRoundTrip writes random schemas, null rates, batch and
// page sizes, then reads random projections and row ranges with random
// batch sizes, comparing every value with what was written.
func TestRandomizedRoundTrip(t *testing.T) {
	types := allTypes()
	for seed := int64(1); seed <= 12; seed++ {
		rng := newRand(seed)
		var fs []arrow.Field
		for i, dt := range types {
			if rng.Intn(3) == 0 {
				fs = append(fs, arrow.Field{Name: "c" + string(rune('a'+i%26)) + string(rune('a'+i/26)), Type: dt, Nullable: rng.Intn(4) != 0})
			}
		}
		if len(fs) == 0 {
			fs = append(fs, arrow.Field{Name: "only", Type: types[rng.Intn(len(types))], Nullable: true})
		}
		s := arrow.NewSchema(fs, nil)
		nullP := []float64{0, 0.05, 0.5, 1}[rng.Intn(4)]
		var buf bytes.Buffer
		w, err := NewStreamWriter(&buf, s, WriterOptions{PageBytes: 1<<10 + rng.Intn(64<<10)})
		if err != nil {
			t.Fatal(err)
		}
		var in []arrow.RecordBatch
		total := 0
		for b := rng.Intn(5) + 1; b > 0; b-- {
			n := rng.Intn(3000)
			rec := randomBatch(rng, memory.DefaultAllocator, s, n, nullP)
			in = append(in, rec)
			total += n
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Close(context.Background()); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		want := rowsOf(in)
		for _, r := range in {
			r.Release()
		}
		r, err := OpenBytes(buf.Bytes())
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for trial := 0; trial < 4; trial++ {
			var cols []string
			for _, f := range fs {
				if rng.Intn(2) == 0 {
					cols = append(cols, f.Name)
				}
			}
			var ranges []RowRange
			if trial > 0 && total > 0 {
				cuts := []int{rng.Intn(total + 1), rng.Intn(total + 1), rng.Intn(total + 1), rng.Intn(total + 1)}
				sort.Ints(cuts)
				ranges = []RowRange{{uint64(cuts[0]), uint64(cuts[1])}, {uint64(cuts[2]), uint64(cuts[3])}}
			}
			out, err := r.ReadAll(context.Background(), ScanOptions{Columns: cols, Ranges: ranges, BatchRows: 1 + rng.Intn(5000)})
			if err != nil {
				t.Fatalf("seed %d trial %d: %v", seed, trial, err)
			}
			got := rowsOf(out)
			for _, o := range out {
				o.Release()
			}
			var exp []map[string]any
			pick := func(i int) {
				row := map[string]any{}
				names := cols
				if names == nil {
					for _, f := range fs {
						names = append(names, f.Name)
					}
				}
				for _, c := range names {
					row[c] = want[i][c]
				}
				exp = append(exp, row)
			}
			if ranges == nil {
				for i := 0; i < total; i++ {
					pick(i)
				}
			} else {
				for _, rg := range ranges {
					for i := rg.Start; i < rg.End; i++ {
						pick(int(i))
					}
				}
			}
			if len(got) != len(exp) {
				t.Fatalf("seed %d trial %d: %d rows, want %d", seed, trial, len(got), len(exp))
			}
			for i := range exp {
				if len(exp[i]) > 0 && !reflect.DeepEqual(got[i], exp[i]) {
					t.Fatalf("seed %d trial %d row %d:\n got %v\nwant %v", seed, trial, i, got[i], exp[i])
				}
			}
		}
	}
}
