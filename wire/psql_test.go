package wire

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// runPsql runs the psql client (Debian package postgresql-client) against
// the test server and returns stdout, stderr and the exit code.
func runPsql(t *testing.T, ts *testServer, sslmode string, env []string, args ...string) (string, string, int) {
	t.Helper()
	conn := fmt.Sprintf("host=%s port=%s user=%s dbname=main sslmode=%s", ts.host, ts.port, testUser, sslmode)
	full := append([]string{conn, "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"}, args...)
	res := pgtest.Psql{Args: full, Env: append([]string{"PGPASSWORD=" + testPassword, "PGCONNECT_TIMEOUT=10"}, env...)}.Run(t)
	return res.Stdout, res.Stderr, res.ExitCode
}

func TestPsql(t *testing.T) {
	psql := pgtest.PsqlPath(t)
	ts := startServer(t, func(c *Config) { c.Auth = AuthSCRAM; c.TLSSelfSigned = true })
	dir := t.TempDir()
	script := filepath.Join(dir, "load.sql")
	os.WriteFile(script, []byte(`\set n 3
select gen(:n);
\copy t from stdin
1	one
2	two
\.
select count();
\copy (select gen(2)) to stdout with csv
begin;
insert into t values ('x');
commit;
select count();
`), 0o644)
	cases := []struct {
		name    string
		sslmode string
		env     []string
		args    []string
		wantOut string
		wantErr string
		code    int
	}{
		{"multi_statement", "disable", nil, []string{"-c", "select 1; select gen(2)"}, "1\n1|row-1\n2|row-2\n", "", 0},
		{"script_set_copy", "require", nil, []string{"-f", script}, "1|row-1\n2|row-2\n3|row-3\n2\n1,row-1\n2,row-2\n3\n", "", 0},
		{"pgoptions", "disable", []string{"PGOPTIONS=-c graph.branch=dev"}, []string{"-c", "show graph.branch"}, "dev\n", "", 0},
		{"error", "disable", nil, []string{"-c", "select fail()"}, "", `relation "nope" does not exist`, 1},
		{"channel_binding", "require channel_binding=require", nil, []string{"-c", "select 1"}, "1\n", "", 0},
		{"settings", "prefer", nil, []string{"-c", "set application_name = 'p'", "-c", "show application_name"}, "p\n", "", 0},
	}
	t.Run("cancel_with_sigint", func(t *testing.T) {
		conn := fmt.Sprintf("host=%s port=%s user=%s dbname=main sslmode=require", ts.host, ts.port, testUser)
		cmd := exec.Command(psql, conn, "-X", "-c", "select sleep(10000)")
		cmd.Env = append(os.Environ(), "PGPASSWORD="+testPassword)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		ts.backend.waitSleeping(t)
		start := time.Now()
		cmd.Process.Signal(syscall.SIGINT) // psql sends a CancelRequest
		err := cmd.Wait()
		if err == nil || !strings.Contains(errb.String(), "canceling statement due to user request") || time.Since(start) > 5*time.Second {
			t.Fatalf("psql cancel: %v %s", err, errb.String())
		}
	})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runPsql(t, ts, tc.sslmode, tc.env, tc.args...)
			if code != tc.code || out != tc.wantOut || !strings.Contains(errOut, tc.wantErr) {
				t.Fatalf("exit %d (want %d)\nstdout:\n%s\nwant:\n%s\nstderr:\n%s", code, tc.code, out, tc.wantOut, errOut)
			}
		})
	}
}

// TestPsqlAuthMethods logs in with libpq through every password method.
func TestPsqlAuthMethods(t *testing.T) {
	for _, m := range []struct {
		method         AuthMethod
		user, password string
		ok             bool
	}{
		{AuthMD5, md5User, md5Password, true},
		{AuthMD5, md5User, "wrong", false},
		{AuthPassword, testUser, testPassword, true},
		{AuthSCRAM, testUser, "wrong", false},
	} {
		t.Run(string(m.method)+"/"+m.password, func(t *testing.T) {
			ts := startServer(t, func(c *Config) { c.Auth = m.method })
			conn := fmt.Sprintf("host=%s port=%s user=%s dbname=main sslmode=disable", ts.host, ts.port, m.user)
			res := pgtest.Psql{Args: []string{conn, "-A", "-t", "-c", "select 1"}, Env: []string{"PGPASSWORD=" + m.password}, Combined: true}.Run(t)
			out := res.Stdout
			if m.ok && (res.ExitCode != 0 || out != "1\n") {
				t.Fatalf("login failed: exit %d %s", res.ExitCode, out)
			}
			if !m.ok && (res.ExitCode == 0 || !strings.Contains(out, "password authentication failed for user \""+m.user+"\"")) {
				t.Fatalf("wrong password accepted or unclear: exit %d %s", res.ExitCode, out)
			}
		})
	}
}
