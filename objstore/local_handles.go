package objstore

import (
	"container/list"
	"errors"
	"io"
	"os"
	"sync"
)

// DefaultReadHandles is how many open read handles CacheImmutableReads
// keeps when asked for a non-positive number.
const DefaultReadHandles = 64

// CacheImmutableReads makes GetRange of keys for which immutable reports
// true read through a small LRU of open files (at most max) instead of
// opening, stating and closing the file on every call: a point lookup
// reads a few kilobytes of one or two data files, and the open/fstat/
// close around the pread cost more than the read itself.
//
// The caller promises that an object whose key satisfies immutable is
// never replaced once visible, by any process: its bytes and size are
// fixed (Lance data files have unique names and are written once). This
// process's own Put, PutVolatile and Delete of such a key still drop its
// handle. A handle outlives a Delete by another process: reads of it keep
// answering the object's (unchanged) bytes until the handle is evicted,
// which is harmless for an immutable object and keeps its disk space
// allocated for that long. Call it before the store is shared.
func (l *Local) CacheImmutableReads(immutable func(key string) bool, max int) {
	if max <= 0 {
		max = DefaultReadHandles
	}
	l.handles = &readHandles{immutable: immutable, max: max, byKey: map[string]*list.Element{}}
}

// readHandles is an LRU of open read-only files. A handle is reference
// counted so eviction never closes a file under a concurrent ReadAt.
type readHandles struct {
	immutable func(string) bool
	max       int

	mu    sync.Mutex
	byKey map[string]*list.Element // of *readHandle
	lru   list.List                // front: most recently used
}

type readHandle struct {
	key     string
	f       *os.File
	size    int64
	refs    int  // guarded by readHandles.mu
	evicted bool // no longer in the LRU; closed when refs reaches 0
}

// acquire returns an open handle of key (opening path on a miss) with a
// reference the caller must release. ok=false: key is not cacheable.
func (c *readHandles) acquire(key string, path func(string) string) (h *readHandle, ok bool, err error) {
	if !c.immutable(key) {
		return nil, false, nil
	}
	c.mu.Lock()
	if e, hit := c.byKey[key]; hit {
		h := e.Value.(*readHandle)
		h.refs++
		c.lru.MoveToFront(e)
		c.mu.Unlock()
		return h, true, nil
	}
	c.mu.Unlock()

	f, err := os.Open(path(key))
	if err != nil {
		return nil, true, mapFSError(err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, true, mapFSError(err)
	}
	if st.IsDir() {
		f.Close()
		return nil, true, ErrNotFound
	}
	h = &readHandle{key: key, f: f, size: st.Size(), refs: 1}

	c.mu.Lock()
	defer c.mu.Unlock()
	if e, hit := c.byKey[key]; hit { // another goroutine opened it meanwhile
		f.Close()
		other := e.Value.(*readHandle)
		other.refs++
		c.lru.MoveToFront(e)
		return other, true, nil
	}
	c.byKey[key] = c.lru.PushFront(h)
	for c.lru.Len() > c.max {
		c.evictLocked(c.lru.Back())
	}
	return h, true, nil
}

// release drops a reference taken by acquire.
func (c *readHandles) release(h *readHandle) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h.refs--
	if h.evicted && h.refs == 0 {
		h.f.Close()
	}
}

// drop forgets key's handle (this process replaced or deleted it).
func (c *readHandles) drop(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, hit := c.byKey[key]; hit {
		c.evictLocked(e)
	}
}

func (c *readHandles) evictLocked(e *list.Element) {
	h := e.Value.(*readHandle)
	c.lru.Remove(e)
	delete(c.byKey, h.key)
	h.evicted = true
	if h.refs == 0 {
		h.f.Close()
	}
}

// open reports how many handles are open (tests).
func (c *readHandles) open() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// readRange is GetRange's read of off/length from an open handle.
func (h *readHandle) readRange(off, length int64) ([]byte, error) {
	n, err := clampRange(h.size, off, length)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, n)
	if _, err := h.f.ReadAt(buf, off); err != nil && !(errors.Is(err, io.EOF) && n == 0) {
		return nil, err
	}
	return buf, nil
}
