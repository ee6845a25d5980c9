package planner

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// TestRowLockWaitsDifferential: a transaction updating a row another
// transaction has updated waits, and the lock-monitoring views show it
// as PostgreSQL 15 does: pg_locks has the holder's transactionid lock
// (granted), the waiter's tuple lock and its ungranted ShareLock on the
// holder's transaction id, so the usual "who blocks whom" self-join
// finds the pair; pg_blocking_pids names the holder; pg_stat_activity
// shows the waiter in Lock/transactionid and the holder's backend_xid.
func TestRowLockWaitsDifferential(t *testing.T) {
	pg := pgtest.Shared(t)
	ts := startServer(t, nil)
	ctx := context.Background()
	run := func(url string) []string {
		var holder, waiter, watcher *pgconn.PgConn
		for _, c := range []**pgconn.PgConn{&holder, &waiter, &watcher} {
			conn, err := pgconn.Connect(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			*c = conn
		}
		pids := strings.NewReplacer("HOLDER", fmt.Sprint(holder.PID()), "WAITER", fmt.Sprint(waiter.PID()))
		var out []string
		say := func(c *pgconn.PgConn, sql string) {
			out = append(out, sql+" => "+outcome(ctx, c, pids.Replace(sql)))
		}
		say(watcher, "DROP TABLE IF EXISTS acct")
		say(watcher, "CREATE TABLE acct (id int PRIMARY KEY, bal int)")
		say(watcher, "INSERT INTO acct VALUES (1, 100), (2, 200)")
		say(holder, "BEGIN")
		say(holder, "UPDATE acct SET bal = bal + 1 WHERE id = 1")
		say(watcher, "SELECT count(*) FROM pg_locks WHERE locktype = 'transactionid' AND NOT granted")
		done := make(chan string, 1)
		go func() { done <- outcome(ctx, waiter, "UPDATE acct SET bal = bal + 10 WHERE id = 1") }()
		const waiting = "SELECT count(*) FROM pg_locks WHERE locktype = 'transactionid' AND NOT granted"
		for deadline := time.Now().Add(time.Minute); outcome(ctx, watcher, waiting) != "SELECT 1\n  1" && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		say(watcher, waiting)
		say(watcher, "SELECT pg_blocking_pids(WAITER) = ARRAY[HOLDER], cardinality(pg_blocking_pids(HOLDER))")
		say(watcher, "SELECT state, wait_event_type, wait_event, backend_xid IS NULL FROM pg_stat_activity WHERE pid = WAITER")
		say(watcher, "SELECT wait_event_type, backend_xid IS NOT NULL FROM pg_stat_activity WHERE pid = HOLDER")
		say(watcher, "SELECT locktype, mode, granted, relation = 'acct'::regclass, waitstart IS NOT NULL FROM pg_locks WHERE pid = WAITER AND locktype IN ('transactionid', 'tuple') ORDER BY locktype, mode")
		say(watcher, "SELECT locktype, mode, granted FROM pg_locks WHERE pid = HOLDER AND locktype = 'transactionid'")
		say(watcher, `SELECT blocked.pid = WAITER, blocking.pid = HOLDER, blocked.mode, blocking.mode
			FROM pg_locks blocked JOIN pg_locks blocking ON blocking.locktype = blocked.locktype
			 AND blocking.transactionid IS NOT DISTINCT FROM blocked.transactionid AND blocking.pid <> blocked.pid AND blocking.granted
			WHERE NOT blocked.granted`)
		say(holder, "COMMIT")
		out = append(out, "waiter: "+<-done)
		say(watcher, waiting)
		say(watcher, "SELECT count(*) FROM pg_locks WHERE locktype IN ('transactionid', 'tuple') AND pid IN (HOLDER, WAITER)")
		say(watcher, "SELECT cardinality(pg_blocking_pids(WAITER))")
		say(watcher, "SELECT bal FROM acct WHERE id = 1")
		return out
	}
	want := run(pg.ConnString("postgres"))
	got := run(ts.url("main"))
	for i := range want {
		if i >= len(got) || want[i] != got[i] {
			t.Errorf("\n  postgres: %s\n  pgproxy:  %s", want[i], got[min(i, len(got)-1)])
		}
	}
}

// TestRowLockWaitRelationOnBranch: pg_locks.relation of a row-lock wait
// names a table created off main (a random table id, its OID kept in its
// entry) as it does any other: it equals the table's regclass.
func TestRowLockWaitRelationOnBranch(t *testing.T) {
	ts := startServer(t, nil)
	ctx := context.Background()
	setup, err := pgconn.Connect(ctx, ts.url("main"))
	if err != nil {
		t.Fatal(err)
	}
	defer setup.Close(ctx)
	if got := outcome(ctx, setup, "CALL graph.create_branch('dev')"); strings.Contains(got, "ERROR") {
		t.Fatal(got)
	}
	var holder, waiter, watcher *pgconn.PgConn
	for _, c := range []**pgconn.PgConn{&holder, &waiter, &watcher} {
		conn, err := pgconn.Connect(ctx, ts.url("dev"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		*c = conn
	}
	for _, q := range []string{"CREATE TABLE acct (id int PRIMARY KEY, bal int)", "INSERT INTO acct VALUES (1, 100)"} {
		if got := outcome(ctx, watcher, q); strings.Contains(got, "ERROR") {
			t.Fatal(got)
		}
	}
	outcome(ctx, holder, "BEGIN")
	outcome(ctx, holder, "UPDATE acct SET bal = bal + 1 WHERE id = 1")
	done := make(chan string, 1)
	go func() { done <- outcome(ctx, waiter, "UPDATE acct SET bal = bal + 10 WHERE id = 1") }()
	q := fmt.Sprintf("SELECT relation = 'acct'::regclass, relation, 'acct'::regclass::oid FROM pg_locks WHERE pid = %d AND locktype = 'tuple'", waiter.PID())
	got := ""
	for deadline := time.Now().Add(time.Minute); !strings.HasPrefix(got, "SELECT 1\n  t") && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		got = outcome(ctx, watcher, q)
	}
	outcome(ctx, holder, "COMMIT")
	<-done
	if !strings.HasPrefix(got, "SELECT 1\n  t") {
		t.Fatalf("the waiter's tuple lock on a branch-created table: %q, want its relation to be acct's OID", got)
	}
}
