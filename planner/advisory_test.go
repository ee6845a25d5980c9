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

// TestAdvisoryLocksDifferential runs one multi-session script of advisory
// lock calls (at the top level, among other items, in WHERE; exclusive
// and shared; session and transaction scope; a disconnect) against
// PostgreSQL 15 and pgproxy and requires the same outcome at every step.
func TestAdvisoryLocksDifferential(t *testing.T) {
	type step struct {
		who  int    // session 0..2; -1 closes session 0 and opens it again
		sql  string // "" with who -1
		want string // outcome (both servers must give it)
		poll bool   // retry until want (the server ends a closed session asynchronously)
	}
	steps := []step{
		{0, "SELECT pg_advisory_lock(1)", "SELECT 1\n  ", false},
		{1, "SELECT 1, pg_try_advisory_lock(1)", "SELECT 1\n  1|f", false},
		{1, "SELECT n FROM (VALUES (1), (2)) v(n) WHERE pg_try_advisory_lock(n::bigint + 10) ORDER BY n", "SELECT 2\n  1\n  2", false},
		{2, "SELECT pg_try_advisory_lock(11), pg_try_advisory_lock(0, 1)", "SELECT 1\n  f|t", false},
		{0, "SELECT pg_try_advisory_lock(0, 1)", "SELECT 1\n  f", false},
		{0, "SELECT pg_advisory_lock(1), pg_try_advisory_lock(1)", "SELECT 1\n  |t", false}, // re-entrant
		{0, "SELECT pg_advisory_unlock(1), pg_advisory_unlock(1)", "SELECT 1\n  t|t", false},
		{1, "SELECT pg_try_advisory_lock(1)", "SELECT 1\n  f", false}, // still held once
		{0, "SELECT pg_advisory_unlock(2)", "SELECT 1\n  f", false},
		{-1, "", "", false}, // session 0 disconnects: its lock on 1 goes
		{1, "SELECT pg_try_advisory_lock(1)", "SELECT 1\n  t", true},
		{1, "SELECT pg_advisory_unlock_all()", "SELECT 1\n  ", false},
		// transaction scope: released at COMMIT and ROLLBACK, and at the
		// end of an autocommit statement
		{0, "BEGIN", "BEGIN", false},
		{0, "SELECT pg_advisory_xact_lock(5)", "SELECT 1\n  ", false},
		{1, "SELECT pg_try_advisory_lock(5), pg_try_advisory_lock_shared(5)", "SELECT 1\n  f|f", false},
		{0, "SELECT pg_advisory_unlock(5)", "SELECT 1\n  f", false}, // unlock only ends session holds
		{0, "COMMIT", "COMMIT", false},
		{1, "SELECT pg_try_advisory_xact_lock(5)", "SELECT 1\n  t", false},
		{2, "SELECT pg_try_advisory_lock(5)", "SELECT 1\n  t", false},
		{2, "SELECT pg_advisory_unlock(5)", "SELECT 1\n  t", false},
		{0, "BEGIN", "BEGIN", false},
		{0, "SELECT pg_try_advisory_xact_lock(6)", "SELECT 1\n  t", false},
		{1, "SELECT pg_try_advisory_xact_lock(6)", "SELECT 1\n  f", false},
		{0, "ROLLBACK", "ROLLBACK", false},
		{1, "SELECT pg_try_advisory_xact_lock(6)", "SELECT 1\n  t", false},
		// shared holds coexist; an exclusive request waits for them
		{0, "SELECT pg_advisory_lock_shared(7)", "SELECT 1\n  ", false},
		{1, "SELECT pg_try_advisory_lock_shared(7)", "SELECT 1\n  t", false},
		{2, "SELECT pg_try_advisory_lock(7)", "SELECT 1\n  f", false},
		{0, "SELECT pg_advisory_unlock_shared(7), pg_advisory_unlock(7)", "SELECT 1\n  t|f", false},
		{2, "SELECT pg_try_advisory_lock(7)", "SELECT 1\n  f", false},
		{1, "SELECT pg_advisory_unlock_shared(7)", "SELECT 1\n  t", false},
		{2, "SELECT pg_try_advisory_lock(7)", "SELECT 1\n  t", false},
		{0, "SELECT pg_try_advisory_lock_shared(7)", "SELECT 1\n  f", false},
		{2, "SELECT pg_advisory_unlock_all()", "SELECT 1\n  ", false},
		{0, "SELECT pg_advisory_lock(NULL)", "SELECT 1\n  NULL", false},
	}
	pg := pgtest.Shared(t)
	ts := startServer(t, nil)
	ctx := context.Background()
	open := func(url string) *pgconn.PgConn {
		c, err := pgconn.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	run := func(name, url string) []string {
		var conns [3]*pgconn.PgConn
		for i := range conns {
			conns[i] = open(url)
		}
		defer func() {
			for _, c := range conns {
				c.Close(ctx)
			}
		}()
		var out []string
		for _, st := range steps {
			if st.who < 0 {
				conns[0].Close(ctx)
				conns[0] = open(url)
				out = append(out, "")
				continue
			}
			got := outcome(ctx, conns[st.who], st.sql)
			for deadline := time.Now().Add(5 * time.Second); st.poll && got != st.want && time.Now().Before(deadline); {
				time.Sleep(20 * time.Millisecond)
				got = outcome(ctx, conns[st.who], st.sql)
			}
			if got != st.want {
				t.Errorf("%s: session %d %s:\n  got  %q\n  want %q", name, st.who, st.sql, got, st.want)
			}
			out = append(out, got)
		}
		return out
	}
	want := run("postgres", pg.ConnString("postgres"))
	got := run("pgproxy", ts.url("main"))
	if strings.Join(want, "\n") != strings.Join(got, "\n") {
		t.Errorf("outcomes differ")
	}
	if len(got) != len(steps) {
		t.Fatal(fmt.Sprint(len(got)))
	}
}
