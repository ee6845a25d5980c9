package graphsql

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/exec/lancesrc"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/wire"
)

// countingStore counts Gets of manifest versions, to check that a view
// scan reads O(rows requested) of history.
type countingStore struct {
	objstore.Store
	manifestGets atomic.Int64
}

func (s *countingStore) Get(ctx context.Context, key string) ([]byte, error) {
	if strings.HasPrefix(key, graph.ManifestRoot+"/") && strings.HasSuffix(key, ".manifest") {
		s.manifestGets.Add(1)
	}
	return s.Store.Get(ctx, key)
}

func (s *countingStore) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	if strings.HasPrefix(key, graph.ManifestRoot+"/") && strings.HasSuffix(key, ".manifest") {
		s.manifestGets.Add(1)
	}
	return s.Store.GetRange(ctx, key, off, n)
}

// openLocal opens a new graph in a temp directory.
func openLocal(t *testing.T) (*adapters.Graph, *countingStore) {
	t.Helper()
	dir := t.TempDir()
	local, err := objstore.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	cs := &countingStore{Store: local}
	g, err := adapters.Open(context.Background(), cs, adapters.Options{Create: true, Actor: "test", Location: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	return g, cs
}

var peopleSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

func createPeople(t *testing.T, g *adapters.Graph) {
	t.Helper()
	_, err := g.Write(context.Background(), adapters.WriteOptions{Message: "create people"}, func(ctx context.Context, s *adapters.Stage) error {
		return s.CreateTable(adapters.TableSpec{Name: "people", Kind: graph.NodeTable, PrimaryKey: []string{"id"}, Columns: []graph.ColumnSpec{
			{Name: "id", Type: arrow.PrimitiveTypes.Int64},
			{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		}})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// insertPeople writes rows (id, "p<id>") on branch as one graph commit.
func insertPeople(t *testing.T, g *adapters.Graph, branch, message string, ids ...int64) string {
	t.Helper()
	id, err := tryInsertPeople(g, branch, message, ids...)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// tryInsertPeople is insertPeople for goroutines (no t.Fatal).
func tryInsertPeople(g *adapters.Graph, branch, message string, ids ...int64) (string, error) {
	b := array.NewRecordBuilder(memory.DefaultAllocator, peopleSchema)
	defer b.Release()
	for _, id := range ids {
		b.Field(0).(*array.Int64Builder).Append(id)
		b.Field(1).(*array.StringBuilder).Append("p" + itoa(id))
	}
	rec := b.NewRecordBatch()
	rc, err := g.Write(context.Background(), adapters.WriteOptions{Branch: branch, Message: message}, func(ctx context.Context, s *adapters.Stage) error {
		return s.Insert("people", adapters.Batches(peopleSchema, rec))
	})
	if err != nil {
		return "", err
	}
	return rc.CommitID, nil
}

func itoa(n int64) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	if neg {
		b = append([]byte{'-'}, b...)
	}
	return string(b)
}

// catalogAt is the exec catalog of a snapshot's user tables (read
// through lancesrc at their pinned versions) plus the graph views of the
// session branch.
func catalogAt(t *testing.T, g *adapters.Graph, sn *graph.Snapshot, branch string) exec.Catalog {
	t.Helper()
	ctx := context.Background()
	mc := exec.NewMemCatalog()
	for _, e := range sn.Catalog().Tables() {
		ds, err := g.Root.OpenTable(ctx, e) // materializes a version published before it was written
		if err != nil {
			t.Fatal(err)
		}
		cols := []exec.ColumnDef{{Name: "id", Type: exec.TInt8, NotNull: true}, {Name: "name", Type: exec.TText}}
		mc.Add(&exec.TableDef{Name: e.Name, Columns: cols, PrimaryKey: []int{0}, Source: lancesrc.New(ds, cols, []int{0})})
	}
	views, err := Tables(ctx, g, branch)
	if err != nil {
		t.Fatal(err)
	}
	return WithViews(mc, views)
}

// query runs sql against cat and returns its rows as text ("NULL" for
// NULL), cells joined by "|".
func query(t *testing.T, cat exec.Catalog, sql string, params ...any) []string {
	t.Helper()
	rows, err := tryQuery(cat, sql, params...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return rows
}

func tryQuery(cat exec.Catalog, sql string, params ...any) ([]string, error) {
	eng := &exec.Engine{Catalog: cat}
	res, err := eng.Query(context.Background(), &exec.Session{TimeZone: time.UTC}, sql, params...)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range res.Rows() {
		cells := make([]string, len(r))
		for i, c := range r {
			if c == nil {
				cells[i] = "NULL"
			} else {
				cells[i] = *c
			}
		}
		out = append(out, strings.Join(cells, "|"))
	}
	return out, nil
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want SQLSTATE %s", code)
	}
	if got := wire.Code(err); got != code {
		t.Fatalf("SQLSTATE %q (%v); want %s", got, err, code)
	}
}

func asWire(err error) *wire.Error {
	var we *wire.Error
	if errors.As(err, &we) {
		return we
	}
	return nil
}
