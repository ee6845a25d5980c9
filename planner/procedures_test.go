package planner

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestProcedureRefusals: procedure forms outside what CALL runs answer
// 0A000 naming them (or PostgreSQL's own error), never a silent success;
// differential cases are in testdata/plpgsql/procedures.sql.
func TestProcedureRefusals(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	runRoleSteps(t, c, []roleStep{
		{"CREATE PROCEDURE p_out(OUT x int) LANGUAGE sql AS 'SELECT 1'", "0A000 OUT parameters of procedures is not supported"},
		{"CREATE PROCEDURE p_commit() LANGUAGE plpgsql AS $$ BEGIN COMMIT; END $$", "0A000 COMMIT in a DO block is not supported"},
		{"CREATE PROCEDURE p_attr() LANGUAGE sql IMMUTABLE AS 'SELECT 1'", "42P13 invalid attribute in procedure definition"},
		{"CREATE PROCEDURE p_strict(int) LANGUAGE sql STRICT AS 'SELECT 1'", "42P13 invalid attribute in procedure definition"},
		{"CREATE PROCEDURE p_ok(INOUT x int) LANGUAGE sql AS 'SELECT x + 1'", ""},
		{"CREATE OR REPLACE FUNCTION p_ok(x int) RETURNS int LANGUAGE sql AS 'SELECT 1'", "42809 cannot change routine kind"},
	})
}

// TestCallExtendedProtocol: CALL through Parse/Describe/Execute answers
// the INOUT row with its columns, and a procedure without INOUT
// parameters no row description.
func TestCallExtendedProtocol(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeCacheStatement)
	ctx := context.Background()
	enumExec(t, c, "CREATE TABLE log (n int)",
		"CREATE PROCEDURE bump(INOUT x int, step int DEFAULT 1) LANGUAGE plpgsql AS $$ BEGIN x := x + step; INSERT INTO log VALUES (x); END $$",
		"CREATE PROCEDURE note(n int) LANGUAGE sql AS 'INSERT INTO log VALUES (n)'")
	var x int
	if err := c.QueryRow(ctx, "CALL bump($1, step => $2)", 40, 2).Scan(&x); err != nil || x != 42 {
		t.Fatalf("CALL bump: %d, %v", x, err)
	}
	tag, err := c.Exec(ctx, "CALL note($1)", 7)
	if err != nil || tag.String() != "CALL" {
		t.Fatalf("CALL note: %q, %v", tag.String(), err)
	}
	if got := queryStrings(t, c, "SELECT string_agg(n::text, ',' ORDER BY n) FROM log"); got != "7,42" {
		t.Fatalf("log after the calls: %q", got)
	}
}
