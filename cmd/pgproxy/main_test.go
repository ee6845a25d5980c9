package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// runCmd runs pgproxy in-process with the given environment.
func runCmd(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &runEnv{stdout: &out, stderr: &errb, getenv: func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}})
	return code, out.String(), errb.String()
}

func TestParseFlagsPrecedence(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		env     map[string]string
		listen  string
		auth    string
		wantErr string
	}{
		{"defaults", nil, nil, "127.0.0.1:5433", "trust", ""},
		{"env", nil, map[string]string{"PGGRAPH_LISTEN": "127.0.0.1:7000", "PGGRAPH_AUTH": "scram"}, "127.0.0.1:7000", "scram", ""},
		{"flag beats env", []string{"--listen", "127.0.0.1:1"}, map[string]string{"PGGRAPH_LISTEN": "127.0.0.1:7000"}, "127.0.0.1:1", "trust", ""},
		{"bad env value", nil, map[string]string{"PGGRAPH_AUTH": "kerberos"}, "", "", "PGGRAPH_AUTH"},
		{"bad flag value", []string{"--auth", "none"}, nil, "", "", "must be one of"},
		{"unknown flag", []string{"--nope"}, nil, "", "", "not defined"},
		{"stray argument", []string{"extra"}, nil, "", "", "unexpected argument"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := flag.NewFlagSet("serve", flag.ContinueOnError)
			cfg := serveFlags(fs)
			err := parseFlags(fs, c.args, func(k string) (string, bool) { v, ok := c.env[k]; return v, ok })
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || !isUsageError(err) {
					t.Fatalf("err = %v, want a usage error containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.listen != c.listen || cfg.auth.value != c.auth {
				t.Fatalf("listen=%q auth=%q, want %q %q", cfg.listen, cfg.auth.value, c.listen, c.auth)
			}
		})
	}
}

// Every flag of every command is documented with its variable in --help.
func TestHelpDocumentsEveryFlagAndVariable(t *testing.T) {
	for _, c := range commands {
		code, out, _ := runCmd(t, nil, c.name, "--help")
		if code != 0 {
			t.Fatalf("%s --help exited %d", c.name, code)
		}
		for _, want := range []string{"--data", "$PGGRAPH_DATA", "--log-level", "$PGGRAPH_LOG_LEVEL"} {
			if c.name == "bench" && strings.Contains(strings.ToUpper(want), "DATA") {
				continue
			}
			if !strings.Contains(out, want) {
				t.Errorf("%s --help lacks %s:\n%s", c.name, want, out)
			}
		}
	}
	_, out, _ := runCmd(t, nil, "serve", "--help")
	for _, want := range []string{"$PGGRAPH_LISTEN", "$PGGRAPH_AUTH", "$PGGRAPH_TLS_CERT", "$PGGRAPH_TLS_KEY", "$PGGRAPH_USERS"} {
		if !strings.Contains(out, want) {
			t.Errorf("serve --help lacks %s", want)
		}
	}
	if code, _, errOut := runCmd(t, nil, "frobnicate"); code != 2 || !strings.Contains(errOut, "unknown command") {
		t.Errorf("unknown command: code %d, %q", code, errOut)
	}
}

// init creates the whole root (stamp and first manifest version), so
// verify finds nothing left to complete.
func TestInitCreatesManifest(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "g")
	if code, _, e := runCmd(t, nil, "init", "--data", dir); code != 0 {
		t.Fatal(e)
	}
	if _, err := os.Stat(filepath.Join(dir, "__manifest.lance")); err != nil {
		t.Fatalf("init did not create __manifest: %v", err)
	}
	code, out, e := runCmd(t, nil, "verify", "--data", dir)
	if code != 0 || strings.Contains(out, "not created yet") {
		t.Fatalf("verify after init: %d %q %q", code, out, e)
	}
}

func TestServeValidation(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--data", "x", "--tls-cert", "a.pem"}, "--tls-cert and --tls-key"},
		{[]string{"serve", "--data", "x", "--auth", "scram"}, "needs --users"},
		{[]string{"serve"}, "--data is required"},
	}
	for _, c := range cases {
		code, _, errOut := runCmd(t, nil, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: code %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// snapshot lists every path under dir with its size and mode, to prove a
// refused command changed nothing.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		b.WriteString(p + " " + info.Mode().String() + " " + string(rune('0'+info.Size()%10)) + "\n")
		return nil
	})
	return b.String()
}

func TestBadDataDirectories(t *testing.T) {
	base := t.TempDir()
	file := filepath.Join(base, "afile")
	_ = os.WriteFile(file, []byte("x"), 0o644)
	foreign := filepath.Join(base, "foreign")
	_ = os.MkdirAll(filepath.Join(foreign, "sub"), 0o755)
	_ = os.WriteFile(filepath.Join(foreign, "sub", "data.csv"), []byte("1,2"), 0o644)
	unknown := filepath.Join(base, "unknown")
	_ = os.Mkdir(unknown, 0o755)
	_ = os.WriteFile(filepath.Join(unknown, "_graph.json"), []byte(`{"format":"other","format_version":1,"graph_id":"x"}`), 0o644)
	newer := filepath.Join(base, "newer")
	_ = os.Mkdir(newer, 0o755)
	_ = os.WriteFile(filepath.Join(newer, "_graph.json"), []byte(`{"format":"pggraph","format_version":7,"graph_id":"x"}`), 0o644)
	garbage := filepath.Join(base, "garbage")
	_ = os.Mkdir(garbage, 0o755)
	_ = os.WriteFile(filepath.Join(garbage, "_graph.json"), []byte("\x00\x01not json"), 0o644)
	empty := filepath.Join(base, "empty")
	_ = os.Mkdir(empty, 0o755)

	cases := []struct {
		cmd, dir string
		want     []string
	}{
		{"verify", filepath.Join(base, "missing"), []string{"missing", "does not exist"}},
		{"verify", file, []string{file, "is a file, not a directory"}},
		{"init", file, []string{file, "is a file"}},
		{"serve", file, []string{file, "is a file"}},
		{"init", filepath.Join(file, "below"), []string{"afile/below", "not a directory"}},
		{"init", foreign, []string{foreign, "not a pggraph root", "sub/data.csv"}},
		{"serve", foreign, []string{foreign, "not a pggraph root"}},
		{"verify", unknown, []string{unknown, `format "other"`}},
		{"serve", unknown, []string{unknown, `format "other"`}},
		{"verify", newer, []string{newer, "format_version 7", "upgrade"}},
		{"recover", garbage, []string{garbage, "not valid JSON"}},
		{"verify", empty, []string{empty, "pgproxy init"}},
	}
	for _, c := range cases {
		t.Run(c.cmd+"/"+filepath.Base(c.dir), func(t *testing.T) {
			before := snapshot(t, base)
			args := []string{c.cmd, "--data", c.dir}
			if c.cmd == "serve" {
				args = append(args, "--listen", "127.0.0.1:0")
			}
			code, _, errOut := runCmd(t, nil, args...)
			if code != 1 {
				t.Fatalf("exit %d, want 1; stderr %q", code, errOut)
			}
			for _, w := range c.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q lacks %q", errOut, w)
				}
			}
			if after := snapshot(t, base); after != before {
				t.Fatalf("a refused %s modified the directory tree:\nbefore\n%s\nafter\n%s", c.cmd, before, after)
			}
		})
	}
}

// A directory this process may not write is refused, naming the path. As
// root (which bypasses permission bits) the check runs in a child process
// with an unprivileged uid.
func TestUnwritableDataDirectory(t *testing.T) {
	if os.Getenv("PGGRAPH_TEST_CHILD_VERIFY") != "" {
		os.Exit(run(context.Background(), []string{"verify", "--data", os.Getenv("PGGRAPH_TEST_CHILD_VERIFY")},
			&runEnv{stdout: os.Stdout, stderr: os.Stderr, getenv: osEnv}))
	}
	base := t.TempDir()
	dir := filepath.Join(base, "locked")
	if code, _, e := runCmd(t, nil, "init", "--data", dir); code != 0 {
		t.Fatal(e)
	}
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	for p := filepath.Dir(base); p != "/"; p = filepath.Dir(p) {
		_ = os.Chmod(p, 0o755) // let the child reach the directory
	}
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	// The unprivileged child cannot enter the go tool's private build
	// directory, so it runs a copy of this test binary.
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(base, "pgproxy.test")
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestUnwritableDataDirectory$")
	cmd.Dir = base
	cmd.Env = append(os.Environ(), "PGGRAPH_TEST_CHILD_VERIFY="+dir)
	if os.Getuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("child exit: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), dir) || !strings.Contains(string(out), "not readable, writable and searchable") {
		t.Fatalf("child output does not explain the problem:\n%s", out)
	}
}

// The lance suite runs end to end on a small table and reports ratios.
func TestBenchLanceSuite(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "l.json")
	code, stdout, stderr := runCmd(t, map[string]string{"PGGRAPH_BENCH_LANCE_ROWS": "20000"},
		"bench", "--suite", "lance", "--dir", dir, "--rounds", "1", "--out", out)
	if code != 0 {
		t.Fatalf("bench exited %d: %s", code, stderr)
	}
	for _, want := range []string{"write/raw", "scan MB/s", "20000 rows"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), `"write_vs_raw"`) {
		t.Fatalf("results file: %v %s", err, b)
	}
}

func TestBenchSuiteSelection(t *testing.T) {
	if got, err := selectSuites("objstore, lance"); err != nil || len(got) != 2 {
		t.Fatalf("selectSuites = %v, %v", got, err)
	}
	if _, err := selectSuites("objstore,nope"); err == nil || !isUsageError(err) {
		t.Fatalf("unknown suite accepted: %v", err)
	}
	if all, _ := selectSuites("all"); len(all) != len(benchSuites) {
		t.Fatal("all does not select every suite")
	}
	if code, _, e := runCmd(t, nil, "bench", "--out", "x.json"); code != 2 || !strings.Contains(e, "single --suite") {
		t.Fatalf("--out with every suite: %d %q", code, e)
	}
}

// The objstore suite runs end to end and writes a results file whose
// ratios are computed against the raw floor of the same run.
func TestBenchObjstoreSuite(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	code, stdout, stderr := runCmd(t, nil, "bench", "--suite", "objstore", "--dir", dir, "--iterations", "10", "--rounds", "1", "--out", out)
	if code != 0 {
		t.Fatalf("bench exited %d: %s", code, stderr)
	}
	for _, want := range []string{"raw write+fsync", "objstore PutIfAbsent", "objstore Delete", "p99 ms", "1.00x"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("bench output lacks %q:\n%s", want, stdout)
		}
	}
	b, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(b), `"p50_vs_raw_write_fsync"`) {
		t.Fatalf("results file: %v %s", err, b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("bench left its scratch directory behind: %v", entries)
	}
}

// The wire suite starts a pgproxy process and a PostgreSQL 15, and reports
// both sides and their ratio.
func TestBenchWireSuite(t *testing.T) {
	pgtest.SkipShort(t, "PostgreSQL 15")
	t.Setenv("PGGRAPH_TEST_AS_PGPROXY", "1")
	dir := t.TempDir()
	out := filepath.Join(dir, "w.json")
	code, stdout, stderr := runCmd(t, nil, "bench", "--suite", "wire", "--dir", dir, "--iterations", "20", "--rounds", "1", "--out", out)
	if code != 0 {
		t.Fatalf("bench exited %d: %s", code, stderr)
	}
	for _, want := range []string{"pgproxy", "postgresql-15", "connects/s", "SELECT 1        pgproxy p50 / PostgreSQL p50", "SHOW TimeZone   pgproxy p50"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), `"p50_latency_ratio_pgproxy_vs_postgres"`) {
		t.Fatalf("results file: %v %s", err, b)
	}
}

// TestMain lets the test binary stand in for pgproxy: a bench suite that
// re-executes its own binary with `serve` gets the real command.
func TestMain(m *testing.M) {
	if os.Getenv("PGGRAPH_TEST_AS_PGPROXY") == "1" && len(os.Args) > 1 && !strings.HasPrefix(os.Args[1], "-test.") {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		os.Exit(run(ctx, os.Args[1:], &runEnv{stdout: os.Stdout, stderr: os.Stderr, getenv: osEnv}))
	}
	os.Exit(m.Run())
}

// --auto-optimize-fragments accepts 0 (never) and thresholds >= 2; the
// value reaches the write path's options unchanged.
func TestServeAutoOptimizeFlag(t *testing.T) {
	cases := []struct {
		args    []string
		want    int
		wantErr bool
	}{
		{nil, 64, false},
		{[]string{"--auto-optimize-fragments", "0"}, 0, false},
		{[]string{"--auto-optimize-fragments", "8"}, 8, false},
		{[]string{"--auto-optimize-fragments", "1"}, 0, true},
		{[]string{"--auto-optimize-fragments", "-3"}, 0, true},
	}
	for _, c := range cases {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		cfg := serveFlags(fs)
		if err := parseFlags(fs, append([]string{"--data", t.TempDir()}, c.args...), func(string) (string, bool) { return "", false }); err != nil {
			t.Fatal(err)
		}
		err := cfg.validate()
		if c.wantErr {
			if err == nil || !isUsageError(err) {
				t.Fatalf("%v: err = %v, want a usage error", c.args, err)
			}
			continue
		}
		if err != nil || cfg.autoOptimize != c.want {
			t.Fatalf("%v: autoOptimize=%d err=%v, want %d", c.args, cfg.autoOptimize, err, c.want)
		}
	}
}
