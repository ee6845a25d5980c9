//go:build failpoints

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pggraph/pggraph/internal/failpoint"
)

// crashAtEnv names a failpoint at which a serve child process (this test
// binary standing in for pgproxy) exits at once, without any cleanup: a
// SIGKILL at exactly that point of a write.
const crashAtEnv = "PGGRAPH_TEST_CRASH_AT"

func init() {
	name := os.Getenv(crashAtEnv)
	if name == "" || os.Getenv("PGGRAPH_TEST_AS_PGPROXY") != "1" {
		return
	}
	for _, p := range failpoint.All {
		if string(p) == name {
			_ = failpoint.Enable(p, func() error {
				os.Exit(137)
				return nil
			})
		}
	}
}

// TestRestartReadsAfterRecovery is the crash-visibility defect made
// deterministic: serve dies right after a write's effects are confirmed
// and before its graph commit is published (a branch's first touch of a
// table, the write shape that still arms a recovery sidecar). Recovery
// rolls such a write forward, so the first read after the restart must
// already see its row: a restarted server that answered before recovery
// would show the row absent, and a client that checked and retried would
// insert it twice once the next write's barrier rolled the first one
// forward. verify finds nothing pending while the restarted server runs
// and after its clean shutdown.
func TestRestartReadsAfterRecovery(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "g")
	srv := startServeProcess(t, dir)
	conn, err := srv.connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{"CREATE TABLE t (k int8)", "INSERT INTO t VALUES (0)", "CALL graph.create_branch('dev')"} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	conn.Close(ctx)
	if err := srv.stop(t); err != nil {
		t.Fatalf("clean shutdown: %v\n%s", err, srv.stderr.String())
	}

	srv = startServeProcess(t, dir, crashAtEnv+"="+string(failpoint.ProtocolAfterConfirm))
	if conn, err = srv.connectTo(ctx, "dev"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO t VALUES (1)"); err == nil {
		t.Fatal("the INSERT was acknowledged by a server that crashed before its commit")
	}
	if err := <-srv.done; err == nil || !strings.Contains(err.Error(), "137") {
		t.Fatalf("serve did not crash at %s: %v\n%s", failpoint.ProtocolAfterConfirm, err, srv.stderr.String())
	}

	srv = startServeProcess(t, dir)
	if conn, err = srv.connectTo(ctx, "dev"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM t WHERE k = 1").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("the first read after the restart sees the confirmed row %d times, want 1 (the server answered before recovery rolled it forward)", n)
	}
	conn.Close(ctx)
	if code, out, errOut := runCmd(t, nil, "verify", "--data", dir); code != 0 || !strings.Contains(out, "no pending recovery") {
		t.Fatalf("verify while the restarted server runs: exit %d\n%s%s", code, out, errOut)
	}
	if err := srv.stop(t); err != nil {
		t.Fatalf("clean shutdown: %v\n%s", err, srv.stderr.String())
	}
	if code, out, errOut := runCmd(t, nil, "verify", "--data", dir); code != 0 || !strings.Contains(out, "no pending recovery") {
		t.Fatalf("verify after a clean shutdown: exit %d\n%s%s", code, out, errOut)
	}
}
