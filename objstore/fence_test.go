package objstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pggraph/pggraph/objstore"
)

// TestFenceHoldsOnlyMatchedWrites: under a fence, matched writes wait for
// its release and fail with a released error; reads, unmatched writes and
// writes without the fence pass at once.
func TestFenceHoldsOnlyMatchedWrites(t *testing.T) {
	ctx := context.Background()
	match := func(k string) bool { return strings.HasPrefix(k, "commit/") }
	cases := []struct {
		name    string
		release error
	}{
		{"released ok", nil},
		{"released with an error", errors.New("confirmation failed")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := objstore.NewMem()
			s := objstore.Fenced(mem)
			f := objstore.NewFence(match)
			fctx := objstore.WithFence(ctx, f)
			if err := s.Put(fctx, "data/x", []byte("x")); err != nil {
				t.Fatalf("unmatched write held: %v", err)
			}
			if _, err := s.Get(fctx, "data/x"); err != nil {
				t.Fatal(err)
			}
			if err := s.Put(ctx, "commit/other", []byte("o")); err != nil {
				t.Fatalf("write without the fence held: %v", err)
			}
			got := make(chan error, 1)
			go func() { got <- s.PutIfAbsent(fctx, "commit/1", []byte("c")) }()
			select {
			case err := <-got:
				t.Fatalf("matched write passed an unreleased fence: %v", err)
			case <-time.After(30 * time.Millisecond):
			}
			if _, err := mem.Stat(ctx, "commit/1"); !objstore.IsNotFound(err) {
				t.Fatalf("held write reached the store: %v", err)
			}
			f.Release(c.release)
			err := <-got
			_, serr := mem.Stat(ctx, "commit/1")
			if c.release == nil {
				if err != nil || serr != nil {
					t.Fatalf("released write: %v, stat %v", err, serr)
				}
				return
			}
			if !errors.Is(err, c.release) || !objstore.IsNotFound(serr) {
				t.Fatalf("write after a failed fence: %v (want %v), stat %v (want not found)", err, c.release, serr)
			}
		})
	}
}

// TestFencedKeepsOptionalMethods: the wrapper exposes the inner store's
// root (only when it has one) and fsync count.
func TestFencedKeepsOptionalMethods(t *testing.T) {
	l := newLocal(t)
	type rooter interface{ Root() string }
	if r, ok := objstore.Fenced(l).(rooter); !ok || r.Root() != l.Root() {
		t.Fatalf("Fenced(Local) root: %v", ok)
	}
	if _, ok := objstore.Fenced(objstore.NewMem()).(rooter); ok {
		t.Fatal("Fenced(Mem) claims a root")
	}
	s := objstore.Fenced(l)
	if err := s.Put(context.Background(), "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if n := s.(interface{ Fsyncs() int64 }).Fsyncs(); n == 0 || n != l.Fsyncs() {
		t.Fatalf("fsyncs %d, inner %d", n, l.Fsyncs())
	}
}
