package wire

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

func TestGracefulShutdown(t *testing.T) {
	ts := startServer(t, nil)
	idle, _ := connectRaw(t, ts, nil)
	busy, _ := connectRaw(t, ts, nil)
	busy.send(q("select sleep(400)"))
	ts.backend.waitSleeping(t)

	done := make(chan error, 1)
	start := time.Now()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		done <- ts.srv.Shutdown(ctx)
	}()
	// the running statement finishes with its result, then the session ends
	got := strings.Join(busy.until(2), "\n")
	if !strings.Contains(got, "DataRow \"400\"") || !strings.Contains(got, "ErrorResponse FATAL 57P01") {
		t.Fatalf("busy connection: %s", got)
	}
	if got := strings.Join(idle.until(1), "\n"); !strings.Contains(got, "ErrorResponse FATAL 57P01") {
		t.Fatalf("idle connection: %s", got)
	}
	if err := <-done; err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if d := time.Since(start); d < 250*time.Millisecond {
		t.Fatalf("shutdown returned after %v, before the statement finished", d)
	}
}

func TestForcedShutdown(t *testing.T) {
	ts := startServer(t, nil)
	busy, _ := connectRaw(t, ts, nil)
	busy.send(q("select sleep(20000)"))
	ts.backend.waitSleeping(t)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := ts.srv.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("forced shutdown: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("forced shutdown took %v", d)
	}
	got := busy.until(2)
	if got[len(got)-1] != "<closed>" || strings.Contains(strings.Join(got, "\n"), "ReadyForQuery") {
		t.Fatalf("connection not closed: %v", got)
	}
	// new connections are refused
	if _, err := dialRawErr(ts); err == nil {
		t.Fatal("listener still accepting")
	}
}

func dialRawErr(ts *testServer) (*pgproto3.Frontend, error) {
	rc, err := (&netDialer{}).dial(ts.addr)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	fe := pgproto3.NewFrontend(rc, rc)
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "x"}})
	if err := fe.Flush(); err != nil {
		return nil, err
	}
	rc.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := fe.Receive(); err != nil {
		return nil, err
	}
	return fe, nil
}
