package main

import (
	"context"
	"crypto/tls"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pggraph/pggraph/wire"
)

// startServe runs `pgproxy serve` in-process and returns its address, a
// stop function that sends the shutdown signal and returns the exit code,
// and its stderr.
func startServe(t *testing.T, args ...string) (addr string, stop func() int, stderr *syncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	stderr = &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...),
			&runEnv{stdout: &out, stderr: stderr, getenv: func(string) (string, bool) { return "", false }})
	}()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		select {
		case code := <-done:
			cancel()
			t.Fatalf("serve exited %d before listening: %s", code, stderr.String())
		default:
		}
		if s := out.String(); strings.Contains(s, "listening on ") {
			addr = strings.TrimSuffix(strings.Fields(strings.SplitN(s, "listening on ", 2)[1])[0], ";")
			break
		}
	}
	if addr == "" {
		cancel()
		t.Fatalf("serve did not start: %s", stderr.String())
	}
	return addr, func() int { cancel(); return <-done }, stderr
}

// serve initializes an empty directory and speaks the protocol: logins,
// settings, transaction control, DDL, writes (each a graph commit in the
// data directory) and queries work; SQL it cannot execute yet fails with
// a clear 0A000 instead of a made-up answer.
func TestServeSpeaksProtocolAndRefusesSQL(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "root")
	addr, stop, stderr := startServe(t, "--data", dir, "--log-format", "json")
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, "postgres://alice@"+addr+"/main?sslmode=disable")
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	var v string
	if err := conn.QueryRow(ctx, "SHOW server_version").Scan(&v); err != nil || !strings.HasPrefix(v, "15") {
		t.Fatalf("SHOW server_version = %q, %v", v, err)
	}
	var one int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1 = %d, %v", one, err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO t VALUES (1)"); !isCode(err, "42P01") || !strings.Contains(err.Error(), `relation "t" does not exist`) {
		t.Fatalf("INSERT into a missing table: %v, want 42P01", err)
	}
	for _, sql := range []string{"CREATE TABLE t (id int8 PRIMARY KEY, v text)", "INSERT INTO t VALUES (1, 'a'), (2, 'b')"} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 2 {
		t.Fatalf("count = %d, %v", n, err)
	}
	if _, err := conn.Exec(ctx, "LISTEN ch"); !isCode(err, "0A000") || !strings.Contains(err.Error(), "LISTEN") {
		t.Fatalf("LISTEN: %v, want 0A000 naming it", err)
	}
	// The session survives the refusal.
	if _, err := conn.Exec(ctx, "SET application_name = 'x'"); err != nil {
		t.Fatalf("SET after a refused statement: %v", err)
	}
	conn.Close(ctx)
	// The database name is the branch: an unknown one is 3D000.
	_, err = pgx.Connect(ctx, "postgres://alice@"+addr+"/nosuchbranch?sslmode=disable")
	if !isCode(err, "3D000") || !strings.Contains(err.Error(), "nosuchbranch") {
		t.Fatalf("unknown branch: %v, want 3D000 naming it", err)
	}
	if !strings.Contains(stderr.String(), `"msg":"initialized a new graph root"`) {
		t.Errorf("json log lacks the init line: %s", stderr.String())
	}
	if code := stop(); code != 0 {
		t.Fatalf("serve exited %d: %s", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "_graph.json")); err != nil {
		t.Fatal("serve did not initialize the root")
	}
}

// Flags reach the protocol server: SCRAM with a users file, and TLS with
// a self-signed certificate.
func TestServeAuthAndTLSFlags(t *testing.T) {
	dir := t.TempDir()
	secret, err := wire.HashSCRAM("s3cret")
	if err != nil {
		t.Fatal(err)
	}
	users := filepath.Join(dir, "users")
	if err := os.WriteFile(users, []byte("# roles\nalice "+secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	addr, stop, stderr := startServe(t, "--data", filepath.Join(dir, "root"), "--auth", "scram", "--users", users, "--tls-self-signed")
	defer stop()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, "postgres://alice:s3cret@"+addr+"/main?sslmode=require")
	if err != nil {
		t.Fatalf("SCRAM over TLS: %v (%s)", err, stderr.String())
	}
	if _, ok := conn.PgConn().Conn().(*tls.Conn); !ok {
		t.Fatalf("connection is %T, not TLS", conn.PgConn().Conn())
	}
	conn.Close(ctx)
	_, err = pgx.Connect(ctx, "postgres://alice:wrong@"+addr+"/main?sslmode=require")
	if !isCode(err, "28P01") {
		t.Fatalf("wrong password: %v, want 28P01", err)
	}
	_, err = pgx.Connect(ctx, "postgres://nobody:wrong@"+addr+"/main?sslmode=require")
	if !isCode(err, "28P01") {
		t.Fatalf("unknown user: %v, want the same 28P01", err)
	}
}

func TestServeRefusesMissingUsersFile(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := runCmd(t, nil, "serve", "--data", dir, "--listen", "127.0.0.1:0", "--auth", "md5", "--users", filepath.Join(dir, "nope"))
	if code != 1 || !strings.Contains(errOut, "nope") {
		t.Fatalf("missing users file: exit %d, %q", code, errOut)
	}
}

func isCode(err error, code string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == code
}

// --cpu-profile writes a Go CPU profile (gzip-compressed protobuf) of the
// run when serve shuts down; an unwritable path is refused at start.
func TestServeCPUProfile(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "cpu.pprof")
	addr, stop, stderr := startServe(t, "--data", filepath.Join(dir, "root"), "--cpu-profile", prof)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, "postgres://alice@"+addr+"/main?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM generate_series(1, 100000)").Scan(&n); err != nil || n != 100000 {
		t.Fatalf("query: %d %v", n, err)
	}
	conn.Close(ctx)
	if code := stop(); code != 0 {
		t.Fatalf("serve exited %d: %s", code, stderr.String())
	}
	b, err := os.ReadFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("profile is not gzip-compressed pprof data (%d bytes)", len(b))
	}

	var out, errb syncBuffer
	code := run(ctx, []string{"serve", "--listen", "127.0.0.1:0", "--data", filepath.Join(dir, "root2"), "--cpu-profile", filepath.Join(dir, "missing", "cpu.pprof")},
		&runEnv{stdout: &out, stderr: &errb, getenv: func(string) (string, bool) { return "", false }})
	if code == 0 || !strings.Contains(errb.String(), "--cpu-profile") {
		t.Fatalf("unwritable profile path: exit %d, stderr %q", code, errb.String())
	}
}
