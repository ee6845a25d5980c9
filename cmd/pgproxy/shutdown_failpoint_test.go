//go:build failpoints

package main

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/internal/failpoint"
)

// A write that fails into recovery (55000: its table effect landed, its
// commit was not published) leaves a sidecar behind while serve runs; a
// clean shutdown resolves it, so verify finds nothing pending, and the
// failed row is not visible after a restart (rolled back, never forward).
// The write is a branch's first touch of a table: the one write shape
// that still arms a sidecar (docs/architecture.md, "Commit path v2").
func TestCleanShutdownResolvesOwnFailedWrites(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "g")
	addr, stop, stderr := startServe(t, "--data", dir)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, "postgres://alice@"+addr+"/main?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{"CREATE TABLE t (k int8)", "CALL graph.create_branch('dev')"} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	conn.Close(ctx)
	if conn, err = pgx.Connect(ctx, "postgres://alice@"+addr+"/dev?sslmode=disable"); err != nil {
		t.Fatal(err)
	}
	defer failpoint.Reset()
	if err := failpoint.Enable(failpoint.ProtocolAfterEffects, failpoint.Error(errors.New("injected failure"))); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO t VALUES (1)"); !isCode(err, "55000") {
		t.Fatalf("INSERT with a failure after its effect: %v, want 55000", err)
	}
	failpoint.Reset()
	conn.Close(ctx)
	if code, out, _ := runCmd(t, nil, "verify", "--data", dir); code == 0 || !strings.Contains(out, "pending recovery") {
		t.Fatalf("verify while serving: exit %d, want the pending intent reported:\n%s", code, out)
	}
	if code := stop(); code != 0 {
		t.Fatalf("serve exited %d: %s", code, stderr.String())
	}
	if code, out, e := runCmd(t, nil, "verify", "--data", dir); code != 0 || !strings.Contains(out, "no pending recovery") {
		t.Fatalf("verify after a clean shutdown: exit %d\n%s%s", code, out, e)
	}
	addr, stop, stderr = startServe(t, "--data", dir)
	defer stop()
	conn, err = pgx.Connect(ctx, "postgres://alice@"+addr+"/dev?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 0 {
		t.Fatalf("rows after restart = %d, %v; want 0 (the failed write rolled back): %s", n, err, stderr.String())
	}
}
