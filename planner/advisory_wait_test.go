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

// TestAdvisoryLockWaitsDifferential has one session wait for an advisory
// lock another holds and checks what monitoring tools see of the wait
// from a third session — pg_locks' ungranted request, pg_stat_activity's
// wait event, pg_blocking_pids on both sides — then that the wait ends
// and leaves nothing behind when the holder unlocks. PostgreSQL 15 is the
// reference; process ids are substituted into the statements.
func TestAdvisoryLockWaitsDifferential(t *testing.T) {
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
		say(holder, "SELECT pg_advisory_lock(42)")
		done := make(chan string, 1)
		go func() { done <- outcome(ctx, waiter, "SELECT pg_advisory_lock(42), 'granted'") }()
		// the waiter's request shows up once its statement runs
		const waiting = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
		for deadline := time.Now().Add(time.Minute); outcome(ctx, watcher, waiting) != "SELECT 1\n  1" && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		say(watcher, waiting)
		say(watcher, "SELECT pg_blocking_pids(WAITER) = ARRAY[HOLDER], cardinality(pg_blocking_pids(HOLDER)), pg_blocking_pids(NULL)")
		say(watcher, "SELECT state, wait_event_type, wait_event FROM pg_stat_activity WHERE pid = WAITER")
		say(watcher, "SELECT pid = WAITER, mode, granted, waitstart IS NOT NULL, classid, objid, objsubid FROM pg_locks WHERE locktype = 'advisory' ORDER BY granted, pid")
		say(holder, "SELECT pg_advisory_unlock(42)")
		out = append(out, "waiter: "+<-done)
		say(watcher, "SELECT pid = WAITER, granted, waitstart FROM pg_locks WHERE locktype = 'advisory'")
		say(watcher, "SELECT cardinality(pg_blocking_pids(WAITER))")
		say(watcher, "SELECT wait_event_type IS DISTINCT FROM 'Lock' FROM pg_stat_activity WHERE pid = WAITER")
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
