package planner

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/objstore"
)

// sharedRoot is one graph root directory that several servers open, as
// separate processes on the same data would: the tests of versioned
// catalog state (types, functions, schemas, graphs) connect to two of
// them, close them all to restart, and connect again.
type sharedRoot struct {
	t      *testing.T
	dir    string
	graphs []*adapters.Graph
}

func newSharedRoot(t *testing.T) *sharedRoot {
	dir := filepath.Join(t.TempDir(), "g")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return &sharedRoot{t: t, dir: dir}
}

// serve opens the root in a new server (creating the root first when
// create) and connects to branch db.
func (r *sharedRoot) serve(create bool, db string) *pgx.Conn {
	t, ctx := r.t, context.Background()
	st, err := objstore.NewLocal(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	g, err := adapters.Open(ctx, st, adapters.Options{Create: create, Actor: "test", Location: r.dir})
	if err != nil {
		t.Fatal(err)
	}
	r.graphs = append(r.graphs, g)
	c, err := pgx.Connect(ctx, startServerOn(t, g).url(db))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// closeAll closes every server's graph (a restart follows).
func (r *sharedRoot) closeAll() {
	for _, g := range r.graphs {
		g.Close()
	}
}
