package objstore_test

import (
	"bytes"
	"context"
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
// immutable (the store's own writes drop their ranges), and a cached
// range costs no request until it is dropped or evicted.
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
	s := newFakeS3Store(t, fakeS3(t), "c", nil)
	s.CacheImmutableReads(func(k string) bool { return strings.HasSuffix(k, ".lance") }, 4000)
	data := bytes.Repeat([]byte("0123456789"), 100)
	for _, k := range []string{"a.lance", "b.json"} {
		if err := s.PutIfAbsent(ctx, k, data); err != nil {
			t.Fatal(err)
		}
	}
	ranges := func() int64 { return s.Requests()["GET-range"] }
	steps := []struct {
		do        func() error
		wantFetch int64 // GET-range requests this step sends
	}{
		{func() error { _, err := s.GetRange(ctx, "a.lance", 10, 20); return err }, 1},
		{func() error { _, err := s.GetRange(ctx, "a.lance", 10, 20); return err }, 0}, // cached
		{func() error { _, err := s.GetRange(ctx, "a.lance", 10, 21); return err }, 1}, // another range
		{func() error { _, err := s.GetRange(ctx, "b.json", 10, 20); return err }, 1},
		{func() error { _, err := s.GetRange(ctx, "b.json", 10, 20); return err }, 1}, // not immutable
		{func() error { return s.Put(ctx, "a.lance", data) }, 0},
		{func() error { _, err := s.GetRange(ctx, "a.lance", 10, 20); return err }, 1}, // dropped by our Put
		{func() error { // 3000 bytes of other ranges (4000-byte bound)
			for i := range 3 {
				if _, err := s.GetRange(ctx, "a.lance", int64(i), 1000); err != nil {
					return err
				}
			}
			return nil
		}, 3},
		{func() error { _, err := s.GetRange(ctx, "a.lance", 10, 20); return err }, 0}, // still within the bound
		{func() error { _, err := s.GetRange(ctx, "a.lance", 0, 1000); return err }, 0},
		{func() error { _, err := s.GetRange(ctx, "a.lance", 3, 1000); return err }, 1}, // evicts the LRU
		{func() error { _, err := s.GetRange(ctx, "a.lance", 1, 1000); return err }, 1}, // which was this one
	}
	for i, st := range steps {
		before := ranges()
		if err := st.do(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got := ranges() - before; got != st.wantFetch {
			t.Fatalf("step %d: %d GET-range requests, want %d", i, got, st.wantFetch)
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
