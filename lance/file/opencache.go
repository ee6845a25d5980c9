package file

import (
	"container/list"
	"context"
	"sync"
	"sync/atomic"

	"github.com/pggraph/pggraph/objstore"
)

// OpenCached is Open through a process-wide cache of opened files, for
// readers of immutable files (Lance data files are never rewritten in
// place: every write gets a new name). A hit costs no read at all —
// neither the Stat nor the footer/metadata read — and shares the cached
// Reader's per-page metadata (chunk tables, dictionaries: see sparse.go),
// so repeated point reads of one file fetch only the chunks they need.
//
// size, when non-zero, is the file's expected size (e.g. a DataFile's
// file_size_bytes): a cached reader of another size is reopened. Files
// are keyed by the store (unwrapped down to the backend, so wrappers made
// per transaction share entries) and key. The cache keeps at most
// openCacheFiles readers (least recently used go first) and
// openCacheAuxBytes of per-page metadata over all of them.
func OpenCached(ctx context.Context, store objstore.Store, key string, size uint64) (*Reader, error) {
	id, ok := objstore.Backend(store)
	if !ok {
		return Open(ctx, store, key)
	}
	k := openKey{store: id, key: key}
	if r := openCache.get(k, size); r != nil {
		return r.withSource(storeSource{store, key}), nil
	}
	r, err := Open(ctx, store, key)
	if err != nil {
		return nil, err
	}
	r.aux = &auxCache{shared: &openCache.auxUsed, limit: openCacheAuxBytes}
	openCache.put(k, r)
	return r, nil
}

const (
	openCacheFiles    = 256
	openCacheAuxBytes = 64 << 20
)

type openKey struct {
	store objstore.Store
	key   string
}

type openEntry struct {
	k openKey
	r *Reader
}

type readerCache struct {
	mu      sync.Mutex
	byKey   map[openKey]*list.Element
	lru     list.List // front = most recently used
	auxUsed atomic.Int64
}

var openCache = &readerCache{byKey: map[openKey]*list.Element{}}

func (c *readerCache) get(k openKey, size uint64) *Reader {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.byKey[k]
	if e == nil {
		return nil
	}
	r := e.Value.(*openEntry).r
	if size != 0 && r.size != size {
		c.remove(e)
		return nil
	}
	c.lru.MoveToFront(e)
	return r
}

func (c *readerCache) put(k openKey, r *Reader) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.byKey[k]; e != nil {
		c.remove(e)
	}
	c.byKey[k] = c.lru.PushFront(&openEntry{k: k, r: r})
	for c.lru.Len() > openCacheFiles {
		c.remove(c.lru.Back())
	}
}

func (c *readerCache) remove(e *list.Element) {
	oe := e.Value.(*openEntry)
	c.lru.Remove(e)
	delete(c.byKey, oe.k)
	oe.r.aux.release()
}

// withSource is a copy of r reading through src (sharing r's metadata
// and aux cache).
func (r *Reader) withSource(src source) *Reader {
	cp := *r
	cp.src = src
	return &cp
}
