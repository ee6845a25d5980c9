package planner

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestMergeChecksConstraints: graph.merge refuses a merge whose two
// sides together break a SQL constraint — a UNIQUE key added on both
// branches under different primary keys (23505), an edge added on one
// branch whose endpoint the other deleted (23503), a CHECK — naming the
// constraint, and publishes nothing; a merge that breaks nothing goes
// through.
func TestMergeChecksConstraints(t *testing.T) {
	ts := startServer(t, nil)
	ctx := context.Background()
	main := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	runScript(t, main, []step{
		{sql: "create table people (id int primary key, email text unique, age int check (age >= 0))"},
		{sql: "create table knows (src int references people, dst int references people, since int) with (graph.kind = edge)"},
		{sql: "insert into people values (1, 'a@x', 30), (2, 'b@x', 40), (3, 'c@x', 50)"},
		{sql: "insert into knows values (1, 2, 2020)"},
		{sql: "select graph.create_branch('dev')"},
	})
	connect := func(db string) *pgx.Conn {
		cfg, err := pgx.ParseConfig(ts.url(db))
		if err != nil {
			t.Fatal(err)
		}
		cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
		c, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(ctx) })
		return c
	}
	dev := connect("dev")
	head := func() string {
		var id string
		if err := main.QueryRow(ctx, "select id from graph.commits limit 1").Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}

	// the same email added on both sides under different ids
	runScript(t, dev, []step{{sql: "insert into people values (10, 'same@x', 1)"}})
	runScript(t, main, []step{{sql: "insert into people values (11, 'same@x', 2)"}})
	before := head()
	runScript(t, main, []step{
		{sql: "select graph.merge('dev')", code: "23505", msg: `duplicate key value violates unique constraint "people_email_key"`, detail: "Key (email)=(same@x) already exists."},
	})
	if head() != before {
		t.Fatal("a refused merge published a commit")
	}
	runScript(t, main, []step{{sql: "delete from people where id = 11"}, {sql: "select graph.merge('dev')"}})

	// main adds an edge to a person dev deletes: the target's row loses
	// its parent
	runScript(t, dev, []step{{sql: "delete from people where id = 3"}})
	runScript(t, main, []step{{sql: "insert into knows values (2, 3, 2025)"}})
	before = head()
	runScript(t, main, []step{
		{sql: "select graph.merge('dev')", code: "23503", msg: `update or delete on table "people" violates foreign key constraint "knows_dst_fkey" on table "knows"`,
			detail: `Key (id)=(3) is still referenced from table "knows".`},
	})
	if head() != before {
		t.Fatal("a refused merge published a commit")
	}
	runScript(t, main, []step{
		{sql: "delete from knows where dst = 3"},
		{sql: "select graph.merge('dev')"},
		{sql: "select string_agg(id::text, ',' order by id) from people", rows: "1,2,10"},
	})

	// dev adds an edge from a person main deletes: the added row has no
	// parent
	runScript(t, dev, []step{{sql: "insert into knows values (10, 2, 2024)"}})
	runScript(t, main, []step{{sql: "delete from people where id = 10"}})
	before = head()
	runScript(t, main, []step{
		{sql: "select graph.merge('dev')", code: "23503", msg: `insert or update on table "knows" violates foreign key constraint "knows_src_fkey"`,
			detail: `Key (src)=(10) is not present in table "people".`},
	})
	if head() != before {
		t.Fatal("a refused merge published a commit")
	}
	runScript(t, main, []step{{sql: "select count(*) from knows", rows: "1"}})

	runScript(t, main, []step{{sql: "insert into people values (10, 'back@x', 1)"}, {sql: "select graph.merge('dev')"},
		{sql: "select count(*) from knows", rows: "2"}})

	// a CHECK one branch added, broken by rows the other branch wrote
	runScript(t, main, []step{{sql: "alter table people add constraint age_max check (age < 100)"}})
	runScript(t, dev, []step{{sql: "update people set age = 150 where id = 1"}})
	before = head()
	runScript(t, main, []step{
		{sql: "select graph.merge('dev')", code: "23514", msg: `new row for relation "people" violates check constraint "age_max"`},
	})
	if head() != before {
		t.Fatal("a refused merge published a commit")
	}
}
