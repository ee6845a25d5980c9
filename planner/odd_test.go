package planner

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestStatementErrors: malformed or impossible writes get PostgreSQL's
// SQLSTATE (never an internal error), and the session stays usable.
func TestStatementErrors(t *testing.T) {
	ts := startServer(t, createPeople(t))
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	cases := []struct{ sql, code string }{
		{"insert into people default values", "23502"},
		{"insert into people values ()", "42601"},
		{"insert into people (id) values (1), (2, 3)", "42601"},
		{"insert into people select 1", "23505"}, // the other columns take their defaults, as in PostgreSQL: id 1 exists
		{"insert into people select 100, 'a', 1, 2", "42601"},
		{"insert into people (id) select 'x'", "22P02"},
		{"update people set id = null where id = 1", "23502"},
		{"update people set name = (select name from people)", "21000"},
		{"update people set name = 'x' where nope = 1", "42703"},
		{"delete from people where id = (select 1, 2)", "42601"},
		{"merge into people t using nope s on t.id = s.id when matched then delete", "42P01"},
		{"with x as (insert into people values (9) returning id) select * from x", "0A000"},
		{"insert into pg_class values (1)", "42P01"},
		{"update graph.commits set message = 'x'", "42809"},
		{"delete from information_schema.tables", "42809"},
		{"truncate graph.commits", "42809"},
		{"copy people from '/etc/passwd'", "0A000"},
		{"update people set score = 'abc'", "22P02"},
		{"insert into people values (1e30, 'x', 1)", "22003"},
		{"select setval('x', 1, true, 4)", "42883"},
	}
	for _, tc := range cases {
		_, err := c.Exec(context.Background(), tc.sql)
		if sqlState(err) != tc.code {
			t.Errorf("%s: %v, want %s", tc.sql, err, tc.code)
		}
	}
	// pg_advisory_lock is strict: a NULL key is a NULL result, not an error (as PostgreSQL 15).
	runScript(t, c, []step{{sql: "select count(*) from people", rows: "3"}, {sql: "select pg_advisory_lock(null) is null", rows: "true"}})
}
