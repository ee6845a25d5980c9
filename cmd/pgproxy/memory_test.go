package main

import (
	"context"
	"errors"
	"runtime"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestQueryMemoryFlag: --query-memory bounds what one query builds (the
// issue's 2 GB string_agg fails with 53200 once it has built 64 MB) and
// the session goes on; --memory-limit is accepted.
func TestQueryMemoryFlag(t *testing.T) {
	addr, stop, stderr := startServe(t, "--data", t.TempDir(), "--query-memory", "67108864", "--memory-limit", "1073741824")
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, "postgres://alice@"+addr+"/main?sslmode=disable")
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	_, err = conn.Exec(ctx, "SELECT length(string_agg(repeat('x', 100000), '')) FROM generate_series(1, 20000)")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "53200" || pe.Detail != "query exceeded its memory budget of 67108864 bytes" {
		t.Fatalf("2 GB string_agg: %v", err)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("2 GB string_agg under a 64 MB budget: %s; process heap obtained from the OS: %d MB", pe.Message, ms.HeapSys>>20)
	var one int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Fatalf("after 53200: %v", err)
	}
	conn.Close(ctx)
	if code := stop(); code != 0 {
		t.Fatalf("serve exited %d: %s", code, stderr.String())
	}
}
