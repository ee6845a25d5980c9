package objstore

import (
	"context"
	"time"
)

// maxCachedStats bounds the stats an S3 read cache keeps (about 100 bytes
// each); past it the stats are forgotten all at once.
const maxCachedStats = 1 << 14

// cachedStat answers Stat of a key the read cache covers without a
// request when it can: an immutable key's size never changes, so the
// first HeadObject's answer (or this process's own write of it) holds
// until the key is deleted; a key only its writer rewrites
// (CacheOwnWrites) is answered only when this store wrote it. Why: Lance
// stats a data file before reading its footer, and on object storage
// that HEAD is a dependent round trip of every commit and point read
// (docs/operations.md, "Requests per operation"). Like the cached
// ranges, a Delete by another process is not seen, harmless for an
// object no version references any more.
func (s *S3) cachedStat(ctx context.Context, key string) (ObjectInfo, error) {
	c := s.cache
	if c == nil || !(c.immutable(key) || c.isOwned(key)) {
		return s.stat(ctx, key)
	}
	c.mu.Lock()
	info, ok := c.stats[key]
	gen := c.gen
	c.mu.Unlock()
	if ok {
		return info, nil
	}
	info, err := s.stat(ctx, key)
	if err == nil && c.immutable(key) {
		c.putStat(info, gen)
	}
	return info, err
}

// putStat caches info unless a drop happened since gen.
func (c *rangeCache) putStat(info ObjectInfo, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen == c.gen {
		c.setStatLocked(info)
	}
}

func (c *rangeCache) setStatLocked(info ObjectInfo) {
	if c.stats == nil || len(c.stats) >= maxCachedStats {
		c.stats = map[string]ObjectInfo{}
	}
	c.stats[info.Key] = info
}

// wroteStat records the stat of an object this process has just written:
// its size, and the time of the acknowledgement as its modification
// time (within a request's latency of the server's).
func (c *rangeCache) wroteStat(key string, n int) {
	c.setStatLocked(ObjectInfo{Key: key, Size: int64(n), ModTime: time.Now().UTC()})
}
