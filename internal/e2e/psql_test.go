package e2e

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the expected transcripts (testdata/sql/graph/*.out) from this run")

// scriptDir holds the psql scripts and their expected transcripts.
var scriptDir = filepath.Join(repoRoot, "testdata", "sql", "graph")

const psqlInstall = "apt-get install -y postgresql-client-15"

// psqlPath finds PostgreSQL 15's psql (the transcript format is psql's).
func psqlPath(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/lib/postgresql/15/bin/psql"} {
		if fileExists(p) {
			return p
		}
	}
	p, err := exec.LookPath("psql")
	if err != nil {
		t.Fatalf("psql not found (install with: %s)", psqlInstall)
	}
	return p
}

// runPsql runs psql on a script file (relative to dir) against branch db
// and returns the combined transcript: echoed input, results, command
// tags and errors with SQLSTATEs, in the order psql wrote them.
func runPsql(t *testing.T, p *proxy, dir, file, db string, extra ...string) string {
	t.Helper()
	return runPsqlEnv(t, p.Env(db), dir, file, extra...)
}

// runPsqlEnv is runPsql against whatever server the libpq environment
// names.
func runPsqlEnv(t *testing.T, env []string, dir, file string, extra ...string) string {
	t.Helper()
	args := append([]string{"-X", "-a", "-v", "ON_ERROR_STOP=0", "-v", "VERBOSITY=verbose",
		"-v", "SHOW_CONTEXT=never", "-P", "pager=off"}, extra...)
	args = append(args, "-f", file)
	ctx, cancel := clientContext(t)
	defer cancel()
	cmd := exec.CommandContext(ctx, psqlPath(t), args...)
	cmd.Dir = dir
	cmd.Env = env
	var out bytes.Buffer
	// One writer for both streams: exec shares a single pipe, so errors
	// interleave with results exactly as psql emitted them.
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("psql %s timed out; transcript so far:\n%s", file, out.String())
	}
	if err != nil {
		t.Fatalf("psql %s: %v (ON_ERROR_STOP is off, so only a connection or file problem ends it)\n%s", file, err, out.String())
	}
	return normalizeTranscript(out.String())
}

// normalizeTranscript drops what is not ours to pin: LOCATION lines name
// a server source position (PostgreSQL's C files, or none).
func normalizeTranscript(s string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		if strings.HasPrefix(line, "LOCATION:  ") {
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}

// differentialMark on a script's first line says PostgreSQL 15 must
// produce the same transcript (graph clauses aside, see pgComparable).
const differentialMark = "differential: postgresql"

// TestPsqlScripts runs every testdata/sql/graph/*.sql through psql against
// its own fresh pgproxy and compares the whole transcript with the
// script's .out file. Files named *.psql are fragments the scripts
// include with \ir. A script marked differential also runs on a
// PostgreSQL 15 started for the test, and the two transcripts must agree:
// the expected files hold PostgreSQL's answers, not just pgproxy's.
func TestPsqlScripts(t *testing.T) {
	scripts, err := filepath.Glob(filepath.Join(scriptDir, "*.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if len(scripts) == 0 {
		t.Fatalf("no psql scripts under %s", scriptDir)
	}
	for _, s := range scripts {
		name := filepath.Base(s)
		t.Run(strings.TrimSuffix(name, ".sql"), func(t *testing.T) {
			p := startProxy(t)
			got := runPsql(t, p, scriptDir, name, "main")
			p.alive(t)
			compareGolden(t, strings.TrimSuffix(s, ".sql")+".out", got)
			if isDifferential(t, s) {
				pg := sharedPostgres(t)
				want := runOnPostgres(t, pg, name)
				if a, b := pgComparable(want), pgComparable(got); a != b {
					t.Errorf("pgproxy's transcript differs from PostgreSQL 15's:\n%s", firstDiff(a, b, 6))
				}
			}
		})
	}
}

// compareGolden compares got with the expected file (or rewrites it with
// -update) and reports the first differing lines.
func compareGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("expected transcript: %v (create it with go test ./internal/e2e -run %s -update)", err, t.Name())
	}
	if string(want) == got {
		return
	}
	actual := filepath.Join(os.TempDir(), "e2e-"+strings.ReplaceAll(t.Name(), "/", "_")+".actual")
	_ = os.WriteFile(actual, []byte(got), 0o644)
	t.Errorf("transcript differs from %s (whole actual transcript in %s):\n%s", path, actual, firstDiff(string(want), got, 6))
}

// firstDiff shows the region around the first line where want and got
// differ.
func firstDiff(want, got string, context int) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	i := 0
	for i < len(wl) && i < len(gl) && wl[i] == gl[i] {
		i++
	}
	lo := max(0, i-context)
	var b strings.Builder
	fmt.Fprintf(&b, "first difference at line %d\n", i+1)
	for j := lo; j < i; j++ {
		fmt.Fprintf(&b, "  %s\n", wl[j])
	}
	for j := i; j < min(len(wl), i+context); j++ {
		fmt.Fprintf(&b, "- %s\n", wl[j])
	}
	for j := i; j < min(len(gl), i+context); j++ {
		fmt.Fprintf(&b, "+ %s\n", gl[j])
	}
	return b.String()
}
