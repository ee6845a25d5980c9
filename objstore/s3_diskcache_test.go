package objstore_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/objstore/storetest"
)

// diskCachedStore is an S3 store with both cache tiers over dir, every
// ".lance" key immutable, and a small memory tier (so the disk answers).
func diskCachedStore(t *testing.T, ep, prefix, dir string, diskBytes int64) *objstore.S3 {
	t.Helper()
	s := newFakeS3Store(t, ep, prefix, nil)
	s.CacheImmutableReads(func(k string) bool { return strings.HasSuffix(k, ".lance") }, 4<<10)
	if err := s.CacheImmutableReadsOnDisk(dir, diskBytes); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.CloseCache() })
	return s
}

func cacheFiles(t *testing.T, dir string) (n int, bytes int64) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() == "LOCK" {
			continue
		}
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		n++
		bytes += info.Size()
	}
	return n, bytes
}

// TestS3DiskCache: the contract holds with the disk tier; ranges read
// by one process are served to the next process over the same
// directory without a request; a torn or corrupted file is detected and
// read again; the directory stays within its bound, is held by one
// process at a time, and never answers for another bucket or prefix; a
// write by this process drops the key's ranges.
func TestS3DiskCache(t *testing.T) {
	t.Parallel() // own servers, stores and directories; mostly waits on requests
	t.Run("Contract", func(t *testing.T) {
		storetest.RunFlatKeys(t, func(t *testing.T) objstore.Store {
			s := newFakeS3Store(t, fakeS3(t), "c", nil)
			s.CacheImmutableReads(func(string) bool { return true }, 1<<20)
			if err := s.CacheImmutableReadsOnDisk(t.TempDir(), 1<<20); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.CloseCache() })
			return s
		})
	})

	ctx := context.Background()
	ep := fakeS3(t)
	data := bytes.Repeat([]byte("0123456789"), 300) // 3,000 bytes
	writer := newFakeS3Store(t, ep, "g", nil)
	for _, k := range []string{"a.lance", "b.lance", "c.json"} {
		if err := writer.PutIfAbsent(ctx, k, data); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	gets := func(s *objstore.S3) int64 { r := s.Requests(); return r["GET-range"] + r["GET"] }
	read := func(t *testing.T, s *objstore.S3, key string, off, n int64, wantGets int64) {
		t.Helper()
		before := gets(s)
		got, err := s.GetRange(ctx, key, off, n)
		if err != nil {
			t.Fatal(err)
		}
		want := data[off:min(off+n, int64(len(data)))]
		if !bytes.Equal(got, want) {
			t.Fatalf("GetRange(%s, %d, %d) = %q…, want %q…", key, off, n, got[:min(len(got), 10)], want[:min(len(want), 10)])
		}
		if g := gets(s) - before; g != wantGets {
			t.Fatalf("GetRange(%s, %d, %d): %d GET requests, want %d", key, off, n, g, wantGets)
		}
	}

	first := diskCachedStore(t, ep, "g", dir, 1<<20)
	read(t, first, "a.lance", 0, 2000, 1)
	read(t, first, "b.lance", 100, 500, 1)
	read(t, first, "c.json", 0, 100, 1) // not immutable: never cached
	t.Run("OneProcessPerDirectory", func(t *testing.T) {
		s := newFakeS3Store(t, ep, "g", nil)
		s.CacheImmutableReads(func(string) bool { return true }, 1<<10)
		if err := s.CacheImmutableReadsOnDisk(dir, 1<<20); err == nil {
			t.Fatal("a second store opened a disk cache directory in use")
		}
	})
	if err := first.CloseCache(); err != nil {
		t.Fatal(err)
	}

	// the next process: a fresh memory tier, the same directory
	next := diskCachedStore(t, ep, "g", dir, 1<<20)
	read(t, next, "a.lance", 0, 2000, 0)
	read(t, next, "a.lance", 1500, 100, 0) // inside a cached range
	read(t, next, "b.lance", 100, 500, 0)
	read(t, next, "b.lance", 0, 500, 1) // starts before it
	read(t, next, "c.json", 0, 100, 1)
	if h, _ := next.DiskCacheStats(); h < 3 {
		t.Fatalf("disk cache hits = %d, want ≥ 3", h)
	}

	t.Run("OwnWriteDrops", func(t *testing.T) {
		// b.lance's ranges leave both tiers when this store writes it
		if err := next.Put(ctx, "b.lance", data); err != nil {
			t.Fatal(err)
		}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".100.500") || strings.HasSuffix(e.Name(), ".0.500") {
				t.Fatalf("b.lance's range %s is still on disk after this store wrote it", e.Name())
			}
		}
	})
	if err := next.CloseCache(); err != nil {
		t.Fatal(err)
	}

	t.Run("Corrupted", func(t *testing.T) {
		ents, _ := os.ReadDir(dir)
		corrupted := 0
		for _, e := range ents {
			if e.Name() == "LOCK" {
				continue
			}
			p := filepath.Join(dir, e.Name())
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)/2] ^= 0xff // a torn block
			if err := os.WriteFile(p, b, 0o600); err != nil {
				t.Fatal(err)
			}
			corrupted++
		}
		if corrupted == 0 {
			t.Fatal("no cache file to corrupt")
		}
		s := diskCachedStore(t, ep, "g", dir, 1<<20)
		read(t, s, "a.lance", 0, 2000, 1) // detected, read again, right bytes
		read(t, s, "a.lance", 0, 2000, 0) // written back to disk
		if err := s.CloseCache(); err != nil {
			t.Fatal(err)
		}
		s2 := diskCachedStore(t, ep, "g", dir, 1<<20)
		read(t, s2, "a.lance", 0, 2000, 0) // the rewritten file is good
		if err := s2.CloseCache(); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("OtherPrefix", func(t *testing.T) {
		other := newFakeS3Store(t, ep, "h", nil)
		odd := bytes.Repeat([]byte("x"), 3000)
		if err := other.PutIfAbsent(ctx, "a.lance", odd); err != nil {
			t.Fatal(err)
		}
		s := diskCachedStore(t, ep, "h", dir, 1<<20)
		got, err := s.GetRange(ctx, "a.lance", 0, 2000)
		if err != nil || !bytes.Equal(got, odd[:2000]) {
			t.Fatalf("prefix h read another prefix's cached bytes: %q…, %v", got[:10], err)
		}
		if err := s.CloseCache(); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("Bound", func(t *testing.T) {
		small := t.TempDir()
		const bound = 5000
		s := diskCachedStore(t, ep, "g", small, bound)
		for i := range int64(10) {
			read(t, s, "a.lance", i*100, 1000, 1)
			if _, size := cacheFiles(t, small); size > bound {
				t.Fatalf("after %d reads the cache holds %d bytes, bound %d", i+1, size, bound)
			}
		}
		if n, _ := cacheFiles(t, small); n < 2 {
			t.Fatalf("cache holds %d files, want the most recent few", n)
		}
		read(t, s, "a.lance", 900, 1000, 0) // the newest range stayed
		if err := s.CloseCache(); err != nil {
			t.Fatal(err)
		}
		// a smaller bound at the next start evicts the oldest files
		s2 := diskCachedStore(t, ep, "g", small, 2100)
		if _, size := cacheFiles(t, small); size > 2100 {
			t.Fatalf("restart with a smaller bound kept %d bytes", size)
		}
		_ = s2
	})
}
