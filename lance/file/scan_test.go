package file

import (
	"context"
	"fmt"
	"io"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/objstore"
)

func TestScanRanges(t *testing.T) {
	ctx := context.Background()
	s := allTypesSchema(true)
	rng := newRand(21)
	store := objstore.NewMem()
	w, err := NewWriter(ctx, store, "f.lance", s, WriterOptions{PageBytes: 8 << 10})
	if err != nil {
		t.Fatal(err)
	}
	var in []arrow.RecordBatch
	for i := 0; i < 6; i++ {
		rec := randomBatch(rng, memory.DefaultAllocator, s, 1000, 0.2)
		defer rec.Release()
		in = append(in, rec)
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	all := rowsOf(in)
	cases := []struct {
		name   string
		ranges []RowRange
	}{
		{"one row", []RowRange{{4321, 4322}}},
		{"page-crossing", []RowRange{{10, 20}, {990, 2010}, {5999, 6000}}},
		{"empty range skipped", []RowRange{{5, 5}, {100, 300}}},
		{"everything", []RowRange{{0, 6000}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			counting := &countingStore{Store: store}
			r, err := Open(ctx, counting, "f.lance")
			if err != nil {
				t.Fatal(err)
			}
			opened := counting.ranges()
			out, err := r.ReadAll(ctx, ScanOptions{Ranges: tc.ranges, BatchRows: 333, Columns: []string{s.Field(3).Name, s.Field(11).Name, s.Field(23).Name}})
			if err != nil {
				t.Fatal(err)
			}
			var want []map[string]any
			for _, rg := range tc.ranges {
				for i := rg.Start; i < rg.End; i++ {
					want = append(want, map[string]any{s.Field(3).Name: all[i][s.Field(3).Name], s.Field(11).Name: all[i][s.Field(11).Name], s.Field(23).Name: all[i][s.Field(23).Name]})
				}
			}
			got := rowsOf(out)
			for _, o := range out {
				o.Release()
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got %d rows, want %d (first differing rows differ)", len(got), len(want))
			}
			if tc.name == "one row" {
				// One page of each of three columns: at most 3 buffers each.
				if reads := counting.ranges() - opened; reads > 9 {
					t.Fatalf("one-row read fetched %d ranges", reads)
				}
			}
		})
	}
	r, _ := OpenBytes(mustGet(t, store, "f.lance"))
	for _, bad := range [][]RowRange{{{10, 5}}, {{5, 10}, {0, 3}}, {{0, 6001}}} {
		if _, err := r.Scan(ScanOptions{Ranges: bad}); !IsSchemaMismatch(err) {
			t.Errorf("ranges %v: %v", bad, err)
		}
	}
}

func mustGet(t *testing.T, st objstore.Store, key string) []byte {
	b, err := st.Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestConcurrentScans: one Reader serves scans from several goroutines.
func TestConcurrentScans(t *testing.T) {
	s := allTypesSchema(true)
	rec := randomBatch(newRand(8), memory.DefaultAllocator, s, 3000, 0.2)
	defer rec.Release()
	store := objstore.NewMem()
	ctx := context.Background()
	w, _ := NewWriter(ctx, store, "f.lance", s, WriterOptions{PageBytes: 8 << 10})
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := Open(ctx, store, "f.lance")
	if err != nil {
		t.Fatal(err)
	}
	want := rowsOf([]arrow.RecordBatch{rec})
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		go func() {
			out, err := r.ReadAll(ctx, ScanOptions{BatchRows: 500 + 100*g})
			if err == nil && !reflect.DeepEqual(rowsOf(out), want) {
				err = fmt.Errorf("goroutine %d read different rows", g)
			}
			for _, o := range out {
				o.Release()
			}
			errs <- err
		}()
	}
	for g := 0; g < 4; g++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// TestScanPerCallContexts: a caller may give every Next its own context
// and cancel it when the call returns; pages read ahead under such a
// context are read again under the next call's, so the scan completes.
func TestScanPerCallContexts(t *testing.T) {
	s := allTypesSchema(true)
	rng := newRand(5)
	store := objstore.NewMem()
	ctx := context.Background()
	w, err := NewWriter(ctx, store, "f.lance", s, WriterOptions{PageBytes: 4 << 10})
	if err != nil {
		t.Fatal(err)
	}
	var in []arrow.RecordBatch
	for i := 0; i < 3; i++ {
		rec := randomBatch(rng, memory.DefaultAllocator, s, 2000, 0.1)
		defer rec.Release()
		in = append(in, rec)
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := Open(ctx, store, "f.lance")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := r.Scan(ScanOptions{BatchRows: 500})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	var out []arrow.RecordBatch
	for {
		callCtx, cancel := context.WithCancel(ctx)
		rec, err := sc.Next(callCtx)
		cancel()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("after %d batches: %v", len(out), err)
		}
		defer rec.Release()
		out = append(out, rec)
	}
	if !reflect.DeepEqual(rowsOf(out), rowsOf(in)) {
		t.Fatal("rows differ")
	}
}
