package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// serve initializes an empty directory, listens, and refuses SQL with a
// clear 0A000 error rather than pretending to answer.
func TestServeRefusesSQL(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "root")
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"serve", "--data", dir, "--listen", "127.0.0.1:0", "--log-format", "json"},
			&runEnv{stdout: &out, stderr: &errb, getenv: func(string) (string, bool) { return "", false }})
	}()
	var addr string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if s := out.String(); strings.Contains(s, "listening on ") {
			addr = strings.Fields(strings.SplitN(s, "listening on ", 2)[1])[0]
			addr = strings.TrimSuffix(addr, ";")
			break
		}
	}
	if addr == "" {
		cancel()
		t.Fatalf("serve did not start: %s %s", out.String(), errb.String())
	}
	for _, sslmode := range []string{"disable", "prefer"} {
		_, err := pgx.Connect(context.Background(), "postgres://u@"+addr+"/main?sslmode="+sslmode)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "0A000" || !strings.Contains(pgErr.Message, "cannot execute SQL") {
			t.Errorf("sslmode=%s: connect err = %v, want 0A000", sslmode, err)
		}
	}
	if !strings.Contains(errb.String(), `"msg":"initialized a new graph root"`) {
		t.Errorf("json log lacks the init line: %s", errb.String())
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("serve exited %d: %s", code, errb.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "_graph.json")); err != nil {
		t.Fatal("serve did not initialize the root")
	}
}
