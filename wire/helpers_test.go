package wire

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/sirupsen/logrus"
)

// syncBuffer collects server logs for assertions.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Reset()
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type testServer struct {
	srv     *Server
	addr    string
	host    string
	port    string
	backend *fakeBackend
	logs    *syncBuffer
}

const (
	testUser     = "alice"
	testPassword = "s3cret pass"
	md5User      = "bob"
	md5Password  = "hunter2"
)

func testUsers(t testing.TB) *Users {
	t.Helper()
	scramSecret, err := HashSCRAM(testPassword)
	if err != nil {
		t.Fatal(err)
	}
	u := &Users{}
	if err := u.Add(testUser, scramSecret); err != nil {
		t.Fatal(err)
	}
	if err := u.Add(md5User, HashMD5(md5User, md5Password)); err != nil {
		t.Fatal(err)
	}
	return u
}

// startServer runs a Server with the fake backend on a loopback port.
func startServer(t testing.TB, mutate func(*Config)) *testServer {
	t.Helper()
	ts := &testServer{backend: &fakeBackend{}, logs: &syncBuffer{}}
	log := logrus.New()
	log.Out = ts.logs
	log.Level = logrus.DebugLevel
	cfg := Config{Backend: ts.backend, Logger: log, AuthFailureDelay: -1, Users: testUsers(t)}
	if mutate != nil {
		mutate(&cfg)
	}
	srv, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts.srv, ts.addr = srv, ln.Addr().String()
	ts.host, ts.port, _ = net.SplitHostPort(ts.addr)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-done; !errors.Is(err, ErrServerClosed) {
			t.Errorf("serve returned %v", err)
		}
	})
	return ts
}

func (ts *testServer) url(user, password, db, extra string) string {
	u := fmt.Sprintf("postgres://%s:%s@%s/%s?sslmode=disable", user, strings.ReplaceAll(url.PathEscape(password), ":", "%3A"), ts.addr, db)
	if password == "" {
		u = fmt.Sprintf("postgres://%s@%s/%s?sslmode=disable", user, ts.addr, db)
	}
	if strings.Contains(extra, "sslmode=") {
		u = strings.Replace(u, "sslmode=disable", extra, 1)
	} else if extra != "" {
		u += "&" + extra
	}
	return u
}

func (ts *testServer) pgx(t testing.TB, extra string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, ts.url(testUser, testPassword, "main", extra))
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// pgCode extracts the SQLSTATE a client received.
func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

type netDialer struct{}

func (netDialer) dial(addr string) (net.Conn, error) {
	return net.DialTimeout("tcp", addr, 2*time.Second)
}

func quietLogger() *logrus.Logger {
	l := logrus.New()
	l.Out = &syncBuffer{}
	return l
}
