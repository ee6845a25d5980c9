package adapters

import (
	"context"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
)

// committedHeads shares the dataset handles this process's commits
// produced (graph.Root's committed-table cache: graph/tablecache.go says
// why only main-branch versions are cached), so the next write that pins
// exactly that version stages on it without reading and decoding the
// table manifest it wrote (one storage round and an O(fragments) decode
// per commit), and so does the SQL layer's catalog (Root.OpenTable). A
// nil *committedHeads (the benchmark baseline) always opens from
// storage and remembers nothing.
type committedHeads struct{ root *graph.Root }

func (c *committedHeads) remember(ds *lance.Dataset, location, branch string) {
	if c == nil || branch != "" {
		return
	}
	c.root.RememberTable(location, ds)
}

// open returns the remembered handle of a table entry's pinned version,
// or opens it from storage — materializing it first when its pin was
// published before the version was written (graph.Root.Materialize: a
// writer stages only on a materialized base, the prefix obligation of
// commit path v2).
func (c *committedHeads) open(ctx context.Context, w *mutationWriter, e graph.TableEntry) (*lance.Dataset, error) {
	if c != nil {
		return c.root.OpenTable(ctx, e)
	}
	ds, err := lance.Open(ctx, w.store, e.Location, w.root.DatasetOptions(e.Location, e.Branch, e.Version))
	if err != nil && e.Txn != "" && lance.IsNotFound(err) {
		return w.root.Materialize(ctx, e)
	}
	return ds, err
}
