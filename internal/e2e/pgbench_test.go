package e2e

import (
	"bytes"
	"context"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// pgbenchPath is PostgreSQL 15's pgbench (Debian's postgresql-15).
const pgbenchPath = "/usr/lib/postgresql/15/bin/pgbench"

// TestPgbench runs pgbench as a user would: its default -i (DROP, CREATE
// TABLE … WITH (fillfactor), COPY, VACUUM ANALYZE, primary keys)
// unchanged, then a short TPC-B-like run of four clients that does not
// retry (READ COMMITTED: writers of one row wait for each other, as in
// PostgreSQL, so no transaction may fail), and checks the bank's books
// balance: every account, teller and branch total equals the history's
// deltas.
func TestPgbench(t *testing.T) {
	if !fileExists(pgbenchPath) {
		t.Fatalf("%s not found (install with: apt-get install -y postgresql-15)", pgbenchPath)
	}
	ctx := context.Background()
	p := startProxy(t)
	run := func(args ...string) string {
		t.Helper()
		cctx, cancel := clientContext(t)
		defer cancel()
		cmd := exec.CommandContext(cctx, pgbenchPath, args...)
		cmd.Env = p.Env("main")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("pgbench %s: %v\n%s", strings.Join(args, " "), err, out.String())
		}
		return out.String()
	}
	out := run("-i")
	if !strings.Contains(out, "creating primary keys") || !strings.Contains(out, "done in") {
		t.Fatalf("pgbench -i did not finish:\n%s", out)
	}
	out = run("-c", "4", "-t", "15", "--failures-detailed")
	if m := regexp.MustCompile(`number of failed transactions: (\d+)`).FindStringSubmatch(out); m == nil || m[1] != "0" {
		t.Fatalf("pgbench run had failed transactions:\n%s", out)
	}
	if !strings.Contains(out, "number of transactions actually processed: 60/60") {
		t.Fatalf("pgbench run did not process 60 transactions:\n%s", out)
	}
	conn, err := p.Connect(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if n := queryInt(t, ctx, conn, "SELECT count(*) FROM pgbench_accounts"); n != 100000 {
		t.Errorf("pgbench_accounts has %d rows, want 100000", n)
	}
	if n := queryInt(t, ctx, conn, "SELECT count(*) FROM pgbench_history"); n != 60 {
		t.Errorf("pgbench_history has %d rows, want 60", n)
	}
	hist := queryInt(t, ctx, conn, "SELECT coalesce(sum(delta), 0) FROM pgbench_history")
	for _, tbl := range []string{"accounts:abalance", "tellers:tbalance", "branches:bbalance"} {
		name, col, _ := strings.Cut(tbl, ":")
		if got := queryInt(t, ctx, conn, "SELECT coalesce(sum("+col+"), 0) FROM pgbench_"+name); got != hist {
			t.Errorf("sum of pgbench_%s.%s is %d, history says %d", name, col, got, hist)
		}
	}
	// the primary keys pgbench -i created after its VACUUM
	mustState(t, func() error {
		_, err := conn.Exec(ctx, "INSERT INTO pgbench_branches (bid, bbalance) VALUES (1, 0)")
		return err
	}(), "23505", "duplicate branch")
	p.alive(t)
}
