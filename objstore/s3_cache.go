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
// A read is served from any cached range that holds it: a page inside a
// footer or a whole small file read before costs no request. This
// process's own successful Put and PutIfAbsent of an immutable key
// replace its cached ranges with the written object (a point read of a
// row this process just committed fetches nothing); other writes and
// Deletes drop them, and a read that raced any of them is not cached. A
// Delete by another process is not seen: reads of a cached range keep
// answering the object's (unchanged) bytes until evicted, harmless for
// an object no version references any more. Callers get a fresh copy
// of cached bytes (Store's ownership rule). Call it before the store is
// shared.
func (s *S3) CacheImmutableReads(immutable func(key string) bool, maxBytes int64) {
	if maxBytes <= 0 {
		maxBytes = DefaultS3CacheBytes
	}
	s.cache = &rangeCache{immutable: immutable, max: maxBytes, byRange: map[rangeKey]*list.Element{}, byKey: map[string]map[rangeKey]*list.Element{}}
}

// CacheOwnWrites also caches, whole, the objects this store writes under
// keys owned accepts, and serves this store's reads of them from the
// cache until they are evicted or written again (it needs
// CacheImmutableReads for the cache and its bound). owned must accept
// only keys no other process writes with other bytes, though this
// process may rewrite them (Lance transaction files: a unique name per
// transaction, rewritten only by the committer that created it). Reads
// of such keys that this store did not write are not cached: another
// process's object of that kind may still change. Why: a committer reads
// back the transaction file it has just written.
func (s *S3) CacheOwnWrites(owned func(key string) bool) {
	if s.cache != nil {
		s.cache.owned = owned
	}
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
	owned     func(string) bool // nil: none (CacheOwnWrites)
	max       int64

	mu      sync.Mutex
	size    int64
	gen     uint64 // bumped by every drop: a read that saw another gen is not cached
	byRange map[rangeKey]*list.Element
	byKey   map[string]map[rangeKey]*list.Element // the same entries, by object
	lru     list.List                             // front: most recently used
	stats   map[string]ObjectInfo                 // Stat answers (s3_statcache.go)
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
	for _, e := range c.byKey[rk.key] {
		if b, ok := e.Value.(*rangeEntry).slice(rk); ok {
			c.lru.MoveToFront(e)
			c.hits++
			return append([]byte(nil), b...), 0, true
		}
	}
	c.misses++
	return nil, c.gen, false
}

// slice returns the bytes of want inside the cached range, if it holds
// them all (rangeWithin).
func (e *rangeEntry) slice(want rangeKey) ([]byte, bool) {
	lo, hi, ok := rangeWithin(e.rk, int64(len(e.data)), want)
	if !ok {
		return nil, false
	}
	return e.data[lo:hi], true
}

// rangeWithin locates want inside a cached range have of n bytes: the
// offsets [lo, hi) of its bytes in the cached ones, if they are all
// there. Ranges are GetRange's: one that runs past the object's end is
// truncated there, so a cached range shorter than asked for (or a whole
// object) also tells where the object ends. Empty ranges and offsets at
// or past the end are left to the server, which knows the edge cases'
// answers.
func rangeWithin(have rangeKey, n int64, want rangeKey) (lo, hi int64, ok bool) {
	end := have.off + n                   // of the cached bytes
	atEnd := have.len < 0 || n < have.len // end is the object's end
	if want.len == 0 || want.off < have.off || want.off >= end {
		return 0, 0, false
	}
	if want.len < 0 {
		if !atEnd {
			return 0, 0, false
		}
		return want.off - have.off, n, true
	}
	stop := want.off + want.len
	if stop > end {
		if !atEnd {
			return 0, 0, false
		}
		stop = end
	}
	return want.off - have.off, stop - have.off, true
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
	c.insert(rk, data)
}

// insert caches a copy of data for rk (not cached yet), evicting the
// least recently used ranges beyond the bound. c.mu is held.
func (c *rangeCache) insert(rk rangeKey, data []byte) {
	e := c.lru.PushFront(&rangeEntry{rk: rk, data: append([]byte(nil), data...)})
	c.byRange[rk] = e
	if c.byKey[rk.key] == nil {
		c.byKey[rk.key] = map[rangeKey]*list.Element{}
	}
	c.byKey[rk.key][rk] = e
	c.size += int64(len(data))
	for c.size > c.max {
		c.remove(c.lru.Back())
	}
}

// written records this process's successful write of data under key:
// the object is now exactly data, so its old ranges go and data is
// cached whole (unless it is too large to cache), and a read that raced
// the write is not cached.
func (c *rangeCache) written(key string, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropLocked(key)
	c.wroteStat(key, len(data))
	if int64(len(data)) <= c.max/4 {
		c.insert(rangeKey{key, 0, -1}, data)
	}
}

// drop forgets every cached range of key.
func (c *rangeCache) drop(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropLocked(key)
}

func (c *rangeCache) dropLocked(key string) {
	c.gen++
	delete(c.stats, key)
	for _, e := range c.byKey[key] {
		c.remove(e)
	}
}

func (c *rangeCache) remove(e *list.Element) {
	ent := e.Value.(*rangeEntry)
	c.lru.Remove(e)
	delete(c.byRange, ent.rk)
	if m := c.byKey[ent.rk.key]; m != nil {
		delete(m, ent.rk)
		if len(m) == 0 {
			delete(c.byKey, ent.rk.key)
		}
	}
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
	if s.cache == nil {
		return fetch()
	}
	if !s.cache.immutable(rk.key) {
		if s.cache.isOwned(rk.key) {
			// served only if this store wrote it; never filled by reads
			if b, _, ok := s.cache.get(rk); ok {
				return b, nil
			}
		}
		return fetch()
	}
	b, gen, ok := s.cache.get(rk)
	if ok {
		return b, nil
	}
	if s.disk != nil {
		if b, ok := s.disk.get(rk); ok {
			s.cache.put(rk, b, gen)
			return b, nil
		}
	}
	b, err := fetch()
	if err == nil {
		s.cache.put(rk, b, gen)
		if s.disk != nil && s.cache.unchangedSince(gen) {
			s.disk.put(rk, b)
		}
	}
	return b, err
}

// unchangedSince reports whether no drop happened since gen: a read that
// raced a write or delete of this process is not cached.
func (c *rangeCache) unchangedSince(gen uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen == gen
}

func (c *rangeCache) isOwned(key string) bool { return c.owned != nil && c.owned(key) }

func (s *S3) dropCached(key string) {
	if s.cache != nil {
		s.cache.drop(key)
	}
	if s.disk != nil {
		s.disk.drop(key)
	}
}

// afterWrite updates the cache after this process wrote data under key:
// a successful write of an immutable key caches the object, any other
// outcome (a lost PutIfAbsent, an error that may or may not have
// written) only drops the key's ranges.
func (s *S3) afterWrite(key string, data []byte, err error) {
	switch {
	case s.cache == nil:
	case err == nil && (s.cache.immutable(key) || s.cache.isOwned(key)):
		s.cache.written(key, data)
		if s.disk != nil {
			// the disk keeps what reads fetch; an own write may be read
			// by nobody, so it only drops stale ranges there
			s.disk.drop(key)
		}
	default:
		s.dropCached(key)
	}
}
