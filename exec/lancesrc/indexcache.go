package lancesrc

import (
	"container/list"
	"context"
	"reflect"
	"slices"
	"sync"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
)

// indexCache keeps the key indexes of recently used dataset versions,
// process-wide, so a new version's index is derived from an older one
// (keyIndex.derive) instead of read from scratch: every commit makes a
// new version, and a 1-row INSERT must not rescan the key column.
//
// Entries are per dataset (store, location, Lance branch) and key
// column; each keeps its few most recent versions. Memory is bounded by
// evicting the least recently used datasets once the estimated bytes
// exceed the limit.
type indexCache struct {
	mu      sync.Mutex
	limit   int64
	bytes   int64
	entries map[cacheKey]*cacheEntry
	lru     *list.List // of *cacheEntry, most recently used first
	// spare keeps the most recently used indexes that did not fit
	// (at most spareSlots, one per dataset column): Sources only hold
	// indexes weakly, so a statement probing a large table batch after
	// batch (a COPY of edges checking their nodes) needs them kept
	// somewhere, and the next version derives from them. Older versions'
	// indexes are dropped, so memory stays one index per large table.
	spare []*spareIndex
	// builds and derives count how indexes were made (tests).
	builds, derives int
}

type cacheKey struct {
	store        objstore.Store
	root, branch string
	column, typ  string
}

type cacheEntry struct {
	key  cacheKey
	elem *list.Element
	// build serializes index construction for one dataset, so concurrent
	// sessions wait for one derivation instead of each scanning.
	build sync.Mutex
	// recent are the indexes kept, oldest first (guarded by indexCache.mu).
	recent []*keyIndex
	bytes  int64
}

type spareIndex struct {
	key cacheKey
	idx *keyIndex
}

// spareSlots bounds the oversized indexes kept.
const spareSlots = 2

// keepSpare remembers x (of key) as the newest oversized index of its
// dataset column (guarded by c.mu).
func (c *indexCache) keepSpare(key cacheKey, x *keyIndex) {
	if c.limit <= 0 {
		return // sharing disabled: Sources own their indexes
	}
	c.spare = slices.DeleteFunc(c.spare, func(s *spareIndex) bool { return s.key == key })
	c.spare = append([]*spareIndex{{key: key, idx: x}}, c.spare...)
	if len(c.spare) > spareSlots {
		c.spare = c.spare[:spareSlots]
	}
}

// spareOf returns key's spare index (guarded by c.mu).
func (c *indexCache) spareOf(key cacheKey) *keyIndex {
	for _, s := range c.spare {
		if s.key == key {
			return s.idx
		}
	}
	return nil
}

// keepVersions is how many versions of one dataset stay cached;
// maxDatasets bounds the datasets (an entry also keeps its store alive).
const (
	keepVersions = 4
	maxDatasets  = 256
)

// DefaultIndexCacheBytes is the default memory bound of the shared key
// index cache.
const DefaultIndexCacheBytes = 256 << 20

var sharedIndexes = newIndexCache(DefaultIndexCacheBytes)

func newIndexCache(limit int64) *indexCache {
	return &indexCache{limit: limit, entries: map[cacheKey]*cacheEntry{}, lru: list.New()}
}

// SetIndexCacheLimit bounds the memory of the process-wide key index
// cache (estimated bytes); 0 disables sharing (every Source builds its
// own index).
func SetIndexCacheLimit(bytes int64) {
	c := sharedIndexes
	c.mu.Lock()
	defer c.mu.Unlock()
	c.limit = bytes
	c.evict(nil)
}

// SharedIndexes reports whether the key index of a table with rows rows
// is shared across versions: the cache is enabled and such an index
// fits in it (a larger one would be evicted at once and rebuilt by every
// version, costlier than a plain key scan).
func SharedIndexes(rows int64) bool {
	c := sharedIndexes
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.limit > 0 && rows*estRowBytes <= c.limit
}

// estRowBytes is entryBytes for a typical short key plus map overhead
// (measured: 1M int8 keys took 50 MB of heap as strings); estIntRowBytes
// is an integer key column's (int64 maps: 16 bytes a slot plus the
// map's load and control bytes).
const (
	estRowBytes    = 56
	estIntRowBytes = 32
)

// SharedIndexesFor is SharedIndexes for a key column of type t (integer
// columns' indexes are about half the size).
func SharedIndexesFor(rows int64, t exec.Type) bool {
	per := int64(estRowBytes)
	if t.Kind() == exec.KInt {
		per = estIntRowBytes
	}
	c := sharedIndexes
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.limit > 0 && rows*per <= c.limit
}

// get returns the index of ds's version for col.
func (c *indexCache) get(ctx context.Context, ds *lance.Dataset, col keyColumn) (*keyIndex, error) {
	x, _, err := c.getHeld(ctx, ds, col)
	return x, err
}

// holds reports that the cache keeps an index of ds's dataset column at
// ds's version or an older one.
func (c *indexCache) holds(ds *lance.Dataset, col keyColumn) bool {
	st := ds.Store()
	if st == nil || !reflect.TypeOf(st).Comparable() {
		return false
	}
	key := cacheKey{store: st, root: ds.Root(), branch: ds.Branch(), column: col.name, typ: col.typ.String()}
	c.mu.Lock()
	defer c.mu.Unlock()
	v := ds.Version()
	if e := c.entries[key]; e != nil {
		for _, x := range e.recent {
			if x.version <= v {
				return true
			}
		}
	}
	sp := c.spareOf(key)
	return sp != nil && sp.version <= v
}

// getHeld is get; held reports that the cache keeps the index (shared,
// or in a spare slot) until a newer version of that dataset column
// replaces it, so callers may remember it weakly. It is false when
// sharing is disabled (limit 0) or the store cannot be a cache key:
// then the caller owns the index.
func (c *indexCache) getHeld(ctx context.Context, ds *lance.Dataset, col keyColumn) (*keyIndex, bool, error) {
	st := ds.Store()
	if st == nil || !reflect.TypeOf(st).Comparable() {
		x, err := c.count(buildIndex(ctx, ds, col))
		return x, false, err
	}
	c.mu.Lock()
	held := c.limit > 0
	c.mu.Unlock()
	x, err := c.lookupOrBuild(ctx, ds, col, st)
	return x, held, err
}

// lookupOrBuild finds, derives or builds the index of ds's version.
func (c *indexCache) lookupOrBuild(ctx context.Context, ds *lance.Dataset, col keyColumn, st objstore.Store) (*keyIndex, error) {
	key := cacheKey{store: st, root: ds.Root(), branch: ds.Branch(), column: col.name, typ: col.typ.String()}
	c.mu.Lock()
	e := c.entries[key]
	if e == nil {
		e = &cacheEntry{key: key}
		e.elem = c.lru.PushFront(e)
		c.entries[key] = e
	} else {
		c.lru.MoveToFront(e.elem)
	}
	c.mu.Unlock()

	e.build.Lock()
	defer e.build.Unlock()
	v := ds.Version()
	c.mu.Lock()
	var from *keyIndex
	recent := e.recent
	if sp := c.spareOf(key); sp != nil {
		recent = append(slices.Clip(recent), sp)
	}
	for _, x := range recent {
		if x.version == v {
			c.mu.Unlock()
			return x, nil
		}
		if x.version < v && (from == nil || x.version > from.version) {
			from = x
		}
	}
	c.mu.Unlock()

	var x *keyIndex
	if from != nil {
		nx, ok, err := from.derive(ctx, ds, col)
		if err != nil {
			return nil, err
		}
		if ok {
			x = nx
			c.mu.Lock()
			c.derives++
			c.mu.Unlock()
		}
	}
	if x == nil {
		var err error
		if x, err = c.count(buildIndex(ctx, ds, col)); err != nil {
			return nil, err
		}
	}
	c.add(e, x)
	return x, nil
}

func (c *indexCache) count(x *keyIndex, err error) (*keyIndex, error) {
	if err == nil {
		c.mu.Lock()
		c.builds++
		c.mu.Unlock()
	}
	return x, err
}

// add keeps x among e's recent versions and evicts what exceeds the
// memory bound.
func (c *indexCache) add(e *cacheEntry, x *keyIndex) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries[e.key] != e {
		c.keepSpare(e.key, x) // evicted meanwhile
		return
	}
	e.recent = append(e.recent, x)
	for i := len(e.recent) - 1; i > 0 && e.recent[i].version < e.recent[i-1].version; i-- {
		e.recent[i], e.recent[i-1] = e.recent[i-1], e.recent[i]
	}
	if len(e.recent) > keepVersions {
		e.recent = append([]*keyIndex(nil), e.recent[len(e.recent)-keepVersions:]...)
	}
	// versions derived from one another share their base map: count
	// the largest once plus the others' small maps (an estimate).
	var nb int64
	for _, r := range e.recent {
		nb = max(nb, r.bytes)
	}
	c.bytes += nb - e.bytes
	e.bytes = nb
	c.evict(e)
	if c.entries[e.key] != e {
		c.keepSpare(e.key, x) // too large to share
	} else {
		c.spare = slices.DeleteFunc(c.spare, func(s *spareIndex) bool { return s.key == e.key })
	}
}

// evict drops least recently used datasets until the cache fits; keep
// (the entry just filled) goes last, and goes too if alone too large.
func (c *indexCache) evict(keep *cacheEntry) {
	for (c.bytes > c.limit || c.lru.Len() > maxDatasets) && c.lru.Len() > 0 {
		el := c.lru.Back()
		e := el.Value.(*cacheEntry)
		if e == keep && c.lru.Len() > 1 {
			c.lru.MoveToFront(el)
			continue
		}
		c.lru.Remove(el)
		delete(c.entries, e.key)
		c.bytes -= e.bytes
	}
}
