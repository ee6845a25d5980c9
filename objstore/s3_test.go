package objstore_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/objstore/storetest"
)

// fakeS3 is an in-process S3 server (gofakes3 on its in-memory backend,
// whose conditional PutObject is checked and applied under one lock).
func fakeS3(t *testing.T) string {
	t.Helper()
	faker := gofakes3.New(s3mem.New(), gofakes3.WithAutoBucket(true))
	srv := httptest.NewServer(faker.Server())
	t.Cleanup(srv.Close)
	return srv.URL
}

func newFakeS3Store(t *testing.T, endpoint, prefix string, tweak func(*objstore.S3Options)) *objstore.S3 {
	t.Helper()
	o := objstore.S3Options{
		Bucket: "pggraph", Prefix: prefix, Endpoint: endpoint, PathStyle: true, Region: "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
	}
	if tweak != nil {
		tweak(&o)
	}
	s, err := objstore.NewS3(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateBucket(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestS3ContractFake(t *testing.T) {
	t.Parallel() // own server, store and directory; mostly waits on requests and fsyncs
	// under a two-segment prefix; the empty prefix (the whole bucket) is
	// TestS3PrefixIsolation's
	storetest.RunFlatKeys(t, func(t *testing.T) objstore.Store {
		return newFakeS3Store(t, fakeS3(t), "graphs/g1", nil)
	})
}

// TestS3CachedReads: the contract holds with every key cached as
// immutable, a cached range costs no request until it is dropped or
// evicted, a range inside a cached one is served from it, and this
// store's own successful writes of an immutable key are cached whole
// (a lost PutIfAbsent is not: the winner's bytes are read).
func TestS3CachedReads(t *testing.T) {
	t.Parallel() // own server, store and directory; mostly waits on requests and fsyncs
	t.Run("Contract", func(t *testing.T) {
		storetest.RunFlatKeys(t, func(t *testing.T) objstore.Store {
			s := newFakeS3Store(t, fakeS3(t), "c", nil)
			s.CacheImmutableReads(func(string) bool { return true }, 1<<20)
			return s
		})
	})
	ctx := context.Background()
	ep := fakeS3(t)
	s := newFakeS3Store(t, ep, "c", nil)
	s.CacheImmutableReads(func(k string) bool { return strings.HasSuffix(k, ".lance") }, 4000)
	other := newFakeS3Store(t, ep, "c", nil) // another process on the same prefix
	data := bytes.Repeat([]byte("0123456789"), 100)
	for _, k := range []string{"a.lance", "b.json", "c.lance"} {
		if err := other.PutIfAbsent(ctx, k, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := other.PutIfAbsent(ctx, "d.lance", []byte("theirs")); err != nil {
		t.Fatal(err)
	}
	reads := func() int64 { r := s.Requests(); return r["GET-range"] + r["GET"] }
	getRange := func(key string, off, n int64, want []byte) func() error {
		return func() error {
			got, err := s.GetRange(ctx, key, off, n)
			if err == nil && !bytes.Equal(got, want) {
				err = fmt.Errorf("GetRange(%s, %d, %d) = %q, want %q", key, off, n, got, want)
			}
			return err
		}
	}
	steps := []struct {
		do        func() error
		wantFetch int64 // GET and GET-range requests this step sends
		wantErr   bool
	}{
		{getRange("a.lance", 10, 20, data[10:30]), 1, false},
		{getRange("a.lance", 10, 20, data[10:30]), 0, false}, // cached
		{getRange("a.lance", 12, 5, data[12:17]), 0, false},  // inside a cached range
		{getRange("a.lance", 10, 21, data[10:31]), 1, false}, // runs past it
		{getRange("b.json", 10, 20, data[10:30]), 1, false},
		{getRange("b.json", 10, 20, data[10:30]), 1, false}, // not immutable
		{func() error { return s.Put(ctx, "a.lance", data) }, 0, false},
		{getRange("a.lance", 10, 20, data[10:30]), 0, false},  // our own write, cached whole
		{getRange("a.lance", 990, 100, data[990:]), 0, false}, // truncated at the object's end
		{func() error { _, err := s.Get(ctx, "a.lance"); return err }, 0, false},
		{getRange("a.lance", 1000, 1, nil), 1, false}, // at the end: left to the server (empty)
		{func() error { return s.Put(ctx, "b.json", data) }, 0, false},
		{getRange("b.json", 10, 20, data[10:30]), 1, false}, // not immutable: never cached
		{func() error { // a lost create caches nothing: the winner's bytes are read
			if err := s.PutIfAbsent(ctx, "d.lance", []byte("mine")); !objstore.IsExists(err) {
				return fmt.Errorf("lost PutIfAbsent: %v", err)
			}
			got, err := s.Get(ctx, "d.lance")
			if err == nil && string(got) != "theirs" {
				err = fmt.Errorf("after a lost PutIfAbsent Get = %q, want the winner's", got)
			}
			return err
		}, 1, false},
		{func() error { // 3 × 998 bytes of c.lance: 4000 bytes with a.lance and d.lance
			for i := range 3 {
				if _, err := s.GetRange(ctx, "c.lance", int64(i), 998); err != nil {
					return err
				}
			}
			return nil
		}, 3, false},
		{getRange("a.lance", 10, 20, data[10:30]), 0, false}, // still within the bound
		{getRange("c.lance", 3, 997, data[3:]), 0, false},    // inside c.lance [2, 1000)
		// a new range (997 bytes): evicts the least recently used, d.lance
		// and c.lance [0, 998)
		{getRange("c.lance", 3, 999, data[3:]), 1, false},
		{getRange("c.lance", 1, 998, data[1:999]), 0, false}, // still cached
		{func() error { _, err := s.Get(ctx, "d.lance"); return err }, 1, false},
		{getRange("c.lance", 0, 998, data[0:998]), 1, false},
	}
	for i, st := range steps {
		before := reads()
		if err := st.do(); (err != nil) != st.wantErr {
			t.Fatalf("step %d: error %v, want error: %v", i, err, st.wantErr)
		}
		if got := reads() - before; got != st.wantFetch {
			t.Fatalf("step %d: %d GET requests, want %d", i, got, st.wantFetch)
		}
	}
	got, err := s.GetRange(ctx, "a.lance", 10, 20)
	if err != nil || !bytes.Equal(got, data[10:30]) {
		t.Fatalf("cached range = %q, %v", got, err)
	}
	got[0] = 'X' // the caller's copy
	if again, _ := s.GetRange(ctx, "a.lance", 10, 20); !bytes.Equal(again, data[10:30]) {
		t.Fatalf("a caller's change reached the cache: %q", again)
	}
}

// TestS3PrefixIsolation: two stores under different prefixes of one
// bucket never see each other's keys.
func TestS3PrefixIsolation(t *testing.T) {
	ep := fakeS3(t)
	a := newFakeS3Store(t, ep, "a", nil)
	b := newFakeS3Store(t, ep, "ab", nil)
	ctx := context.Background()
	if err := a.Put(ctx, "k", []byte("A")); err != nil {
		t.Fatal(err)
	}
	if err := b.PutIfAbsent(ctx, "k", []byte("B")); err != nil {
		t.Fatalf("same key under another prefix: %v", err)
	}
	la, _ := a.List(ctx, "")
	lb, _ := b.List(ctx, "")
	if len(la) != 1 || la[0].Key != "k" || len(lb) != 1 || lb[0].Key != "k" {
		t.Fatalf("lists: a=%v b=%v", la, lb)
	}
	whole := newFakeS3Store(t, ep, "", nil)
	all, err := whole.List(ctx, "")
	if err != nil || len(all) != 2 || all[0].Key != "a/k" || all[1].Key != "ab/k" {
		t.Fatalf("the whole bucket lists %v, %v; want a/k, ab/k", all, err)
	}
	if got, err := whole.Get(ctx, "ab/k"); err != nil || string(got) != "B" {
		t.Fatalf("Get(ab/k) through the whole bucket = %q, %v", got, err)
	}
	if whole.Root() != "s3://pggraph" {
		t.Errorf("Root() of the whole bucket = %q", whole.Root())
	}
	if a.Root() != "s3://pggraph/a" {
		t.Errorf("Root() = %q", a.Root())
	}
}

// TestS3Multipart: objects above the threshold go up in parts, read back
// whole and by range, and a multipart PutIfAbsent over an existing key
// loses without changing it.
func TestS3Multipart(t *testing.T) {
	t.Parallel() // own server, store and directory; mostly waits on requests and fsyncs
	s := newFakeS3Store(t, fakeS3(t), "mp", func(o *objstore.S3Options) {
		o.MultipartThreshold = 6 << 20
		o.PartSize = 5 << 20
	})
	ctx := context.Background()
	big := make([]byte, 13<<20+17)
	for i := range big {
		big[i] = byte(i * 7 / 13)
	}
	if err := s.Put(ctx, "big", big); err != nil {
		t.Fatal(err)
	}
	if err := s.PutIfAbsent(ctx, "big2", big); err != nil {
		t.Fatal(err)
	}
	if err := s.PutIfAbsent(ctx, "big2", bytes.Repeat([]byte{1}, 7<<20)); !objstore.IsExists(err) {
		t.Fatalf("multipart PutIfAbsent over an object = %v, want ErrExists", err)
	}
	for _, k := range []string{"big", "big2"} {
		got, err := s.Get(ctx, k)
		if err != nil || !bytes.Equal(got, big) {
			t.Fatalf("Get(%s): %d bytes, %v", k, len(got), err)
		}
	}
	part, err := s.GetRange(ctx, "big", 5<<20-3, 10)
	if err != nil || !bytes.Equal(part, big[5<<20-3:5<<20+7]) {
		t.Fatalf("GetRange across parts: %v", err)
	}
	if r := s.Requests(); r["MULTIPART"] < 2*(1+3+1) {
		t.Errorf("requests %v: want two multipart uploads of 3 parts", r)
	}
}

// TestS3CacheOwnWrites: keys of a kind only their writer rewrites are
// cached when this store writes them (rewrites included) and never when
// it only reads them, and a lost create caches nothing.
func TestS3CacheOwnWrites(t *testing.T) {
	ctx := context.Background()
	ep := fakeS3(t)
	s := newFakeS3Store(t, ep, "o", nil)
	s.CacheImmutableReads(func(string) bool { return false }, 1<<20)
	s.CacheOwnWrites(func(k string) bool { return strings.HasSuffix(k, ".txn") })
	other := newFakeS3Store(t, ep, "o", nil) // another process on the same prefix
	gets := func() int64 { r := s.Requests(); return r["GET"] + r["GET-range"] }
	steps := []struct {
		name      string
		do        func() ([]byte, error)
		want      string
		wantFetch int64
	}{
		{"theirs, read", func() ([]byte, error) {
			if err := other.Put(ctx, "a.txn", []byte("theirs-1")); err != nil {
				return nil, err
			}
			return s.Get(ctx, "a.txn")
		}, "theirs-1", 1},
		{"theirs, rewritten by them, read again: not cached", func() ([]byte, error) {
			if err := other.Put(ctx, "a.txn", []byte("theirs-2")); err != nil {
				return nil, err
			}
			return s.Get(ctx, "a.txn")
		}, "theirs-2", 1},
		{"ours, read", func() ([]byte, error) {
			if err := s.PutIfAbsent(ctx, "b.txn", []byte("mine-1")); err != nil {
				return nil, err
			}
			return s.Get(ctx, "b.txn")
		}, "mine-1", 0},
		{"ours, rewritten, a range", func() ([]byte, error) {
			if err := s.Put(ctx, "b.txn", []byte("mine-2")); err != nil {
				return nil, err
			}
			return s.GetRange(ctx, "b.txn", 5, 10)
		}, "2", 0},
		{"a lost create caches nothing", func() ([]byte, error) {
			if err := other.PutIfAbsent(ctx, "c.txn", []byte("theirs")); err != nil {
				return nil, err
			}
			if err := s.PutIfAbsent(ctx, "c.txn", []byte("mine")); !objstore.IsExists(err) {
				return nil, fmt.Errorf("lost create: %v", err)
			}
			return s.Get(ctx, "c.txn")
		}, "theirs", 1},
		{"not owned, written by us: not cached", func() ([]byte, error) {
			if err := s.Put(ctx, "d.json", []byte("mine")); err != nil {
				return nil, err
			}
			return s.Get(ctx, "d.json")
		}, "mine", 1},
	}
	for _, st := range steps {
		before := gets()
		got, err := st.do()
		if err != nil || string(got) != st.want {
			t.Fatalf("%s: %q, %v; want %q", st.name, got, err, st.want)
		}
		if n := gets() - before; n != st.wantFetch {
			t.Fatalf("%s: %d GETs, want %d", st.name, n, st.wantFetch)
		}
	}
}
