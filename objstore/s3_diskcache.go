package objstore

import (
	"container/list"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// DefaultS3DiskCacheBytes bounds the on-disk cache of an S3 store when
// CacheImmutableReadsOnDisk is given no size.
const DefaultS3DiskCacheBytes = 1 << 30

// diskCacheTrailer ends every cache file: the CRC-32C of the bytes before
// it and a magic number. The files are written without fsync (the cache
// holds nothing durable), so a crash or power loss may leave a renamed
// file with missing or zeroed blocks; the trailer tells such a file from a
// good one, and a bad file is removed and read from S3 again.
const (
	diskCacheTrailer = 8
	diskCacheMagic   = 0x70676331 // "pgc1"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// diskCache is the second tier of an S3 store's immutable-read cache:
// ranges of immutable objects in files under one local directory, at most
// max bytes in all, least recently used first out. It outlives the
// process: a restarted pgproxy finds the ranges it read before and serves
// them without a request. Why: after a restart (or with a working set
// larger than memory) every page of every data file would otherwise be a
// GET again, tens of milliseconds each.
//
// A file's name is the hash of the store's identity (endpoint, bucket,
// prefix) and the object key, then the range: "<hash>.<off>.<len|end>".
// The identity in the hash keeps one directory safe across buckets and
// servers; the directory is locked (flock) by one process at a time, so
// the byte bound holds.
type diskCache struct {
	dir   string
	ns    string
	max   int64
	lockF *os.File

	mu     sync.Mutex
	size   int64
	byName map[string]*list.Element
	byHash map[string]map[string]*list.Element // key hash → its entries by name
	lru    list.List                           // front: most recently used
	hits   int64
	misses int64
}

type diskEntry struct {
	hash string
	rk   rangeKey // rk.key unused: the hash stands for it
	n    int64    // bytes of data (the file holds n + diskCacheTrailer)
	name string
}

// CacheImmutableReadsOnDisk adds a cache on local disk under dir, at most
// maxBytes, below the in-memory cache of CacheImmutableReads (which it
// needs, and which decides what is immutable): a read the memory misses is
// looked up on disk before S3 is asked, and what S3 answers is kept in
// both. Writes and deletes of this process drop the key's ranges from
// both tiers. The directory is created if missing and locked for this
// process; files left by an earlier process under the same directory are
// reused (those of a torn write are detected by their checksum). Call it
// before the store is shared.
func (s *S3) CacheImmutableReadsOnDisk(dir string, maxBytes int64) error {
	if s.cache == nil {
		return errors.New("objstore: s3: the disk cache needs CacheImmutableReads")
	}
	if maxBytes <= 0 {
		maxBytes = DefaultS3DiskCacheBytes
	}
	d, err := openDiskCache(dir, s.endpoint+"\x00"+s.location, maxBytes)
	if err != nil {
		return err
	}
	s.disk = d
	return nil
}

func openDiskCache(dir, ns string, max int64) (*diskCache, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("objstore: disk cache: %w", err)
	}
	lockF, err := os.OpenFile(filepath.Join(dir, "LOCK"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("objstore: disk cache: %w", err)
	}
	if err := syscall.Flock(int(lockF.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lockF.Close()
		return nil, fmt.Errorf("objstore: disk cache %s is in use by another process: %w", dir, err)
	}
	d := &diskCache{dir: dir, ns: ns, max: max, lockF: lockF, byName: map[string]*list.Element{}, byHash: map[string]map[string]*list.Element{}}
	if err := d.load(); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// Close releases the directory's lock.
func (d *diskCache) Close() error {
	if d == nil || d.lockF == nil {
		return nil
	}
	err := d.lockF.Close()
	d.lockF = nil
	return err
}

// load indexes the files an earlier process left, oldest first, evicting
// beyond the bound, and removes half-written temporaries.
func (d *diskCache) load() error {
	ents, err := os.ReadDir(d.dir)
	if err != nil {
		return fmt.Errorf("objstore: disk cache: %w", err)
	}
	type found struct {
		e   *diskEntry
		mod time.Time
	}
	var all []found
	for _, de := range ents {
		name := de.Name()
		if name == "LOCK" || de.IsDir() {
			continue
		}
		e, ok := parseDiskCacheName(name)
		info, ierr := de.Info()
		if !ok || ierr != nil || info.Size() < diskCacheTrailer {
			_ = os.Remove(filepath.Join(d.dir, name))
			continue
		}
		e.n = info.Size() - diskCacheTrailer
		all = append(all, found{e, info.ModTime()})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].mod.Before(all[j].mod) })
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, f := range all {
		d.insertLocked(f.e)
	}
	return nil
}

func (d *diskCache) keyHash(key string) string {
	h := sha256.Sum256([]byte(d.ns + "\x00" + key))
	return hex.EncodeToString(h[:16])
}

func diskCacheName(hash string, rk rangeKey) string {
	l := "end"
	if rk.len >= 0 {
		l = strconv.FormatInt(rk.len, 10)
	}
	return hash + "." + strconv.FormatInt(rk.off, 10) + "." + l
}

func parseDiskCacheName(name string) (*diskEntry, bool) {
	parts := strings.Split(name, ".")
	if len(parts) != 3 || len(parts[0]) != 32 {
		return nil, false
	}
	if _, err := hex.DecodeString(parts[0]); err != nil {
		return nil, false
	}
	off, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || off < 0 {
		return nil, false
	}
	l := int64(-1)
	if parts[2] != "end" {
		if l, err = strconv.ParseInt(parts[2], 10, 64); err != nil || l < 0 {
			return nil, false
		}
	}
	return &diskEntry{hash: parts[0], rk: rangeKey{off: off, len: l}, name: name}, true
}

// get returns the bytes of rk from a cached file holding them all.
func (d *diskCache) get(rk rangeKey) ([]byte, bool) {
	hash := d.keyHash(rk.key)
	d.mu.Lock()
	var hit *diskEntry
	var lo, hi int64
	for _, el := range d.byHash[hash] {
		e := el.Value.(*diskEntry)
		if l, h, ok := rangeWithin(e.rk, e.n, rk); ok {
			hit, lo, hi = e, l, h
			d.lru.MoveToFront(el)
			break
		}
	}
	if hit == nil {
		d.misses++
		d.mu.Unlock()
		return nil, false
	}
	d.mu.Unlock()
	data, ok := d.readFile(hit)
	d.mu.Lock()
	defer d.mu.Unlock()
	if !ok {
		if el, present := d.byName[hit.name]; present && el.Value.(*diskEntry) == hit {
			d.removeLocked(el)
		}
		d.misses++
		return nil, false
	}
	d.hits++
	return data[lo:hi], true
}

// readFile reads and checks one cache file; a file that is gone, short
// or fails its checksum reports false (and is removed by the caller).
func (d *diskCache) readFile(e *diskEntry) ([]byte, bool) {
	path := filepath.Join(d.dir, e.name)
	b, err := os.ReadFile(path)
	if err != nil || int64(len(b)) != e.n+diskCacheTrailer {
		return nil, false
	}
	body, tr := b[:e.n], b[e.n:]
	if binary.LittleEndian.Uint32(tr[4:]) != diskCacheMagic || binary.LittleEndian.Uint32(tr[:4]) != crc32.Checksum(body, castagnoli) {
		return nil, false
	}
	now := time.Now()
	_ = os.Chtimes(path, now, now) // the next process's LRU order
	return body, true
}

// put stores data as the bytes of rk (as read from S3) unless a file
// already holds that range or the range alone exceeds a quarter of the
// bound.
func (d *diskCache) put(rk rangeKey, data []byte) {
	n := int64(len(data))
	if n > d.max/4 {
		return
	}
	hash := d.keyHash(rk.key)
	e := &diskEntry{hash: hash, rk: rangeKey{off: rk.off, len: rk.len}, n: n, name: diskCacheName(hash, rk)}
	d.mu.Lock()
	_, present := d.byName[e.name]
	d.mu.Unlock()
	if present {
		return
	}
	if err := d.writeFile(e.name, data); err != nil {
		return // a cache that cannot write only costs requests
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, present := d.byName[e.name]; present {
		return
	}
	d.insertLocked(e)
}

// writeFile writes data and its trailer under a temporary name and
// renames it into place, so no reader sees a partial file while this
// process runs.
func (d *diskCache) writeFile(name string, data []byte) error {
	f, err := os.CreateTemp(d.dir, "tmp-*")
	if err != nil {
		return err
	}
	var tr [diskCacheTrailer]byte
	binary.LittleEndian.PutUint32(tr[:4], crc32.Checksum(data, castagnoli))
	binary.LittleEndian.PutUint32(tr[4:], diskCacheMagic)
	_, err = f.Write(data)
	if err == nil {
		_, err = f.Write(tr[:])
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(d.dir, name))
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}

func (d *diskCache) insertLocked(e *diskEntry) {
	el := d.lru.PushFront(e)
	d.byName[e.name] = el
	if d.byHash[e.hash] == nil {
		d.byHash[e.hash] = map[string]*list.Element{}
	}
	d.byHash[e.hash][e.name] = el
	d.size += e.n + diskCacheTrailer
	for d.size > d.max && d.lru.Len() > 0 {
		d.removeLocked(d.lru.Back())
	}
}

// removeLocked forgets an entry and deletes its file.
func (d *diskCache) removeLocked(el *list.Element) {
	e := el.Value.(*diskEntry)
	d.lru.Remove(el)
	delete(d.byName, e.name)
	if m := d.byHash[e.hash]; m != nil {
		delete(m, e.name)
		if len(m) == 0 {
			delete(d.byHash, e.hash)
		}
	}
	d.size -= e.n + diskCacheTrailer
	_ = os.Remove(filepath.Join(d.dir, e.name))
}

// drop forgets every cached range of key (this process wrote or deleted
// it).
func (d *diskCache) drop(key string) {
	hash := d.keyHash(key)
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, el := range d.byHash[hash] {
		d.removeLocked(el)
	}
}

// stats returns hits, misses and the bytes held.
func (d *diskCache) stats() (hits, misses, size int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.hits, d.misses, d.size
}

// DiskCacheStats returns the on-disk cache's hits and misses (0, 0
// without one).
func (s *S3) DiskCacheStats() (hits, misses int64) {
	if s.disk == nil {
		return 0, 0
	}
	h, m, _ := s.disk.stats()
	return h, m
}

// CloseCache releases the on-disk cache's directory lock (a no-op
// without one); the store must not be used afterwards.
func (s *S3) CloseCache() error { return s.disk.Close() }
