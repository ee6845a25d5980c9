package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// TestS3DiskCacheAcrossRestart: a server on an S3 root with
// --s3-cache-dir keeps the data-file ranges its queries read; the next
// server over the same directory (a restart) answers the same scan with
// fewer GETs than a server without the directory, and the same rows.
func TestS3DiskCacheAcrossRestart(t *testing.T) {
	ctx := context.Background()
	fake := httptest.NewServer(gofakes3.New(s3mem.New(), gofakes3.WithAutoBucket(true)).Server())
	defer fake.Close()
	const query = "SELECT count(*), sum(id), sum(length(v)) FROM t"

	// run serves the root through a fresh store (as a new process opens
	// it), optionally over the cache directory, runs the statements and
	// returns the last one's answer and the GETs it cost.
	run := func(cacheDir string, stmts ...string) (answer string, gets int64, diskHits int64) {
		t.Helper()
		s := fakeS3Store(ctx, t, fake.URL, "dc", nil)
		if cacheDir != "" {
			if err := s.CacheImmutableReadsOnDisk(cacheDir, 64<<20); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = s.CloseCache() }()
		}
		addr, stop := serveInProcess(ctx, t, s, s.Root())
		defer stop()
		conn, err := pgx.Connect(ctx, "postgres://tester@"+addr+"/main?sslmode=disable")
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		for _, q := range stmts[:len(stmts)-1] {
			if _, err := conn.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		before := s.Requests()
		var n, sum, length int64
		if err := conn.QueryRow(ctx, stmts[len(stmts)-1]).Scan(&n, &sum, &length); err != nil {
			t.Fatal(err)
		}
		after := s.Requests()
		hits, _ := s.DiskCacheStats()
		return fmt.Sprint(n, sum, length), after["GET"] + after["GET-range"] - before["GET"] - before["GET-range"], hits
	}

	want, _, _ := run("", "CREATE TABLE t (id int8 PRIMARY KEY, v text)",
		"INSERT INTO t SELECT g, repeat('x', g % 50) FROM generate_series(1, 20000) g",
		"INSERT INTO t SELECT g, 'second file' FROM generate_series(20001, 20100) g",
		query)
	dir := t.TempDir()
	first, firstGets, _ := run(dir, query) // fills the directory
	again, cachedGets, hits := run(dir, query)
	uncached, uncachedGets, _ := run("", query)
	t.Logf("scan after a restart: %d GETs without the disk cache, %d filling it, %d with it (%d disk hits)", uncachedGets, firstGets, cachedGets, hits)
	for _, got := range []string{first, again, uncached} {
		if got != want {
			t.Fatalf("scan answered %s, want %s", got, want)
		}
	}
	if hits == 0 || cachedGets >= uncachedGets {
		t.Fatalf("with the disk cache a restarted server sent %d GETs (%d disk hits), without it %d", cachedGets, hits, uncachedGets)
	}
}
