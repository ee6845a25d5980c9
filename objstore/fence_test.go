package objstore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pggraph/pggraph/objstore"
)

// TestFenceHoldsOnlyMatchedWrites: under a fence, matched writes wait for
// its release and fail with a released error; reads, unmatched writes and
// writes without the fence pass at once.
func TestFenceHoldsOnlyMatchedWrites(t *testing.T) {
	match := func(k string) bool { return strings.HasPrefix(k, "commit/") }
	cases := []struct {
		name    string
		release error
	}{
		{"released ok", nil},
		{"released with an error", errors.New("confirmation failed")},
	}
	backends := []struct {
		name string
		open func(t *testing.T) objstore.Store
	}{
		{"mem", func(*testing.T) objstore.Store { return objstore.NewMem() }},
		{"local", func(t *testing.T) objstore.Store { return newLocal(t) }},
	}
	for _, bk := range backends {
		for _, c := range cases {
			t.Run(bk.name+"/"+c.name, func(t *testing.T) { fenceCase(t, bk.open(t), false, match, c.release) })
			// metrics wrap the store (serve --metrics-listen): the staged
			// write must still reach Local through the wrapper
			t.Run(bk.name+"/observed/"+c.name, func(t *testing.T) { fenceCase(t, bk.open(t), true, match, c.release) })
		}
	}
}

// fenceCase holds one matched PutIfAbsent under a fence over mem and
// releases the fence with release. On Local the held write's bytes are
// fsynced while the fence is closed (Local.PutIfAbsentAfter), yet nothing
// is visible, and a failed fence leaves no staging file behind. observe
// puts the metrics wrapper between the fence and the store.
func fenceCase(t *testing.T, mem objstore.Store, observe bool, match func(string) bool, release error) {
	ctx := context.Background()
	inner := mem
	if observe {
		inner = objstore.Observed(mem, func(objstore.Op, int64, int64, time.Duration, error) {})
	}
	s := objstore.Fenced(inner)
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
	var fsyncs0 int64
	if l, ok := mem.(*objstore.Local); ok {
		fsyncs0 = l.Fsyncs()
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
	l, local := mem.(*objstore.Local)
	if local {
		// the staging file's fsync ran under the closed fence
		deadline := time.Now().Add(10 * time.Second)
		for l.Fsyncs() < fsyncs0+1 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if l.Fsyncs() < fsyncs0+1 {
			t.Fatalf("the held write's bytes were not fsynced before the fence opened (%d fsyncs)", l.Fsyncs()-fsyncs0)
		}
	}
	f.Release(release)
	err := <-got
	_, serr := mem.Stat(ctx, "commit/1")
	if local {
		ents, rerr := os.ReadDir(filepath.Join(l.Root(), "commit"))
		if rerr != nil {
			t.Fatal(rerr)
		}
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".pgstage-") {
				t.Fatalf("staging file %s left behind", e.Name())
			}
		}
	}
	if release == nil {
		if err != nil || serr != nil {
			t.Fatalf("released write: %v, stat %v", err, serr)
		}
		return
	}
	if !errors.Is(err, release) || !objstore.IsNotFound(serr) {
		t.Fatalf("write after a failed fence: %v (want %v), stat %v (want not found)", err, release, serr)
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
