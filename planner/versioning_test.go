package planner

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestVersioning: branches, writes on a branch, SET graph.as_of time
// travel (read-only: 25006), the graph views, SHOW graph.last_commit and
// SET graph.commit_message.
func TestVersioning(t *testing.T) {
	ts := startServer(t, createPeople(t))
	ctx := context.Background()
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	var v1 int64
	if err := c.QueryRow(ctx, "select max(manifest_version) from graph.commits").Scan(&v1); err != nil {
		t.Fatal(err)
	}
	runScript(t, c, []step{
		{sql: "set graph.commit_message = 'add cy'"},
		{sql: "insert into people values (4, 'cy', 4)"},
	})
	var last, msg string
	if err := c.QueryRow(ctx, "show graph.last_commit").Scan(&last); err != nil || last == "" {
		t.Fatalf("last_commit %q %v", last, err)
	}
	if err := c.QueryRow(ctx, "select message from graph.commits where id = $1", last).Scan(&msg); err != nil || msg != "add cy" {
		t.Fatalf("commit message %q %v", msg, err)
	}
	runScript(t, c, []step{
		{sql: "call graph.create_branch('dev')", tag: "CALL"},
		{sql: "select graph.create_branch('dev')", code: "42710", msg: "already exists"},
		{sql: "set graph.branch = 'dev'"},
		{sql: "insert into people values (5, 'dev-only', 5)"},
		{sql: "select count(*) from people", rows: "5"},
		{sql: "set graph.branch = 'main'"},
		{sql: "select count(*) from people", rows: "4"},
		{sql: "set graph.branch = 'nope'", code: "3D000", msg: `branch "nope" does not exist`},
		{sql: "select name from graph.branches order by name", rows: "dev;main"},
		{sql: "set graph.as_of = '" + itoa(v1) + "'"},
		{sql: "select count(*) from people", rows: "3"},
		{sql: "insert into people values (9, 'x', 1)", code: "25006", msg: "read-only"},
		{sql: "call graph.create_branch('from_the_past')", code: "25006", msg: ""},
		{sql: "select graph.optimize()", code: "25006", msg: ""},
		{sql: "reset graph.as_of"},
		{sql: "select count(*) from people", rows: "4"},
		{sql: "set graph.as_of = 'not a time'", code: "22007", msg: ""},
		{sql: "begin"},
		{sql: "call graph.create_branch('x')", code: "25001", msg: "inside a transaction block"},
		{sql: "rollback"},
	})
	dev, err := pgx.Connect(ctx, ts.url("dev"))
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close(ctx)
	runScript(t, dev, []step{{sql: "select name from people where id = 5", rows: "dev-only"}})
}

func itoa(v int64) string {
	var b []byte
	if v == 0 {
		return "0"
	}
	for v > 0 {
		b = append([]byte{byte('0' + v%10)}, b...)
		v /= 10
	}
	return string(b)
}
