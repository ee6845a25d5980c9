package objstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pggraph/pggraph/objstore"
)

func isDataKey(k string) bool { return strings.HasPrefix(k, "data/") }

// TestCachedReadHandles: GetRange of an immutable key keeps its file
// open (one handle however often it is read), others are not cached, the
// store's own Put and Delete drop the handle, and the LRU stays bounded.
func TestCachedReadHandles(t *testing.T) {
	ctx := context.Background()
	l := newLocal(t)
	l.CacheImmutableReads(isDataKey, 2)
	put := func(k, v string) {
		t.Helper()
		if err := l.Put(ctx, k, []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	read := func(k string, off, n int64, want string) {
		t.Helper()
		b, err := l.GetRange(ctx, k, off, n)
		if err != nil || string(b) != want {
			t.Fatalf("GetRange(%s, %d, %d) = %q, %v; want %q", k, off, n, b, err, want)
		}
	}
	put("data/a", "alpha")
	put("meta/m", "mutable")
	for i := 0; i < 3; i++ {
		read("data/a", 1, 3, "lph")
		read("meta/m", 0, -1, "mutable")
	}
	if n := objstore.OpenReadHandles(l); n != 1 {
		t.Fatalf("%d open handles after reading one immutable and one mutable key, want 1", n)
	}
	// a mutable key replaced behind the store's back is read fresh
	if err := os.WriteFile(filepath.Join(l.Root(), "meta", "m"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	read("meta/m", 0, -1, "changed")
	// the store's own Put of a cached key drops the stale handle
	put("data/a", "ALPHABET")
	read("data/a", 0, -1, "ALPHABET")
	// and its Delete: the key is gone, not served from the open file
	if err := l.Delete(ctx, "data/a"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.GetRange(ctx, "data/a", 0, 1); !objstore.IsNotFound(err) {
		t.Fatalf("GetRange of a deleted key: %v, want not found", err)
	}
	// bounded: three keys, two handles
	for _, k := range []string{"data/x", "data/y", "data/z"} {
		put(k, k)
		read(k, 0, -1, k)
	}
	if n := objstore.OpenReadHandles(l); n != 2 {
		t.Fatalf("%d open handles, want the bound 2", n)
	}
	read("data/x", 5, -1, "x") // evicted earlier, reopened
	if _, err := l.GetRange(ctx, "data/x", 7, 1); !errors.Is(err, objstore.ErrInvalidRange) {
		t.Fatalf("range past the end: %v, want invalid range", err)
	}
	if _, err := l.GetRange(ctx, "data/missing", 0, 1); !objstore.IsNotFound(err) {
		t.Fatalf("missing key: %v, want not found", err)
	}
}

// TestCachedReadHandlesConcurrentEviction: readers of more keys than
// handles evict each other's files while reading; every read answers
// the right bytes (a handle closed under a reader would fail it).
func TestCachedReadHandlesConcurrentEviction(t *testing.T) {
	ctx := context.Background()
	l := newLocal(t)
	l.CacheImmutableReads(isDataKey, 1)
	const keys = 4
	want := make([][]byte, keys)
	for i := range want {
		want[i] = bytes.Repeat([]byte{byte('a' + i)}, 4096)
		if err := l.PutIfAbsent(ctx, fmt.Sprintf("data/%d", i), want[i]); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 300; i++ {
				k := (g + i) % keys
				b, err := l.GetRange(ctx, fmt.Sprintf("data/%d", k), int64(i%100), 512)
				if err != nil {
					errs <- err
					return
				}
				if !bytes.Equal(b, want[k][:512]) {
					errs <- fmt.Errorf("key %d: wrong bytes", k)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := objstore.OpenReadHandles(l); n > 1 {
		t.Fatalf("%d open handles, want at most 1", n)
	}
}
