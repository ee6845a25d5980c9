package planner

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestCatalogCacheSharesBuilds: concurrent sessions asking for one
// snapshot share one build; a failed build is not kept; the cache stays
// bounded.
func TestCatalogCacheSharesBuilds(t *testing.T) {
	ctx := context.Background()
	var cc catalogCache
	var builds atomic.Int32
	release := make(chan struct{})
	key := catKey{branch: "main", version: 7}
	want := &catalog{}
	var wg sync.WaitGroup
	got := make([]*catalog, 8)
	for i := range got {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c, err := cc.get(ctx, key, func() (*catalog, error) {
				builds.Add(1)
				<-release
				return want, nil
			})
			if err != nil {
				t.Error(err)
			}
			got[i] = c
		}(i)
	}
	close(release)
	wg.Wait()
	if n := builds.Load(); n != 1 {
		t.Fatalf("%d builds for one snapshot, want 1", n)
	}
	for i, c := range got {
		if c != want {
			t.Fatalf("session %d got %p, want the shared %p", i, c, want)
		}
	}

	failKey := catKey{branch: "main", version: 8}
	boom := errors.New("boom")
	if _, err := cc.get(ctx, failKey, func() (*catalog, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("failed build: %v", err)
	}
	c, err := cc.get(ctx, failKey, func() (*catalog, error) { return want, nil })
	if err != nil || c != want {
		t.Fatalf("a failed build was kept: %v %p", err, c)
	}

	for v := range uint64(3 * catalogCacheMax) {
		if _, err := cc.get(ctx, catKey{branch: "b", version: v}, func() (*catalog, error) { return &catalog{}, nil }); err != nil {
			t.Fatal(err)
		}
	}
	if len(cc.entries) > catalogCacheMax || len(cc.order) != len(cc.entries) {
		t.Fatalf("cache holds %d entries (%d ordered), bound %d", len(cc.entries), len(cc.order), catalogCacheMax)
	}
}

// TestCatalogSharedAcrossSessions: a second session reading the same
// head uses the catalog the first one built.
func TestCatalogSharedAcrossSessions(t *testing.T) {
	ts := startServer(t, createPeople(t))
	ctx := context.Background()
	a := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	b := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	var n int
	if err := a.QueryRow(ctx, "select count(*) from people").Scan(&n); err != nil || n != 3 {
		t.Fatalf("count: %d %v", n, err)
	}
	ts.backend.cats.mu.Lock()
	entries := len(ts.backend.cats.entries)
	ts.backend.cats.mu.Unlock()
	if err := b.QueryRow(ctx, "select count(*) from people").Scan(&n); err != nil || n != 3 {
		t.Fatalf("count: %d %v", n, err)
	}
	ts.backend.cats.mu.Lock()
	defer ts.backend.cats.mu.Unlock()
	if entries == 0 || len(ts.backend.cats.entries) != entries {
		t.Fatalf("catalogs: %d after the first session, %d after the second (want one shared)", entries, len(ts.backend.cats.entries))
	}
}
