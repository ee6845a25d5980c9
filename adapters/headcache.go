package adapters

import (
	"context"
	"sync"

	"github.com/pggraph/pggraph/lance"
)

// committedHeads remembers, per table dataset on the main Lance branch,
// the dataset handle a commit of this process just produced, so the next
// write that pins exactly that version stages on it without reading and
// decoding the manifest it wrote (one storage round and the manifest's
// O(fragments) decode per commit).
//
// Why only the main Lance branch: a main-branch version of a dataset is
// written once (PutIfAbsent) and never rewritten — restores and
// compactions add versions, new incarnations use fresh locations — so
// (location, version) names one immutable manifest forever. A graph
// branch's fork tree can be deleted and forked again, reusing version
// numbers for other content, so forks are always opened from storage.
// A lance.Dataset is an immutable snapshot value, safe to share.
type committedHeads struct {
	mu sync.Mutex
	m  map[string]*lance.Dataset // by location
}

const maxCommittedHeads = 256

func (c *committedHeads) remember(ds *lance.Dataset, location, branch string) {
	if c == nil || branch != "" || ds == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCommittedHeads {
		c.m = map[string]*lance.Dataset{}
	}
	if old := c.m[location]; old == nil || old.Version() < ds.Version() {
		c.m[location] = ds
	}
}

// open returns the remembered handle of (location, branch, version), or
// opens it from storage.
func (c *committedHeads) open(ctx context.Context, w *mutationWriter, location, branch string, version uint64) (*lance.Dataset, error) {
	if c != nil && branch == "" {
		c.mu.Lock()
		ds := c.m[location]
		c.mu.Unlock()
		if ds != nil && ds.Version() == version && ds.Branch() == "" && ds.Store() == w.store {
			return ds, nil
		}
	}
	return lance.Open(ctx, w.store, location, w.root.DatasetOptions(location, branch, version))
}
