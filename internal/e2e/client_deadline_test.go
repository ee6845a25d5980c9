package e2e

import (
	"context"
	"testing"
	"time"
)

// reportMargin is how long before the test binary's own deadline a
// client still running is stopped, so that the test fails naming the
// client and printing its output instead of the binary panicking with
// a goroutine dump.
const reportMargin = 90 * time.Second

// clientContext bounds a client process (psql, pg_dump, pgbench, a
// driver or ORM script) by the test binary's deadline (go test
// -timeout), not by a budget of its own. How long a correct client run
// takes depends on the machine's load — CI runs every package at once
// under -race on two cores, and the Sequelize flow took 19 to 93 s
// there — so a fixed per-run budget made correct runs fail; the only
// thing a deadline must catch is a client that hangs, and the binary's
// deadline catches that as well. Without a deadline (-timeout 0) a run
// is unbounded, as the user asked.
func clientContext(t *testing.T) (context.Context, context.CancelFunc) {
	t.Helper()
	if d, ok := t.Deadline(); ok {
		return context.WithDeadline(context.Background(), d.Add(-reportMargin))
	}
	return context.WithCancel(context.Background())
}
