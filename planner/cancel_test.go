package planner

import (
	"context"
	"errors"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// crossJoin runs for minutes unless cancelled.
const crossJoin = "SELECT count(*) FROM generate_series(1, 200000) a, generate_series(1, 200000) b"

// TestDisconnectCancelsStatement: a client that disconnects while its
// cross join runs gets the statement cancelled and its transaction rolled
// back: the goroutines and the CPU come back, and the transaction's
// insert is gone.
func TestDisconnectCancelsStatement(t *testing.T) {
	ts := startServer(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	if _, err := admin.Exec(ctx, "CREATE TABLE marks (id int8 PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	base := runtime.NumGoroutine()
	nc, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	fe := pgproto3.NewFrontend(nc, nc)
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "app", "database": "main"}})
	fe.Send(&pgproto3.Query{String: "BEGIN; INSERT INTO marks VALUES (1)"})
	fe.Send(&pgproto3.Query{String: crossJoin})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	for ready := 0; ready < 2; {
		msg, err := fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := msg.(*pgproto3.ReadyForQuery); ok {
			ready++
		}
	}
	time.Sleep(300 * time.Millisecond) // the cross join is running
	nc.Close()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > base+1 {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines, %d before the client came:\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(20 * time.Millisecond)
	}
	// A statement that kept running would burn at least one core in every
	// window; other tests' leftovers (GC of their heaps, closing servers)
	// burn briefly. So one quiet window out of five proves the CPU came back.
	var used []time.Duration
	for quiet := false; !quiet; {
		if len(used) == 5 {
			t.Fatalf("the process used %v of CPU per 500ms after the client left", used)
		}
		before := cpuTime()
		time.Sleep(500 * time.Millisecond)
		used = append(used, cpuTime()-before)
		quiet = used[len(used)-1] < 250*time.Millisecond
	}
	var n int64
	if err := admin.QueryRow(ctx, "SELECT count(*) FROM marks").Scan(&n); err != nil || n != 0 {
		t.Fatalf("rows of the dropped transaction: %d, %v", n, err)
	}
}

// TestSignalBackend: pg_cancel_backend cancels another session's running
// statement (57014 for it), pg_terminate_backend ends a session (57P01),
// and an unknown pid answers false with PostgreSQL's warning.
func TestSignalBackend(t *testing.T) {
	ts := startServer(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	victim := ts.connect(t, pgx.QueryExecModeCacheStatement)
	var pid int32
	if err := victim.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	var notices []string
	cfg, err := pgx.ParseConfig(ts.url("main"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		notices = append(notices, n.Severity+" "+n.Code+" "+n.Message)
	}
	admin, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)

	done := make(chan error, 1)
	go func() {
		var n int64
		done <- victim.QueryRow(ctx, crossJoin).Scan(&n)
	}()
	time.Sleep(300 * time.Millisecond)
	var ok bool
	if err := admin.QueryRow(ctx, "SELECT pg_cancel_backend($1)", pid).Scan(&ok); err != nil || !ok {
		t.Fatalf("pg_cancel_backend: %v, %v", ok, err)
	}
	select {
	case err := <-done:
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "57014" || pe.Message != "canceling statement due to user request" {
			t.Fatalf("victim got %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled statement kept running")
	}
	var one int
	if err := victim.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Fatalf("victim after cancel: %v", err)
	}

	if err := admin.QueryRow(ctx, "SELECT pg_cancel_backend(987654)").Scan(&ok); err != nil || ok {
		t.Fatalf("unknown pid: %v, %v", ok, err)
	}
	if len(notices) != 1 || notices[0] != "WARNING 01000 PID 987654 is not a PostgreSQL backend process" {
		t.Fatalf("notices %q", notices)
	}
	if err := admin.QueryRow(ctx, "SELECT pg_terminate_backend($1, 5000)", pid).Scan(&ok); err != nil || !ok {
		t.Fatalf("pg_terminate_backend: %v, %v", ok, err)
	}
	err = victim.QueryRow(ctx, "SELECT 1").Scan(&one)
	var pe *pgconn.PgError
	if err == nil || (errors.As(err, &pe) && pe.Code != "57P01") || (!errors.As(err, &pe) && !strings.Contains(err.Error(), "closed")) {
		t.Fatalf("terminated victim: %v", err)
	}
	if _, err := admin.Exec(ctx, "SELECT pg_terminate_backend(1, -1)"); err == nil || !strings.Contains(err.Error(), "must not be negative (SQLSTATE 22023)") {
		t.Fatalf("negative timeout: %v", err)
	}
}
