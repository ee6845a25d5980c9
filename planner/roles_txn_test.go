package planner

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/objstore"
)

// TestRoleChangesCommitWithTheirData: a transaction's role statements
// and its graph writes become visible at one point, its graph commit. A
// COMMIT that fails (40001: another session updated the same row first)
// leaves no role behind; one that succeeds shows roles and rows together,
// and a later role change is not held up by either.
func TestRoleChangesCommitWithTheirData(t *testing.T) {
	ctx := context.Background()
	// two processes over one root: row locks are per process, so b's
	// update of a's row does not wait and a's COMMIT loses
	dir := t.TempDir()
	var servers []*testServer
	var conns []*pgx.Conn
	for i := range 2 {
		st, err := objstore.NewLocal(dir)
		if err != nil {
			t.Fatal(err)
		}
		g, err := adapters.Open(ctx, st, adapters.Options{Create: i == 0, Actor: "test", Location: dir})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(g.Close)
		servers = append(servers, startServerOn(t, g))
		conns = append(conns, servers[i].connect(t, pgx.QueryExecModeSimpleProtocol))
	}
	a, b := conns[0], conns[1]
	runRoleSteps(t, a, []roleStep{
		{"CREATE ROLE seeded", ""}, // the catalog exists before the transactions
		{"CREATE TABLE t (id int PRIMARY KEY, v int)", ""},
		{"INSERT INTO t VALUES (1, 0)", ""},
		// fails at COMMIT: b updates the same row meanwhile
		{"BEGIN", ""},
		{"CREATE ROLE lost LOGIN", ""},
		{"UPDATE t SET v = 1 WHERE id = 1", ""},
	})
	runRoleSteps(t, b, []roleStep{{"UPDATE t SET v = 2 WHERE id = 1", ""}})
	if _, err := a.Exec(ctx, "COMMIT"); sqlState(err) != "40001" {
		t.Fatalf("COMMIT after a concurrent update of the row: %v, want 40001", err)
	}
	for _, c := range []*struct {
		name string
		sql  string
		want string
	}{
		{"the failed transaction's role", "SELECT count(*) FROM pg_roles WHERE rolname = 'lost'", "0"},
		{"the concurrent update", "SELECT v FROM t", "2"},
	} {
		for _, conn := range []string{"a", "b"} {
			cn := a
			if conn == "b" {
				cn = b
			}
			if got := queryStrings(t, cn, c.sql); got != c.want {
				t.Fatalf("%s seen by %s: %q, want %q", c.name, conn, got, c.want)
			}
		}
	}
	runRoleSteps(t, b, []roleStep{
		{"CREATE ROLE lost", ""}, // the name is free, the catalog not held
		{"DROP ROLE lost", ""},
	})
	runRoleSteps(t, a, []roleStep{
		{"BEGIN", ""},
		{"CREATE ROLE kept", ""},
		{"INSERT INTO t VALUES (2, 0)", ""},
		{"GRANT SELECT ON t TO kept", ""},
		{"COMMIT", ""},
	})
	if got := queryStrings(t, b, "SELECT (SELECT count(*) FROM pg_roles WHERE rolname = 'kept'), has_table_privilege('kept', 't', 'SELECT'), (SELECT count(*) FROM t)"); got != "1|t|2" {
		t.Fatalf("after COMMIT: role, grant, rows = %q, want 1|t|2", got)
	}
	// decided: the newest catalog version is no longer pending
	c, err := servers[1].backend.Access.Current(ctx)
	if err != nil || c.Pending != nil || c.Role("kept") == nil {
		t.Fatalf("catalog after COMMIT: pending %v, kept %v, %v", c.Pending, c.Role("kept") != nil, err)
	}
	runRoleSteps(t, b, []roleStep{{"CREATE ROLE later", ""}})
}
