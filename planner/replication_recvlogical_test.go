package planner

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// recvlogicalPath is PostgreSQL 15's pg_recvlogical (package
// postgresql-client-15); CI installs it (.ci/run).
func recvlogicalPath(t *testing.T) string {
	t.Helper()
	pgtest.SkipShort(t, "pg_recvlogical")
	for _, d := range pgtest.BinDirs {
		if p := filepath.Join(d, "pg_recvlogical"); fileExists(p) {
			return p
		}
	}
	p, err := exec.LookPath("pg_recvlogical")
	if err != nil {
		t.Fatal("pg_recvlogical not found (apt-get install postgresql-client-15)")
	}
	return p
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestPgRecvlogical: PostgreSQL's own client creates a slot, streams
// the published changes with pgoutput up to an end position, confirms
// them (a second run resumes after them) and drops the slot.
func TestPgRecvlogical(t *testing.T) {
	bin := recvlogicalPath(t)
	ts := startServer(t, createPeople(t))
	ctx := context.Background()
	sqlc := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	exec1 := func(q string) {
		t.Helper()
		if _, err := sqlc.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// endAt makes a sentinel commit and returns its Begin's position:
	// pg_recvlogical --endpos stops right after that message
	endAt := func(q string) string {
		t.Helper()
		exec1(q)
		var v int64
		if err := sqlc.QueryRow(ctx, `SELECT max(manifest_version) FROM graph.commits`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%X/0", v)
	}
	host, port, _ := net.SplitHostPort(ts.addr)
	dsn := fmt.Sprintf("host=%s port=%s user=app dbname=main connect_timeout=10", host, port)
	run := func(args ...string) string {
		t.Helper()
		cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(cctx, bin, append([]string{"-d", dsn, "-S", "recv"}, args...)...)
		cmd.Env = append(os.Environ(), "PGSSLMODE=disable")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("pg_recvlogical %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	exec1(`CREATE PUBLICATION pub FOR TABLE people`)
	exec1(`CREATE TABLE other (k int PRIMARY KEY, v text)`)
	run("--create-slot", "-P", "pgoutput")
	exec1(`INSERT INTO people VALUES (7, 'first-row', 7.5)`)
	exec1(`INSERT INTO other VALUES (1, 'unpublished-row')`)
	exec1(`UPDATE people SET name = 'renamed-row' WHERE id = 1`)
	exec1(`DELETE FROM people WHERE id = 3`)
	end := endAt(`INSERT INTO people VALUES (8, 'sentinel-row', 8)`)

	read := func(end string) string {
		t.Helper()
		out := filepath.Join(t.TempDir(), "feed")
		run("--start", "--no-loop", "-o", "proto_version=1", "-o", "publication_names=pub", "-E", end, "-f", out)
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	feed := read(end)
	for _, want := range []string{"people", "first-row", "renamed-row", "\nB", "\nC"} {
		if !strings.Contains(feed, want) {
			t.Errorf("first run: %q missing from the feed %q", want, feed)
		}
	}
	// unpublished tables are not streamed; the sentinel's Begin is the
	// end position, so its row is not either
	for _, not := range []string{"unpublished-row", "sentinel-row"} {
		if strings.Contains(feed, not) {
			t.Errorf("first run: %q in the feed %q", not, feed)
		}
	}
	// the second run resumes where the first confirmed: the sentinel
	// commit (not finished) and what came after, nothing before
	exec1(`INSERT INTO people VALUES (9, 'later-row', 9)`)
	end = endAt(`INSERT INTO people VALUES (10, 'sentinel2-row', 10)`)
	feed = read(end)
	for _, want := range []string{"sentinel-row", "later-row"} {
		if !strings.Contains(feed, want) {
			t.Errorf("second run: %q missing from the feed %q", want, feed)
		}
	}
	for _, not := range []string{"first-row", "renamed-row", "sentinel2-row"} {
		if strings.Contains(feed, not) {
			t.Errorf("second run: %q in the feed %q", not, feed)
		}
	}
	run("--drop-slot")
}
