package planner

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestFunctionsAreGraphState: functions and triggers are versioned
// catalog state. A second process on the same directory calls a function
// the first created and its trigger fires there; a branch made before
// CREATE OR REPLACE keeps the old body; after a restart both are as
// committed; COPY FROM (autocommit and in a transaction) fires the
// trigger, and the trigger's writes are part of the same commit.
func TestFunctionsAreGraphState(t *testing.T) {
	ctx := context.Background()
	root := newSharedRoot(t)
	serve := root.serve
	a := serve(true, "main")
	b := serve(false, "main")
	enumExec(t, a, "create function label(n int) returns text language sql as $$ select 'v1:' || n $$",
		"create table t (id int primary key, name text, stamp text)",
		"create table log (id int)",
		`create function stamp() returns trigger language plpgsql as $$
		 begin
		   new.stamp := label(new.id);
		   insert into log values (new.id);
		   return new;
		 end $$`,
		"create trigger t_stamp before insert on t for each row execute function stamp()")
	if got := enumRows(t, b, "select label(7)"); got != "v1:7" {
		t.Fatalf("the other process's function: %s", got)
	}
	enumExec(t, b, "insert into t (id, name) values (1, 'x')")
	if got := enumRows(t, a, "select id, name, stamp from t"); got != "1|x|v1:1" {
		t.Fatalf("trigger fired by the other process: %s", got)
	}
	enumExec(t, a, "call graph.create_branch('before')",
		"create or replace function label(n int) returns text language sql as $$ select 'v2:' || n $$")
	if got := enumRows(t, b, "select label(7)"); got != "v2:7" {
		t.Fatalf("replaced body in the other process: %s", got)
	}
	// COPY in autocommit and inside a transaction fires the trigger
	if _, err := a.CopyFrom(ctx, pgx.Identifier{"t"}, []string{"id", "name"}, pgx.CopyFromRows([][]any{{int32(2), "c"}, {int32(3), "d"}})); err != nil {
		t.Fatal(err)
	}
	tx, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"t"}, []string{"id", "name"}, pgx.CopyFromRows([][]any{{int32(4), "e"}})); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if got := enumRows(t, a, "select id, stamp from t order by id"); got != "1|v1:1;2|v2:2;3|v2:3" {
		t.Fatalf("after COPY: %s", got)
	}
	if got := enumRows(t, a, "select id from log order by id"); got != "1;2;3" {
		t.Fatalf("the trigger's writes: %s", got)
	}
	root.closeAll()
	c := serve(false, "main")
	if got := enumRows(t, c, "select label(1), count(*) from pg_trigger where tgname = 't_stamp'"); got != "v2:1|1" {
		t.Fatalf("after restart: %s", got)
	}
	old := serve(false, "before")
	if got := enumRows(t, old, "select label(1)"); got != "v1:1" {
		t.Fatalf("branch made before CREATE OR REPLACE: %s", got)
	}
	enumExec(t, c, "drop trigger t_stamp on t", "drop function stamp()", "insert into t (id) values (9)")
	if got := enumRows(t, c, "select count(*) from log"); got != "3" {
		t.Fatalf("dropped trigger fired: %s", got)
	}
	if got := enumRows(t, old, "select count(*) from pg_trigger"); got != "1" {
		t.Fatalf("the branch lost its trigger: %s", got)
	}
}
