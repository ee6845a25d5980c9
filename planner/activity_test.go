package planner

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
)

// pg_stat_database and pg_stat_user_tables count what this process's
// sessions did: transactions committed and rolled back (implicit ones
// included), sessions, and rows inserted (INSERT and COPY), updated and
// deleted per table. The counters are process-wide, so the test works
// on a branch of its own and compares before and after.
func TestActivityCounters(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, nil)
	admin := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	if _, err := admin.Exec(ctx, "call graph.create_branch('activity_counters')"); err != nil {
		t.Fatal(err)
	}
	c, err := pgx.Connect(ctx, ts.url("activity_counters"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	exec := func(sql string) {
		t.Helper()
		if _, err := c.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	type dbStats struct{ commits, rollbacks, ins, upd, del, sessions int64 }
	readDB := func() dbStats {
		t.Helper()
		var s dbStats
		if err := c.QueryRow(ctx, "select xact_commit, xact_rollback, tup_inserted, tup_updated, tup_deleted, sessions from pg_stat_database where datname = current_database()").
			Scan(&s.commits, &s.rollbacks, &s.ins, &s.upd, &s.del, &s.sessions); err != nil {
			t.Fatal(err)
		}
		return s
	}
	exec("create table counted (id int primary key, v text)")
	before := readDB()
	exec("insert into counted values (1, 'a'), (2, 'b'), (3, 'c')")
	exec("update counted set v = 'x' where id <= 2")
	exec("delete from counted where id = 3")
	exec("update counted set v = 'none' where id = 99") // no row: nothing counted
	if _, err := c.CopyFrom(ctx, pgx.Identifier{"counted"}, []string{"id", "v"}, pgx.CopyFromRows([][]any{{int32(4), "d"}, {int32(5), "e"}})); err != nil {
		t.Fatal(err)
	}
	exec("begin")
	exec("insert into counted values (6, 'f')")
	exec("rollback")
	if _, err := c.Exec(ctx, "insert into counted values (1, 'dup')"); err == nil {
		t.Fatal("duplicate key accepted")
	}
	after := readDB()
	// statements: insert, update, delete, update, copy (5 commits, and the
	// readDB query's own implicit transaction ends after it reads); the
	// block and the failed insert roll back
	if got := after.commits - before.commits; got != 6 {
		t.Errorf("xact_commit grew by %d, want 6", got)
	}
	if got := after.rollbacks - before.rollbacks; got != 2 {
		t.Errorf("xact_rollback grew by %d, want 2", got)
	}
	if d := (dbStats{ins: after.ins - before.ins, upd: after.upd - before.upd, del: after.del - before.del}); d.ins != 6 || d.upd != 2 || d.del != 1 {
		t.Errorf("tup_inserted/updated/deleted grew by %d/%d/%d, want 6/2/1", d.ins, d.upd, d.del)
	}
	if after.sessions < 1 {
		t.Errorf("sessions %d", after.sessions)
	}
	var ins, upd, del, live int64
	if err := c.QueryRow(ctx, "select n_tup_ins, n_tup_upd, n_tup_del, n_live_tup from pg_stat_user_tables where relname = 'counted'").Scan(&ins, &upd, &del, &live); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(ins, upd, del, live); got != "6 2 1 4" {
		t.Errorf("n_tup_ins, n_tup_upd, n_tup_del, n_live_tup = %s, want 6 2 1 4", got)
	}
}
