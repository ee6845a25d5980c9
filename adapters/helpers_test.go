package adapters

import (
	"context"
	"errors"
	"io"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
)

// The test tables all have columns (id int64, v string).
var testCols = []graph.ColumnSpec{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true},
}

var testSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

func rowsOf(ids ...int64) Source {
	return func(ctx context.Context) (array.RecordReader, error) {
		b := array.NewRecordBuilder(memory.DefaultAllocator, testSchema)
		defer b.Release()
		for _, id := range ids {
			b.Field(0).(*array.Int64Builder).Append(id)
			b.Field(1).(*array.StringBuilder).Append("v")
		}
		rec := b.NewRecordBatch()
		defer rec.Release()
		return array.NewRecordReader(testSchema, []arrow.RecordBatch{rec})
	}
}

// batchOf is rowsOf as one in-memory batch, for Stage.InsertBatches
// (whose row count a commit predicts: protocol.Predictor). The caller
// releases it.
func batchOf(ids ...int64) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, testSchema)
	defer b.Release()
	for _, id := range ids {
		b.Field(0).(*array.Int64Builder).Append(id)
		b.Field(1).(*array.StringBuilder).Append("v")
	}
	return b.NewRecordBatch()
}

func openGraph(t testing.TB, store objstore.Store, create bool) *Graph {
	t.Helper()
	g, err := Open(context.Background(), store, Options{Create: create, Actor: "test", Location: "/test-root", SyncFinalize: true})
	if err != nil {
		t.Fatalf("open graph: %v", err)
	}
	return g
}

func createTables(t testing.TB, g *Graph, names ...string) {
	t.Helper()
	_, err := g.Write(context.Background(), WriteOptions{Message: "ddl"}, func(ctx context.Context, s *Stage) error {
		for _, n := range names {
			if err := s.CreateTable(TableSpec{Name: n, Kind: graph.NodeTable, Columns: testCols, PrimaryKey: []string{"id"}}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("create tables: %v", err)
	}
}

func insert(ctx context.Context, g *Graph, o WriteOptions, rows map[string][]int64) error {
	// in-memory rows, as the SQL layer inserts them: the commit predicts
	// the row counts (commit path v2, two rounds)
	recs := map[string]arrow.RecordBatch{}
	for tbl, ids := range rows {
		recs[tbl] = batchOf(ids...)
		defer recs[tbl].Release()
	}
	_, err := g.Write(ctx, o, func(ctx context.Context, s *Stage) error {
		for _, tbl := range sortedKeys(rows) {
			if err := s.InsertBatches(tbl, testSchema, recs[tbl]); err != nil {
				return err
			}
		}
		return nil
	})
	return err
}

func sortedKeys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// readIDs returns the ids of a table in a snapshot, sorted, with their
// row addresses.
func readIDs(t testing.TB, g *Graph, sn *graph.Snapshot, table string) (ids []int64, addrs map[int64]uint64) {
	t.Helper()
	ctx := context.Background()
	ds, _, err := g.Table(ctx, sn, table)
	if err != nil {
		t.Fatalf("open %s: %v", table, err)
	}
	sc, err := ds.Scan(ctx, lance.ScanOptions{Columns: []string{"id"}, WithRowAddress: true})
	if err != nil {
		t.Fatalf("scan %s: %v", table, err)
	}
	defer sc.Close()
	addrs = map[int64]uint64{}
	for {
		rec, err := sc.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("scan %s: %v", table, err)
		}
		idc := rec.Column(0).(*array.Int64)
		ac := rec.Column(1).(*array.Uint64)
		for i := 0; i < idc.Len(); i++ {
			ids = append(ids, idc.Value(i))
			addrs[idc.Value(i)] = ac.Value(i)
		}
		rec.Release()
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids, addrs
}

func head(t testing.TB, g *Graph) *graph.Snapshot {
	t.Helper()
	sn, err := g.Head(context.Background(), "")
	if err != nil {
		t.Fatalf("head: %v", err)
	}
	return sn
}
