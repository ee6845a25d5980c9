package planner

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestInsteadOfOneCommit: an autocommit INSERT, UPDATE or DELETE through
// a view's INSTEAD OF trigger publishes everything the trigger function
// wrote as one graph commit (differential cases are in
// testdata/plpgsql/instead_of_triggers.sql).
func TestInsteadOfOneCommit(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	for _, sql := range []string{
		"create table items (id int primary key, name text)",
		"create table log (op text, id int)",
		"create view items_v as select id, name from items",
		`create function items_v_write() returns trigger language plpgsql as $$
		begin
		  insert into log values (tg_op, coalesce(new.id, old.id));
		  if tg_op = 'INSERT' then insert into items values (new.id, new.name); return new;
		  elsif tg_op = 'UPDATE' then update items set name = new.name where id = old.id; return new;
		  end if;
		  delete from items where id = old.id;
		  return old;
		end $$`,
		"create trigger items_v_w instead of insert or update or delete on items_v for each row execute function items_v_write()",
	} {
		if _, err := c.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	for _, step := range []struct{ sql, tag string }{
		{"insert into items_v values (1, 'a'), (2, 'b')", "INSERT 0 2"},
		{"update items_v set name = 'bb' where id = 2", "UPDATE 1"},
		{"delete from items_v where id = 1", "DELETE 1"},
	} {
		v0 := headVersion(t, ts)
		tag, err := c.Exec(ctx, step.sql)
		if err != nil || tag.String() != step.tag {
			t.Fatalf("%s: %q, %v", step.sql, tag, err)
		}
		if v := headVersion(t, ts); v != v0+1 {
			t.Fatalf("%s: head %d → %d, want one graph commit", step.sql, v0, v)
		}
	}
	var n int
	var name string
	if err := c.QueryRow(ctx, "select count(*), max(name) from items").Scan(&n, &name); err != nil || n != 1 || name != "bb" {
		t.Fatalf("items: %d rows, max %q, %v", n, name, err)
	}
	if err := c.QueryRow(ctx, "select count(*) from log").Scan(&n); err != nil || n != 4 {
		t.Fatalf("log: %d rows, %v", n, err)
	}
}
