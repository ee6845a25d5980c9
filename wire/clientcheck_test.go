package wire

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"
)

// tcpPair is a connected loopback pair (peerClosed needs a real socket).
func tcpPair(t *testing.T) (server, client net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server = <-accepted
	if server == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { server.Close(); client.Close() })
	return server, client
}

// waitCause waits (generously: the assertion is what, never how fast) for
// ctx to end and returns its cause.
func waitCause(t *testing.T, ctx context.Context) error {
	t.Helper()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-time.After(20 * time.Second):
		t.Fatal("the statement was never cancelled")
		return nil
	}
}

// pending reports whether the watch's timer is armed.
func (w *stmtWatch) pending() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return !w.when.IsZero()
}

// TestStmtWatch: one timer per connection serves every statement's
// statement_timeout and client checks; a firing never cancels a later
// statement than the one it was armed for, a deadline earlier than the
// pending firing moves the timer, statements in a row re-arm nothing,
// and the timer lapses between statements.
func TestStmtWatch(t *testing.T) {
	cases := []struct {
		name string
		run  func(t *testing.T, w *stmtWatch, client net.Conn)
	}{
		{"statement_timeout cancels its statement", func(t *testing.T, w *stmtWatch, _ net.Conn) {
			ctx, cancel := context.WithCancelCause(context.Background())
			w.start(cancel, 20*time.Millisecond, false)
			if err := waitCause(t, ctx); !errors.Is(err, ErrStatementTimeout) {
				t.Fatalf("cause %v", err)
			}
			w.stop()
		}},
		{"a deadline before the pending client check moves the timer", func(t *testing.T, w *stmtWatch, _ net.Conn) {
			w.every = time.Hour
			_, c1 := context.WithCancelCause(context.Background())
			w.start(c1, 0, true) // arms the hourly check
			w.stop()
			ctx, cancel := context.WithCancelCause(context.Background())
			w.start(cancel, 20*time.Millisecond, true)
			if err := waitCause(t, ctx); !errors.Is(err, ErrStatementTimeout) {
				t.Fatalf("cause %v", err)
			}
			w.stop()
		}},
		{"a firing for an ended statement spares the next one", func(t *testing.T, w *stmtWatch, _ net.Conn) {
			_, c1 := context.WithCancelCause(context.Background())
			w.start(c1, 10*time.Millisecond, false)
			w.stop()
			ctx, cancel := context.WithCancelCause(context.Background())
			w.start(cancel, 0, false)
			for w.pending() { // the first statement's firing happens during the second
				time.Sleep(5 * time.Millisecond)
			}
			if ctx.Err() != nil {
				t.Fatalf("the second statement was cancelled: %v", context.Cause(ctx))
			}
			w.stop()
		}},
		{"statements in a row keep the one pending timer", func(t *testing.T, w *stmtWatch, _ net.Conn) {
			w.every = time.Hour
			_, c := context.WithCancelCause(context.Background())
			w.start(c, 0, true)
			w.mu.Lock()
			first, timer := w.when, w.t
			w.mu.Unlock()
			for range 100 {
				_, c := context.WithCancelCause(context.Background())
				w.start(c, 0, true)
				w.stop()
			}
			w.mu.Lock()
			defer w.mu.Unlock()
			if !w.when.Equal(first) || w.t != timer {
				t.Fatalf("re-armed: %v then %v", first, w.when)
			}
		}},
		{"the timer lapses between statements", func(t *testing.T, w *stmtWatch, _ net.Conn) {
			w.every = 10 * time.Millisecond
			_, c := context.WithCancelCause(context.Background())
			w.start(c, 0, true)
			w.stop()
			deadline := time.Now().Add(20 * time.Second)
			for w.pending() {
				if time.Now().After(deadline) {
					t.Fatal("the timer stays armed with no statement running")
				}
				time.Sleep(5 * time.Millisecond)
			}
		}},
		{"a closed client cancels the running statement", func(t *testing.T, w *stmtWatch, client net.Conn) {
			w.every = 10 * time.Millisecond
			ctx, cancel := context.WithCancelCause(context.Background())
			w.start(cancel, 0, true)
			client.Close()
			if err := waitCause(t, ctx); !errors.Is(err, errClientGone) {
				t.Fatalf("cause %v", err)
			}
			w.stop()
		}},
		{"a timeout fires once and client checks go on", func(t *testing.T, w *stmtWatch, client net.Conn) {
			w.every = 10 * time.Millisecond
			ctx, cancel := context.WithCancelCause(context.Background())
			w.start(cancel, 5*time.Millisecond, true)
			if err := waitCause(t, ctx); !errors.Is(err, ErrStatementTimeout) {
				t.Fatalf("cause %v", err)
			}
			w.mu.Lock()
			left := w.deadline
			w.mu.Unlock()
			if !left.IsZero() {
				t.Fatal("the deadline stays after it fired")
			}
			if !w.pending() {
				t.Fatal("no client check armed after the timeout")
			}
			w.stop()
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			server, client := tcpPair(t)
			w := &stmtWatch{raw: server}
			defer w.close()
			tc.run(t, w, client)
		})
	}
}
