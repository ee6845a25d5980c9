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

// open returns the remembered handle of (location, branch, version), or
// opens it from storage.
func (c *committedHeads) open(ctx context.Context, w *mutationWriter, location, branch string, version uint64) (*lance.Dataset, error) {
	if c != nil {
		return c.root.OpenDataset(ctx, location, branch, version)
	}
	return lance.Open(ctx, w.store, location, w.root.DatasetOptions(location, branch, version))
}
