package access

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pggraph/pggraph/objstore"
)

// gatedStore counts Stats and holds the first one after arm() back
// after it has been answered: a probe in flight whose answer is already
// fixed, as a HEAD on object storage is while its response travels.
type gatedStore struct {
	objstore.Store
	stats   atomic.Int64
	armed   atomic.Bool
	entered chan struct{}
	release chan struct{}
}

func (g *gatedStore) arm() {
	g.entered, g.release = make(chan struct{}), make(chan struct{})
	g.armed.Store(true)
}

func (g *gatedStore) Stat(ctx context.Context, key string) (objstore.ObjectInfo, error) {
	info, err := g.Store.Stat(ctx, key)
	g.stats.Add(1)
	if g.armed.CompareAndSwap(true, false) {
		close(g.entered)
		<-g.release
	}
	return info, err
}

// TestCurrentSharesProbes: callers arriving while a probe is in flight
// share one later probe (one probe's requests for all of them, not one
// each), and none of them takes the in-flight probe's answer, which
// predates a change another process published after that probe's Stat
// was answered but before they called.
func TestCurrentSharesProbes(t *testing.T) {
	ctx := context.Background()
	mem := objstore.NewMem()
	gated := &gatedStore{Store: mem}
	here, other := Open(gated), Open(mem) // two processes on one root
	addRole := func(s *Store, name string) {
		t.Helper()
		if _, err := s.Update(ctx, nil, func(c *Catalog) error { c.AddRole(Role{Name: name}); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	addRole(here, "r1")
	before, err := here.Current(ctx)
	if err != nil {
		t.Fatal(err)
	}

	gated.arm()
	first := make(chan *Catalog, 1)
	go func() {
		c, err := here.Current(ctx)
		if err != nil {
			t.Error(err)
		}
		first <- c
	}()
	<-gated.entered // its Stat answered "no newer version"
	addRole(other, "r2")
	statsBefore := gated.stats.Load()

	const callers = 10
	got := make([]*Catalog, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			c, err := here.Current(ctx)
			if err != nil {
				t.Error(err)
			}
			got[i] = c
		})
	}
	// all callers parked behind the in-flight probe (a minute bounds a
	// regression that never parks them, rather than hanging the run)
	for waiting, start := 0, time.Now(); waiting < callers; runtime.Gosched() {
		here.probes.mu.Lock()
		waiting = here.probes.waiting
		here.probes.mu.Unlock()
		if time.Since(start) > time.Minute {
			t.Fatalf("%d of %d callers wait for a probe after a minute", waiting, callers)
		}
	}
	close(gated.release)
	wg.Wait()
	if c := <-first; c.Version != before.Version {
		t.Errorf("the in-flight probe answered version %d, want %d (its Stat came first)", c.Version, before.Version)
	}
	for i, c := range got {
		if c == nil || c.Version != before.Version+1 {
			t.Fatalf("caller %d, which started after version %d was published, got %+v", i, before.Version+1, c)
		}
	}
	// one shared probe: Stat of the new version (found) and of the one
	// after it (missing)
	if n := gated.stats.Load() - statsBefore; n != 2 {
		t.Errorf("%d callers arriving during a probe sent %d Stats, want 2 (one shared probe)", callers, n)
	}
}
