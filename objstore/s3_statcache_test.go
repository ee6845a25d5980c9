package objstore_test

import (
	"context"
	"strings"
	"testing"
)

// TestS3CachedStats: a Stat of an immutable key this store wrote, or
// stat'ed before, costs no request; a Stat of a key only its writer
// rewrites is answered only after this store's own write; a Delete
// forgets the answer (the next Stat is NotFound from the server).
func TestS3CachedStats(t *testing.T) {
	ctx := context.Background()
	ep := fakeS3(t)
	writer := newFakeS3Store(t, ep, "g", nil)
	other := newFakeS3Store(t, ep, "g", nil) // another process on the root
	for _, s := range []interface {
		CacheImmutableReads(func(string) bool, int64)
		CacheOwnWrites(func(string) bool)
	}{writer, other} {
		s.CacheImmutableReads(func(k string) bool { return strings.HasSuffix(k, ".lance") }, 1<<20)
		s.CacheOwnWrites(func(k string) bool { return strings.HasSuffix(k, ".txn") })
	}
	heads := func(s interface{ Requests() map[string]int64 }) int64 { return s.Requests()["HEAD"] }
	if err := writer.PutIfAbsent(ctx, "d/a.lance", []byte("12345")); err != nil {
		t.Fatal(err)
	}
	if err := writer.Put(ctx, "t/1.txn", []byte("123")); err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct {
		who   string
		key   string
		size  int64
		heads int64 // HEAD requests this Stat costs
	}{
		{"writer", "d/a.lance", 5, 0}, // own write of an immutable key
		{"writer", "t/1.txn", 3, 0},   // own write of an owned key
		{"other", "d/a.lance", 5, 1},  // first Stat: one HEAD
		{"other", "d/a.lance", 5, 0},  // then cached
		{"other", "t/1.txn", 3, 1},    // owned by another process: always asked
		{"other", "t/1.txn", 3, 1},
	} {
		s := writer
		if c.who == "other" {
			s = other
		}
		before := heads(s)
		info, err := s.Stat(ctx, c.key)
		if err != nil || info.Size != c.size || info.ModTime.IsZero() || info.Key != c.key {
			t.Fatalf("%d: %s Stat(%s) = %+v, %v", i, c.who, c.key, info, err)
		}
		if n := heads(s) - before; n != c.heads {
			t.Fatalf("%d: %s Stat(%s) sent %d HEADs, want %d", i, c.who, c.key, n, c.heads)
		}
	}
	if err := other.Delete(ctx, "d/a.lance"); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Stat(ctx, "d/a.lance"); err == nil {
		t.Fatal("Stat after this store's Delete answered from the cache")
	}
}
