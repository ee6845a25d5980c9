package wire

import (
	"context"
	"errors"
	"net"
	"runtime"
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

// TestNoGoroutineLeak drives connections through every kind of ending and
// checks that the server's goroutines are gone after Shutdown.
func TestNoGoroutineLeak(t *testing.T) {
	base := runtime.NumGoroutine()
	func() {
		ts := startServer(t, func(c *Config) { c.MaxMessageSize = 1 << 10 })
		for i := 0; i < 5; i++ {
			rc, _ := connectRaw(t, ts, nil)
			rc.send(q("begin"), q("select gen(3)"), q("copy t from stdin"), copyData("1\t2\n"))
			rc.until(2)
			if msg, err := rc.fe.Receive(); err != nil || transcribe(msg) != "CopyInResponse 0 [0 0]" {
				t.Fatalf("copy start: %v %v", msg, err)
			}
			rc.nc.Close() // mid-COPY, inside a transaction
			rc2, _ := connectRaw(t, ts, nil)
			rc2.nc.Write([]byte{'Q', 0, 0, 0x40, 0}) // oversized, and only its header sent
			rc2.nc.Close()
			rc3 := dialRaw(t, ts)
			rc3.nc.Write([]byte{0, 0, 0, 8}) // truncated startup
			rc3.nc.Close()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := ts.srv.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > base+2 {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines left (base %d):\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestServeContextIsHardStop(t *testing.T) {
	be := &fakeBackend{}
	srv, err := NewServer(Config{Backend: be, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	ts := &testServer{srv: srv, addr: ln.Addr().String(), backend: be}
	rc, _ := connectRaw(t, ts, nil)
	rc.send(q("select sleep(20000)"))
	be.waitSleeping(t)
	start := time.Now()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Serve returned %v", err)
	}
	got := rc.until(1)
	if got[len(got)-1] != "<closed>" || time.Since(start) > 5*time.Second {
		t.Fatalf("connection after hard stop: %v", got)
	}
}
