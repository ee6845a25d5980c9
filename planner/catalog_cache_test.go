package planner

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/exec"
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

// TestTableDefCarriedAcrossVersions: a commit that changed only a table's
// rows makes its next version's definition a copy of the cached one (the
// SQL metadata is not decoded again: the same decoded metadata, the same
// constraints) with a source on the new version; a definition change
// (ALTER TABLE) builds afresh.
func TestTableDefCarriedAcrossVersions(t *testing.T) {
	ts := startServer(t, nil)
	ctx := context.Background()
	c := ts.connect(t, pgx.QueryExecModeCacheStatement)
	for _, q := range []string{
		"create table kv (id int8 primary key, v text not null default 'd' check (v <> 'bad'))",
		"insert into kv values (1, 'a')",
		"insert into kv (id) values (2)",
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	versions := func() map[uint64]*tableInfo {
		tc := &ts.backend.tables
		tc.mu.Lock()
		defer tc.mu.Unlock()
		out := map[uint64]*tableInfo{}
		for _, ti := range tc.m {
			if ti.entry.Name == "kv" {
				out[ti.entry.Version] = ti
			}
		}
		return out
	}
	vs := versions()
	var first, last *tableInfo
	for _, ti := range vs {
		if first == nil || ti.entry.Version < first.entry.Version {
			first = ti
		}
		if last == nil || ti.entry.Version > last.entry.Version {
			last = ti
		}
	}
	if len(vs) < 2 || first == last {
		t.Fatalf("want kv cached at two versions, have %d", len(vs))
	}
	if !last.sqlDef || last.meta == nil || last.meta != first.meta || last.schema != first.schema {
		t.Fatalf("version %d did not carry version %d's decoded definition (sqlDef %v, meta %p vs %p)", last.entry.Version, first.entry.Version, last.sqlDef, last.meta, first.meta)
	}
	if last.def == first.def || last.def.Source == first.def.Source {
		t.Fatal("a carried definition shares the other version's source")
	}
	if got, want := last.def.Source.RowCount(), first.def.Source.RowCount()+1; got != want {
		t.Fatalf("version %d's source counts %d rows, want %d", last.entry.Version, got, want)
	}
	// the carried definition still enforces what the metadata says
	if _, err := c.Exec(ctx, "insert into kv values (3, 'bad')"); err == nil || !strings.Contains(err.Error(), "23514") {
		t.Fatalf("check constraint on a carried definition: %v", err)
	}
	var v string
	if err := c.QueryRow(ctx, "select v from kv where id = 2").Scan(&v); err != nil || v != "d" {
		t.Fatalf("default on a carried definition: %q %v", v, err)
	}
	// a definition change is a new definition: nothing carried
	if _, err := c.Exec(ctx, "alter table kv add column w int4"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "insert into kv values (4, 'x', 7)"); err != nil {
		t.Fatal(err)
	}
	for _, ti := range versions() {
		if len(ti.def.Columns) == 3 && ti.meta == first.meta {
			t.Fatalf("version %d after ALTER TABLE carried the old definition's metadata", ti.entry.Version)
		}
	}
}

// TestGraphViewsSharedAcrossCommits: the catalogs of two heads of a
// branch share its graph.* views (built once), and those views still
// read the current state (graph.commits lists the newer commit).
func TestGraphViewsSharedAcrossCommits(t *testing.T) {
	ts := startServer(t, nil)
	ctx := context.Background()
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	count := func() int {
		var n int
		if err := c.QueryRow(ctx, "select count(*) from graph.commits").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if _, err := c.Exec(ctx, "create table t (id int8)"); err != nil {
		t.Fatal(err)
	}
	before := count()
	first, ok := ts.backend.views.m.Load("main")
	if !ok {
		t.Fatal("no graph views cached for main")
	}
	if _, err := c.Exec(ctx, "insert into t values (1)"); err != nil {
		t.Fatal(err)
	}
	if after := count(); after != before+1 {
		t.Fatalf("graph.commits lists %d commits after one more commit, had %d", after, before)
	}
	again, _ := ts.backend.views.m.Load("main")
	if &again.([]*exec.TableDef)[0] != &first.([]*exec.TableDef)[0] {
		t.Fatal("the new head's catalog built the graph views again")
	}
}
