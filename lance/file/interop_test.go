package file_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/internal/oracle"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/lance/file"
	"github.com/pggraph/pggraph/objstore"
)

// TestLanceReadsOurFiles: a dataset whose data files our writer made
// (every supported type, nulls, several chunks and files) is scanned by the
// official Lance value by value.
func TestLanceReadsOurFiles(t *testing.T) {
	for _, tc := range []struct {
		name     string
		nullable bool
		nullP    float64
		rows     []int
	}{
		{"nullable", true, 0.25, []int{1500, 1500, 7}},
		{"not null", false, 0, []int{5000}},
		{"mostly null", true, 0.97, []int{300}},
		{"all null", true, 1, []int{100}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			store, err := objstore.NewLocal(dir)
			if err != nil {
				t.Fatal(err)
			}
			s := file.AllTypesSchema(tc.nullable)
			rng := file.NewRand(int64(len(tc.name)))
			var recs []arrow.RecordBatch
			for _, n := range tc.rows {
				recs = append(recs, file.RandomBatch(rng, memory.DefaultAllocator, s, n, tc.nullP))
			}
			want := file.RowsOf(recs)
			rdr, err := array.NewRecordReader(s, recs)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := lance.Create(ctx, store, "t.lance", rdr, lance.Options{}); err != nil {
				t.Fatal(err)
			}
			rdr.Release()
			for _, r := range recs {
				r.Release()
			}
			got := oracle.Read(t, dir, "t")
			if len(got.Rows) != len(want) {
				t.Fatalf("Lance read %d rows, we wrote %d", len(got.Rows), len(want))
			}
			for i := range want {
				g, w := file.Normalize(t, map[string]any(got.Rows[i])), file.Normalize(t, want[i])
				if !reflect.DeepEqual(g, w) {
					t.Fatalf("row %d:\n lance %v\n ours  %v", i, g, w)
				}
			}
		})
	}
}

// TestLanceReadsOurFullZip: values too large for mini-block chunks (long
// strings, 70 KB binaries, 3000-dim vectors with null elements) go to
// full-zip pages, which the official Lance reads back exactly.
func TestLanceReadsOurFullZip(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	store, err := objstore.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	rec := file.BigValuesBatch(file.NewRand(5), 30)
	want := file.RowsOf([]arrow.RecordBatch{rec})
	rdr, err := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
	if err != nil {
		t.Fatal(err)
	}
	rec.Release()
	if _, err := lance.Create(ctx, store, "t.lance", rdr, lance.Options{}); err != nil {
		t.Fatal(err)
	}
	rdr.Release()
	got := oracle.Read(t, dir, "t")
	if len(got.Rows) != len(want) {
		t.Fatalf("Lance read %d rows, we wrote %d", len(got.Rows), len(want))
	}
	for i := range want {
		g, w := file.Normalize(t, map[string]any(got.Rows[i])), file.Normalize(t, want[i])
		if !reflect.DeepEqual(g, w) {
			t.Fatalf("row %d differs", i)
		}
	}
}
