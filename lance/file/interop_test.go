package file_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/internal/oracle"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/lance/file"
	"github.com/pggraph/pggraph/lance/format"
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
		{"not null", false, 0, []int{2000}},
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
	t.Run("values", func(t *testing.T) { lanceReadsBatch(t, file.BigValuesBatch(file.NewRand(5), 30)) })
	// List rows too large for one mini-block chunk (up to 10000 items,
	// null items, null and empty lists) go to full-zip list pages.
	t.Run("lists", func(t *testing.T) { lanceReadsBatch(t, file.BigListsBatch(file.NewRand(6), 40)) })
}

func lanceReadsBatch(t *testing.T, rec arrow.RecordBatch) {
	ctx := context.Background()
	dir := t.TempDir()
	store, err := objstore.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
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

// TestResultMatchesLanceDataFile: the DataFile fields/column_indices we
// report equal what the official Lance records for the same schema.
func TestResultMatchesLanceDataFile(t *testing.T) {
	root := t.TempDir()
	oracle.Create(t, root, "t", []oracle.Column{{Name: "a", Type: "int64"}, {Name: "l", Type: "list:string", Nullable: true},
		{Name: "v", Type: "fixed_size_list:float:2"}, {Name: "z", Type: "string"}},
		[]oracle.Row{{"a": "1", "l": []any{"x"}, "v": []any{1.0, 2.0}, "z": "q"}})
	ms, _ := filepath.Glob(filepath.Join(root, "t.lance", "_versions", "*.manifest"))
	b, err := os.ReadFile(ms[0])
	if err != nil {
		t.Fatal(err)
	}
	mf, err := format.DecodeManifestFile(b)
	if err != nil {
		t.Fatal(err)
	}
	lanceFile := mf.Manifest.Fragments[0].Files[0]

	s := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int64},
		{Name: "l", Type: arrow.ListOfField(arrow.Field{Name: "item", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
		{Name: "v", Type: arrow.FixedSizeListOfField(2, arrow.Field{Name: "item", Type: arrow.PrimitiveTypes.Float32, Nullable: true})},
		{Name: "z", Type: arrow.BinaryTypes.String},
	}, nil)
	w, err := file.NewStreamWriter(io.Discard, s, file.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := w.Close(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.FieldIDs, lanceFile.Fields) || !reflect.DeepEqual(res.ColumnIndices, lanceFile.ColumnIndices) {
		t.Fatalf("ours fields %v columns %v; Lance %v %v", res.FieldIDs, res.ColumnIndices, lanceFile.Fields, lanceFile.ColumnIndices)
	}
}
