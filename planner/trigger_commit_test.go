package planner

import (
	"context"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"
)

// An autocommit INSERT, UPDATE or DELETE on a table with triggers
// publishes what the statement and its trigger functions wrote as one
// graph commit: an AFTER STATEMENT trigger sees the statement's rows, and
// a statement that fails after a trigger wrote leaves nothing behind.
func TestTriggerWritesShareTheStatementsCommit(t *testing.T) {
	ctx := context.Background()
	c := startServer(t, nil).connect(t, pgx.QueryExecModeSimpleProtocol)
	enumExec(t, c,
		"create table t (id int primary key)",
		"create table log (id int, what text)",
		`create function log_row() returns trigger language plpgsql as $$
		 begin
		   if tg_op = 'DELETE' then insert into log values (old.id, tg_op || ' ' || tg_when); return old; end if;
		   insert into log values (new.id, tg_op || ' ' || tg_when); return new;
		 end $$`,
		`create function log_count() returns trigger language plpgsql as $$
		 begin insert into log select count(*), tg_op || ' sees' from t; return null; end $$`,
		"create trigger r before insert or update or delete on t for each row execute function log_row()",
		"create trigger s after insert or update or delete on t for each statement execute function log_count()")
	commits := func() int {
		n, err := strconv.Atoi(enumRows(t, c, "select count(*) from graph.commits"))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, step := range []struct{ sql, log string }{
		{"insert into t values (1), (2)", "1|INSERT BEFORE;2|INSERT BEFORE;2|INSERT sees"},
		{"update t set id = 3 where id = 2", "3|UPDATE BEFORE;2|UPDATE sees"},
		{"delete from t where id = 1", "1|DELETE BEFORE;1|DELETE sees"},
	} {
		enumExec(t, c, "delete from log")
		before := commits()
		enumExec(t, c, step.sql)
		if got := commits(); got != before+1 {
			t.Errorf("%s: %d commits after %d, want one for the statement and its triggers", step.sql, got, before)
		}
		if got := enumRows(t, c, "select id, what from log order by what, id"); got != step.log {
			t.Errorf("%s: log %q, want %q", step.sql, got, step.log)
		}
	}
	enumExec(t, c, "delete from log")
	before := commits()
	if _, err := c.Exec(ctx, "insert into t values (5), (3)"); err == nil {
		t.Fatal("duplicate key accepted")
	}
	if got := enumRows(t, c, "select count(*) from log"); got != "0" || commits() != before {
		t.Fatalf("a failed INSERT left %s log rows and %d commits (was %d)", got, commits(), before)
	}
}
