package graph

import (
	"context"
	"sync"

	"github.com/pggraph/pggraph/lance"
)

// The committed-table cache. A commit of this process produces the
// dataset handle of each table version it wrote (lance builds it from
// the manifest it encoded). Remembering that handle lets the next reader
// or writer of exactly that version — the SQL layer building its catalog
// for the next statement, the next write staging on the table — skip
// reading and decoding the table manifest, which is O(fragments): with
// many small commits that decode dominated a 1-row INSERT.
//
// Why only the main Lance branch: a main-branch version of a dataset is
// written once (PutIfAbsent) and never rewritten — restores and
// compactions add versions, new incarnations use fresh locations — so
// (location, version) names one immutable manifest forever. A graph
// branch's fork tree can be deleted and forked again, reusing version
// numbers for other content, so forks are always opened from storage.
// A lance.Dataset is an immutable snapshot value, safe to share.
type tableCache struct {
	mu sync.Mutex
	m  map[string]*lance.Dataset // by location: the newest remembered version
}

// maxCachedTables bounds the cache (it is reset when full: a cache, not
// an index).
const maxCachedTables = 256

// RememberTable records ds, which a commit of this process just
// produced, as the handle of its table version (location is the entry's
// Location). Handles of other stores and of fork branches are ignored.
func (r *Root) RememberTable(location string, ds *lance.Dataset) {
	if ds == nil || ds.Branch() != "" || ds.Store() != r.store {
		return
	}
	c := &r.tables
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedTables {
		c.m = map[string]*lance.Dataset{}
	}
	if old := c.m[location]; old == nil || old.Version() < ds.Version() {
		c.m[location] = ds
	}
}

// OpenDataset opens the table dataset at location on a Lance branch at
// version (> 0): the remembered handle when it is exactly that version
// of the main branch, else from storage.
func (r *Root) OpenDataset(ctx context.Context, location, branch string, version uint64) (*lance.Dataset, error) {
	if branch == "" && version > 0 {
		c := &r.tables
		c.mu.Lock()
		ds := c.m[location]
		c.mu.Unlock()
		if ds != nil && ds.Version() == version {
			return ds, nil
		}
	}
	return lance.Open(ctx, r.store, location, r.DatasetOptions(location, branch, version))
}

// OpenTable opens a table entry's pinned version (see OpenDataset),
// materializing it first when the pin was published before its Lance
// version was written (Materialize).
func (r *Root) OpenTable(ctx context.Context, e TableEntry) (*lance.Dataset, error) {
	ds, err := r.OpenDataset(ctx, e.Location, e.Branch, e.Version)
	if err != nil && e.Txn != "" && lance.IsNotFound(err) {
		return r.Materialize(ctx, e)
	}
	return ds, err
}
