package pgtest

import (
	"context"
	"flag"
	"os"
	"sync"
)

// TB is the part of testing.TB the helpers use. pgtest does not import
// testing: the pgproxy binary starts PostgreSQL through Start for its
// benchmarks, and should not link the test framework for that.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Skip(args ...any)
}

// Short reports whether the test binary runs with -short (make
// test-short): tests that need PostgreSQL, psql or another external
// client skip then, and run in the full suite (make test), which never
// passes -short. It reads the flag go test registers, so it is false
// outside a test binary.
func Short() bool {
	f := flag.Lookup("test.short")
	return f != nil && f.Value.String() == "true"
}

// SkipShort skips the test in -short mode, naming what it needs.
func SkipShort(t TB, needs string) {
	t.Helper()
	if Short() {
		t.Skip("-short: needs " + needs)
	}
}

// The test binary's shared cluster: started on first use by Shared,
// stopped by StopShared (Main calls it after the tests).
var shared struct {
	once sync.Once
	srv  *Server
	err  error
}

// Shared returns the test binary's PostgreSQL 15 cluster, starting it on
// first use, so a package's differential tests pay for one initdb. Tests
// that share it use a database of their own where they change state. A
// missing installation fails the test (never skips it), except in -short
// mode, where every test that needs PostgreSQL skips.
func Shared(t TB) *Server {
	t.Helper()
	SkipShort(t, "PostgreSQL 15")
	shared.once.Do(func() { shared.srv, shared.err = Start(context.Background()) })
	if shared.err != nil {
		t.Fatalf("this test needs PostgreSQL 15: %v", shared.err)
	}
	return shared.srv
}

// StopShared stops the shared cluster if Shared started it.
func StopShared() {
	if shared.srv != nil {
		shared.srv.Stop()
	}
}

// Main runs a package's tests and stops the shared cluster afterwards:
// func TestMain(m *testing.M) { pgtest.Main(m) }.
func Main(m interface{ Run() int }) {
	code := m.Run()
	StopShared()
	os.Exit(code)
}
