package objstore

import (
	"container/list"
	"sync"
)

// DefaultS3CacheBytes bounds the immutable-read cache of an S3 store
// when CacheImmutableReads is given no size.
const DefaultS3CacheBytes = 64 << 20

// CacheImmutableReads keeps the bytes of recent reads (Get and each
// GetRange) of keys immutable accepts in memory, at most maxBytes in all,
// least recently used first out. immutable must accept only keys whose
// object is written once and never rewritten with other bytes (Lance
// data files: a fresh unique name per write). Why: a point read on
// object storage re-reads the same footer and page ranges of a data
// file, each a GET of tens of milliseconds.
//
// This process's own Put, PutIfAbsent and Delete of a key drop its
// cached ranges, and a read that raced such a write is not cached. A
// Delete by another process is not seen: reads of a cached range keep
// answering the object's (unchanged) bytes until evicted, harmless for
// an object no version references any more. Callers get a fresh copy
// of cached bytes (Store's ownership rule). Call it before the store is
// shared.
func (s *S3) CacheImmutableReads(immutable func(key string) bool, maxBytes int64) {
	if maxBytes <= 0 {
		maxBytes = DefaultS3CacheBytes
	}
	s.cache = &rangeCache{immutable: immutable, max: maxBytes, byRange: map[rangeKey]*list.Element{}}
}

type rangeKey struct {
	key      string
	off, len int64 // len -1: to the end (Get: 0, -1)
}

type rangeEntry struct {
	rk   rangeKey
	data []byte
}

// rangeCache is a byte-bounded LRU of object ranges.
type rangeCache struct {
	immutable func(string) bool
	max       int64

	mu      sync.Mutex
	size    int64
	gen     uint64 // bumped by every drop: a read that saw another gen is not cached
	byRange map[rangeKey]*list.Element
	lru     list.List // front: most recently used
	hits    int64
	misses  int64
}

// get returns a copy of the cached range, or the generation to pass to
// put after fetching it.
func (c *rangeCache) get(rk rangeKey) ([]byte, uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byRange[rk]; ok {
		c.lru.MoveToFront(e)
		c.hits++
		return append([]byte(nil), e.Value.(*rangeEntry).data...), 0, true
	}
	c.misses++
	return nil, c.gen, false
}

// put caches a copy of data for rk unless a drop happened since gen.
func (c *rangeCache) put(rk rangeKey, data []byte, gen uint64) {
	n := int64(len(data))
	if n > c.max/4 {
		return // one object must not flush the cache
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if _, ok := c.byRange[rk]; ok {
		return
	}
	c.byRange[rk] = c.lru.PushFront(&rangeEntry{rk: rk, data: append([]byte(nil), data...)})
	c.size += n
	for c.size > c.max {
		c.remove(c.lru.Back())
	}
}

// drop forgets every cached range of key.
func (c *rangeCache) drop(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for rk, e := range c.byRange {
		if rk.key == key {
			c.remove(e)
		}
	}
}

func (c *rangeCache) remove(e *list.Element) {
	ent := e.Value.(*rangeEntry)
	c.lru.Remove(e)
	delete(c.byRange, ent.rk)
	c.size -= int64(len(ent.data))
}

// CacheStats returns the immutable-read cache's hits and misses (0, 0
// without a cache).
func (s *S3) CacheStats() (hits, misses int64) {
	if s.cache == nil {
		return 0, 0
	}
	s.cache.mu.Lock()
	defer s.cache.mu.Unlock()
	return s.cache.hits, s.cache.misses
}

// cachedRead serves rk from the cache when key is immutable, else reads
// it with fetch (caching the answer).
func (s *S3) cachedRead(rk rangeKey, fetch func() ([]byte, error)) ([]byte, error) {
	if s.cache == nil || !s.cache.immutable(rk.key) {
		return fetch()
	}
	b, gen, ok := s.cache.get(rk)
	if ok {
		return b, nil
	}
	b, err := fetch()
	if err == nil {
		s.cache.put(rk, b, gen)
	}
	return b, err
}

func (s *S3) dropCached(key string) {
	if s.cache != nil {
		s.cache.drop(key)
	}
}
