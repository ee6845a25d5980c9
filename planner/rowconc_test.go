package planner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/objstore"
)

// rcStep is one statement of an interleaving: session, SQL and the
// wanted SQLSTATE ("" for success).
type rcStep struct {
	who  int
	sql  string
	code string
}

func runSteps(t *testing.T, conns []*pgx.Conn, steps []rcStep) {
	t.Helper()
	ctx := context.Background()
	for i, s := range steps {
		_, err := conns[s.who].Exec(ctx, s.sql)
		if got := sqlState(err); got != s.code || (s.code == "" && err != nil) {
			t.Fatalf("step %d (%d: %s): %v, want %q", i, s.who, s.sql, err, s.code)
		}
	}
}

func scalar(t *testing.T, c *pgx.Conn, sql string) string {
	t.Helper()
	var v string
	if err := c.QueryRow(context.Background(), sql).Scan(&v); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}

// TestRowLevelCommit: explicit transactions writing different rows of
// one table both commit; writing the same row or inserting the same key
// without waiting (in another process, or after both statements ran)
// fails the later COMMIT with 40001 naming the table by its SQL name.
func TestRowLevelCommit(t *testing.T) {
	cases := []struct {
		name  string
		steps []rcStep
		want  string
	}{
		{"disjoint updates", []rcStep{
			{0, "begin", ""}, {1, "begin", ""},
			{0, "update people set score = 10 where id = 1", ""},
			{1, "update people set score = 20 where id = 2", ""},
			{0, "commit", ""}, {1, "commit", ""},
		}, "1:10,2:20,3:0.1"},
		{"disjoint inserts after a full read", []rcStep{
			{0, "begin", ""}, {1, "begin", ""},
			{0, "select count(*) from people", ""}, {1, "select count(*) from people", ""},
			{0, "insert into people values (50, 'c', 1)", ""},
			{1, "insert into people values (51, 'c', 1)", ""},
			{0, "commit", ""}, {1, "commit", ""},
		}, "1:1.5,2:2.25,3:0.1,50:1,51:1"},
		{"disjoint delete and update", []rcStep{
			{0, "begin", ""}, {1, "begin", ""},
			{0, "delete from people where id = 3", ""},
			{1, "update people set score = 7 where id = 2", ""},
			{1, "commit", ""}, {0, "commit", ""},
		}, "1:1.5,2:7"},
		{"serializable reads conflict", []rcStep{
			{0, "begin isolation level serializable", ""}, {1, "begin isolation level serializable", ""},
			{0, "select count(*) from people", ""}, {1, "select count(*) from people", ""},
			{0, "insert into people values (50, 'c', 1)", ""},
			{1, "insert into people values (51, 'c', 1)", ""},
			{0, "commit", ""}, {1, "commit", "40001"},
		}, "1:1.5,2:2.25,3:0.1,50:1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ts := startServer(t, createPeople(t))
			conns := []*pgx.Conn{ts.connect(t, pgx.QueryExecModeSimpleProtocol), ts.connect(t, pgx.QueryExecModeCacheStatement)}
			runSteps(t, conns, tc.steps)
			if got := scalar(t, conns[0], "select string_agg(id::text || ':' || score::text, ',' order by id) from people"); got != tc.want {
				t.Fatalf("rows %s, want %s", got, tc.want)
			}
		})
	}
}

// TestRowLevelCommitAcrossProcesses: two pgproxy processes over one data
// directory (two graph handles, each with its own caches and locks):
// disjoint rows both commit; the same row or the same new key fails the
// later COMMIT with 40001 whose detail names the table.
func TestRowLevelCommitAcrossProcesses(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "g")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	serve := func(create bool) *pgx.Conn {
		st, err := objstore.NewLocal(dir)
		if err != nil {
			t.Fatal(err)
		}
		g, err := adapters.Open(ctx, st, adapters.Options{Create: create, Actor: "test", Location: dir})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(g.Close)
		c, err := pgx.Connect(ctx, startServerOn(t, g).url("main"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		return c
	}
	a := serve(true)
	b := serve(false)
	conns := []*pgx.Conn{a, b}
	runSteps(t, conns, []rcStep{
		{0, "create table acct (id int8 primary key, bal int8 not null)", ""},
		{0, "insert into acct select g, 100 from generate_series(1, 10) g", ""},
		// disjoint rows
		{0, "begin", ""}, {1, "begin", ""},
		{0, "update acct set bal = bal - 1 where id = 1", ""},
		{1, "update acct set bal = bal + 1 where id = 2", ""},
		{0, "commit", ""}, {1, "commit", ""},
		// SERIALIZABLE: disjoint rows read and written both commit
		// (row-granular read sets, seen across processes), a write skew
		// does not
		{0, "begin isolation level serializable", ""}, {1, "begin isolation level serializable", ""},
		{0, "update acct set bal = bal - 1 where id = 5", ""},
		{1, "update acct set bal = bal + 1 where id = 6", ""},
		{0, "commit", ""}, {1, "commit", ""},
		{0, "begin isolation level serializable", ""}, {1, "begin isolation level serializable", ""},
		{0, "select bal from acct where id = 8", ""},
		{1, "select bal from acct where id = 7", ""},
		{0, "update acct set bal = bal + 1 where id = 7", ""},
		{1, "update acct set bal = bal + 1 where id = 8", ""},
		{0, "commit", ""}, {1, "commit", "40001"},
		// same row
		{0, "begin", ""}, {1, "begin", ""},
		{0, "update acct set bal = bal - 5 where id = 3", ""},
		{1, "update acct set bal = bal + 5 where id = 3", ""},
		{1, "commit", ""}, {0, "commit", "40001"},
		// same new key
		{0, "begin", ""}, {1, "begin", ""},
		{0, "insert into acct values (11, 0)", ""},
		{1, "insert into acct values (11, 1)", ""},
		{0, "commit", ""}, {1, "commit", "40001"},
		// autocommit inserts of distinct keys alternate freely
		{0, "insert into acct values (12, 0)", ""},
		{1, "insert into acct values (13, 0)", ""},
	})
	if got := scalar(t, a, "select string_agg(id::text || ':' || bal::text, ',' order by id) from acct"); got != "1:99,2:101,3:105,4:100,5:99,6:101,7:101,8:100,9:100,10:100,11:0,12:0,13:0" {
		t.Fatalf("rows %s", got)
	}
	_, _ = b.Exec(ctx, "begin")
	_, _ = a.Exec(ctx, "begin")
	_, _ = a.Exec(ctx, "delete from acct where id = 4")
	_, _ = b.Exec(ctx, "delete from acct where id = 4")
	if err := commit(ctx, a); err != nil {
		t.Fatal(err)
	}
	err := commit(ctx, b)
	if sqlState(err) != "40001" {
		t.Fatalf("same-row delete: %v", err)
	}
	// the detail names the table by its SQL name, never by internal id
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || !strings.Contains(pe.Detail, `table "acct"`) || regexp.MustCompile(`[0-9a-f]{16}`).MatchString(pe.Message+pe.Detail) {
		t.Fatalf("40001 text: %v", err)
	}
	// a key this transaction upserted is committed by the other process
	// before its next upsert of that key: 40001 (the transaction cannot
	// commit), not a 23505 blaming the statement
	_, _ = a.Exec(ctx, "rollback")
	_, _ = b.Exec(ctx, "rollback")
	upsert := "insert into acct values (20, 1) on conflict (id) do update set bal = acct.bal + 1"
	runSteps(t, conns, []rcStep{
		{0, "begin", ""},
		{0, upsert, ""},
		{1, "insert into acct values (20, 5)", ""},
		{0, upsert, "40001"},
		{0, "rollback", ""},
	})
}
