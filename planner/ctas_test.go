package planner

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/internal/pgtest"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/wire"
)

// TestCTASPrivilegesDifferential compares CREATE TABLE … AS and
// SELECT … INTO under roles with PostgreSQL 15 (testdata/roles).
func TestCTASPrivilegesDifferential(t *testing.T) {
	roleScriptDiff(t, "ctas_diff", "testdata/roles/ctas_privileges.sql", 20)
}

// TestCTASOneCommit: the table and its rows are published by one graph
// commit, and a query failing at run time publishes nothing.
func TestCTASOneCommit(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	commits := func() int {
		var n int
		if err := c.QueryRow(ctx, "SELECT count(*) FROM graph.commits").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, s := range []string{
		"CREATE TABLE src (id int8 PRIMARY KEY, v text)",
		"INSERT INTO src SELECT g, 'v' || g FROM generate_series(1, 100) g",
	} {
		if _, err := c.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	for _, tc := range []struct {
		sql, tag string
		commits  int
		code     string
	}{
		{"CREATE TABLE c1 AS SELECT * FROM src WHERE id <= 40", "SELECT 40", 1, ""},
		{"SELECT id INTO c2 FROM src", "SELECT 100", 1, ""},
		{"CREATE TABLE c3 AS SELECT id FROM src WITH NO DATA", "CREATE TABLE AS", 1, ""},
		{"CREATE TABLE IF NOT EXISTS c3 AS SELECT 1", "CREATE TABLE AS", 0, ""},
		{"CREATE TABLE c4 AS SELECT 1 / (id - 50) FROM src", "", 0, "22012"},
		{"CREATE TEMP TABLE c5 AS SELECT 1", "SELECT 1", 0, ""}, // the session's: no graph commit
		{"SELECT 1 INTO TEMP c6", "SELECT 1", 0, ""},
		{"CREATE MATERIALIZED VIEW c7 AS SELECT 1", "", 0, "0A000"},
	} {
		before := commits()
		tag, err := c.Exec(ctx, tc.sql)
		if got := sqlState(err); got != tc.code {
			t.Fatalf("%s: SQLSTATE %q, want %q (%v)", tc.sql, got, tc.code, err)
		}
		if err == nil && tag.String() != tc.tag {
			t.Errorf("%s: tag %q, want %q", tc.sql, tag.String(), tc.tag)
		}
		if got := commits() - before; got != tc.commits {
			t.Errorf("%s: %d commits, want %d", tc.sql, got, tc.commits)
		}
	}
	var n int
	if err := c.QueryRow(ctx, "SELECT (SELECT count(*) FROM c1) + (SELECT count(*) FROM c2) + (SELECT count(*) FROM c3)").Scan(&n); err != nil || n != 140 {
		t.Fatalf("rows: %d %v", n, err)
	}
	if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_class WHERE relname = 'c4'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("c4 exists after a failed CREATE TABLE AS: %d %v", n, err)
	}
}

// TestCTASExecuteRefused: CREATE TABLE … AS EXECUTE is not implemented;
// it answers 0A000 naming the form, inside and outside a transaction
// block.
func TestCTASExecuteRefused(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	if _, err := c.Exec(ctx, "PREPARE p AS SELECT 1"); err != nil {
		t.Fatal(err)
	}
	for _, inTx := range []bool{false, true} {
		if inTx {
			if _, err := c.Exec(ctx, "BEGIN"); err != nil {
				t.Fatal(err)
			}
		}
		_, err := c.Exec(ctx, "CREATE TABLE x AS EXECUTE p")
		if sqlState(err) != "0A000" || !strings.Contains(err.Error(), "CREATE TABLE … AS EXECUTE") {
			t.Errorf("in a block %v: %v, want 0A000 naming CREATE TABLE … AS EXECUTE", inTx, err)
		}
		if inTx {
			if _, err := c.Exec(ctx, "ROLLBACK"); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestPsqlFetchCount: psql's FETCH_COUNT reads a query through a cursor
// (BEGIN, DECLARE … NO SCROLL CURSOR, FETCH FORWARD n, CLOSE, COMMIT);
// the output is the one without it.
func TestPsqlFetchCount(t *testing.T) {
	pgtest.PsqlPath(t)
	ctx := context.Background()
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	if _, err := c.Exec(ctx, "CREATE TABLE fc (id int PRIMARY KEY, v text); INSERT INTO fc SELECT g, 'v' || g FROM generate_series(1, 25) g"); err != nil {
		t.Fatal(err)
	}
	run := func(fetchCount string) string {
		res := pgtest.Psql{Args: []string{"-v", "FETCH_COUNT=" + fetchCount, "-d", ts.url("main"), "-c", "SELECT * FROM fc ORDER BY id"}, Combined: true}.Run(t)
		if res.ExitCode != 0 {
			t.Fatalf("psql: exit %d\n%s", res.ExitCode, res.Stdout)
		}
		return res.Stdout
	}
	plain, fetched := run("0"), run("4")
	if !strings.Contains(plain, "(25 rows)") || !strings.Contains(fetched, "v25") {
		t.Fatalf("unexpected output:\n%s\n%s", plain, fetched)
	}
	// with FETCH_COUNT psql aligns each batch on its own, so compare the
	// rows' cells, not the layout
	cells := func(s string) []string {
		var out []string
		for _, line := range strings.Split(s, "\n") {
			if f := strings.Split(line, "|"); len(f) == 2 {
				out = append(out, strings.TrimSpace(f[0])+"|"+strings.TrimSpace(f[1]))
			}
		}
		return out
	}
	if p, f := cells(plain), cells(fetched); strings.Join(p, ",") != strings.Join(f, ",") || len(p) != 26 {
		t.Fatalf("FETCH_COUNT output differs:\n%s\n---\n%s", plain, fetched)
	}
}

// TestCursorMemoryLimit: a cursor's rows count against the session's
// memory limit.
func TestCursorMemoryLimit(t *testing.T) {
	ctx := context.Background()
	g, err := adapters.Open(ctx, objstore.NewMem(), adapters.Options{Create: true, Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	backend := NewBackend(g)
	backend.MemoryLimit = 64 << 10
	ts := serveBackend(t, g, backend, wire.Config{Backend: backend})
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	if _, err := c.Exec(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	_, err = c.Exec(ctx, "DECLARE big CURSOR FOR SELECT repeat('x', 1000) FROM generate_series(1, 1000)")
	if sqlState(err) != "53200" {
		t.Fatalf("DECLARE over the limit: %v, want 53200", err)
	}
	if _, err := c.Exec(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
}
