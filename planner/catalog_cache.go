package planner

import (
	"context"
	"errors"
	"sync"
)

var errCatalogBuildAborted = errors.New("catalog build aborted")

// catalogCache shares built catalogs across the sessions of a Backend,
// keyed by snapshot (branch, incarnation, manifest version; as-of views
// apart). A snapshot is immutable, so its catalog never goes stale and
// needs no invalidation: a schema change or any commit is a new manifest
// version, hence a new key. Without sharing, every session rebuilt the
// catalog of every head it saw, so with N concurrent writers each commit
// cost N catalog builds; now it costs one, and concurrent sessions
// asking for the same snapshot wait for the one build in flight.
type catalogCache struct {
	mu      sync.Mutex
	entries map[catKey]*catalogEntry
	order   []catKey // insertion order, oldest first (eviction)
}

// catalogEntry is one snapshot's catalog, or its build in flight (done
// open); a failed build is not kept.
type catalogEntry struct {
	done chan struct{}
	c    *catalog
	err  error
}

// catalogCacheMax bounds the catalogs kept: the heads of a few branches,
// the snapshots of open transactions, and some history. Each holds only
// table definitions shared through tableCache, so an entry is small.
const catalogCacheMax = 32

// get returns the catalog of key, building it with build when no session
// has (one build per key at a time; a waiter whose ctx ends stops
// waiting).
func (cc *catalogCache) get(ctx context.Context, key catKey, build func() (*catalog, error)) (*catalog, error) {
	if cc == nil {
		return build()
	}
	cc.mu.Lock()
	if e, ok := cc.entries[key]; ok {
		cc.mu.Unlock()
		select {
		case <-e.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if e.err == nil {
			return e.c, nil
		}
		// the build in flight failed (perhaps only its ctx ended): try
		// again on this session's ctx
		return cc.retry(key, e, build)
	}
	e := cc.start(key)
	cc.mu.Unlock()
	return cc.finish(key, e, build)
}

func (cc *catalogCache) retry(key catKey, failed *catalogEntry, build func() (*catalog, error)) (*catalog, error) {
	cc.mu.Lock()
	if e, ok := cc.entries[key]; ok && e != failed {
		cc.mu.Unlock()
		<-e.done
		if e.err == nil {
			return e.c, nil
		}
		return build()
	}
	e := cc.start(key)
	cc.mu.Unlock()
	return cc.finish(key, e, build)
}

// start registers a build of key; cc.mu is held.
func (cc *catalogCache) start(key catKey) *catalogEntry {
	if cc.entries == nil {
		cc.entries = map[catKey]*catalogEntry{}
	}
	for len(cc.order) >= catalogCacheMax {
		delete(cc.entries, cc.order[0])
		cc.order = cc.order[1:]
	}
	e := &catalogEntry{done: make(chan struct{})}
	cc.entries[key] = e
	cc.order = append(cc.order, key)
	return e
}

func (cc *catalogCache) finish(key catKey, e *catalogEntry, build func() (*catalog, error)) (*catalog, error) {
	defer close(e.done)
	e.err = errCatalogBuildAborted // until build returns (a panic)
	e.c, e.err = build()
	if e.err != nil {
		cc.mu.Lock()
		if cc.entries[key] == e {
			delete(cc.entries, key)
			if i := indexKey(cc.order, key); i >= 0 {
				cc.order = append(cc.order[:i], cc.order[i+1:]...)
			}
		}
		cc.mu.Unlock()
	}
	return e.c, e.err
}

func indexKey(ks []catKey, k catKey) int {
	for i := range ks {
		if ks[i] == k {
			return i
		}
	}
	return -1
}
