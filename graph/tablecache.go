package graph

import (
	"context"
	"sync"
	"sync/atomic"

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
//
// Published handles. A commit of this process also remembers, right
// after its manifest CAS and before its acknowledgement, the in-memory
// preview of every table version it published but has not materialized
// yet (commit path v2), keyed by the transaction the pin records. Its
// content is exactly what materialization will write: the pin names the
// transaction, the preview is that transaction applied to the pin's
// base, built by the same code (lance.Staged.Preview), and every file it
// references was durable before the CAS. So the next statement reads
// and stages on the published version at once instead of waiting for
// its materialization; a writer that stages on it materializes it before
// its own CAS (docs/architecture.md, "Commit path v2", prefix).
type tableCache struct {
	mu        sync.Mutex
	m         map[string]*lance.Dataset // by location: the newest remembered version
	published map[string]publishedTable // by location: a published, maybe unmaterialized version
	inflight  map[materializeKey]*materializeCall
	// OpenTable calls answered from the cache and from storage
	// (pggraph_table_cache_*_total)
	hits, misses atomic.Int64
}

// TableCacheStats returns how many table opens the committed-table cache
// answered (hits) and how many read the table manifest from storage.
func (r *Root) TableCacheStats() (hits, misses int64) {
	return r.tables.hits.Load(), r.tables.misses.Load()
}

// publishedTable is the preview of a published pin (Version, Txn).
type publishedTable struct {
	txn string
	ds  *lance.Dataset
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
	if p, ok := c.published[location]; ok && p.ds.Version() <= ds.Version() {
		delete(c.published, location)
	}
}

// RememberPublished records preview, the in-memory post-state of the
// transaction e.Txn that a commit of this process has just published as
// e's pin, before that version is materialized (see above). Only
// main-branch pins of this root's store are remembered, like committed
// handles; the caller must have won the manifest CAS that publishes e.
func (r *Root) RememberPublished(e TableEntry, preview *lance.Dataset) {
	if preview == nil || e.Txn == "" || e.Branch != "" || preview.Branch() != "" || preview.Store() != r.store ||
		preview.Version() != e.Version {
		return
	}
	c := &r.tables
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.m[e.Location]; old != nil && old.Version() >= e.Version {
		return // already materialized
	}
	if c.published == nil || len(c.published) >= maxCachedTables {
		c.published = map[string]publishedTable{}
	}
	if old, ok := c.published[e.Location]; !ok || old.ds.Version() < e.Version {
		c.published[e.Location] = publishedTable{txn: e.Txn, ds: preview}
	}
}

// published returns the remembered preview of exactly e's pin.
func (r *Root) published(e TableEntry) *lance.Dataset {
	if e.Txn == "" || e.Branch != "" {
		return nil
	}
	c := &r.tables
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.published[e.Location]; ok && p.txn == e.Txn && p.ds.Version() == e.Version {
		return p.ds
	}
	return nil
}

// OpenDataset opens the table dataset at location on a Lance branch at
// version (> 0): the remembered handle when it is exactly that version
// of the main branch, else from storage.
func (r *Root) OpenDataset(ctx context.Context, location, branch string, version uint64) (*lance.Dataset, error) {
	if ds := r.committed(location, branch, version); ds != nil {
		return ds, nil
	}
	return lance.Open(ctx, r.store, location, r.DatasetOptions(location, branch, version))
}

// committed returns the remembered committed handle of exactly that
// main-branch version (nil if none).
func (r *Root) committed(location, branch string, version uint64) *lance.Dataset {
	if branch != "" || version == 0 {
		return nil
	}
	c := &r.tables
	c.mu.Lock()
	defer c.mu.Unlock()
	if ds := c.m[location]; ds != nil && ds.Version() == version {
		return ds
	}
	return nil
}

// OpenTable opens a table entry's pinned version for reading or for
// staging on it: the remembered committed handle, else this process's
// remembered preview of a published pin (not necessarily materialized
// yet: a writer that stages on it must Materialize it before its own
// CAS), else from storage — materializing it first when the pin was
// published before its Lance version was written (Materialize).
func (r *Root) OpenTable(ctx context.Context, e TableEntry) (*lance.Dataset, error) {
	if ds := r.committed(e.Location, e.Branch, e.Version); ds != nil {
		r.tables.hits.Add(1)
		return ds, nil
	}
	if ds := r.published(e); ds != nil {
		r.tables.hits.Add(1)
		return ds, nil
	}
	r.tables.misses.Add(1)
	ds, err := lance.Open(ctx, r.store, e.Location, r.DatasetOptions(e.Location, e.Branch, e.Version))
	if err != nil && e.Txn != "" && lance.IsNotFound(err) {
		return r.Materialize(ctx, e)
	}
	return ds, err
}

// Materialized reports whether e's pinned version is known, without
// I/O, to exist durably (this process committed or materialized it).
func (r *Root) Materialized(e TableEntry) bool {
	return r.committed(e.Location, e.Branch, e.Version) != nil
}
