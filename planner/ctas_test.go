package planner

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
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
		{"CREATE TEMP TABLE c5 AS SELECT 1", "", 0, "0A000"},
		{"SELECT 1 INTO TEMP c6", "", 0, "0A000"},
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
