package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/objstore"
)

// rootWithTableA initializes a graph root through `pgproxy init` and
// creates table a (id int64) with one graph commit; the caller owns g.
func rootWithTableA(t *testing.T) (dir string, store *objstore.Local, g *adapters.Graph) {
	t.Helper()
	ctx := context.Background()
	dir = filepath.Join(t.TempDir(), "g")
	if code, _, e := runCmd(t, nil, "init", "--data", dir); code != 0 {
		t.Fatal(e)
	}
	store, err := objstore.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	g, err = adapters.Open(ctx, store, adapters.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Write(ctx, adapters.WriteOptions{}, func(ctx context.Context, s *adapters.Stage) error {
		return s.CreateTable(adapters.TableSpec{Name: "a", Columns: []graph.ColumnSpec{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}})
	}); err != nil {
		t.Fatal(err)
	}
	return dir, store, g
}
