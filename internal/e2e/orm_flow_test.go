package e2e

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// ormFlow is one ORM or migration tool's script: the same command runs
// against PostgreSQL 15 and against pgproxy and must print the same
// transcript, ending with OK.
type ormFlow struct {
	argv    []string
	env     []string // added to the libpq environment
	dir     string   // working directory ("" = this package's)
	install string   // how to get the tool, named when it is missing
}

// runORMFlow runs f on a fresh PostgreSQL 15 database and on a fresh
// pgproxy and fails on any line that differs.
func runORMFlow(t *testing.T, f ormFlow) {
	t.Helper()
	pg := pgtest.Shared(t)
	want := runFlowOnce(t, f, append(postgresEnv(pg, freshPostgresDB(t, pg)), "E2E_TARGET=postgres"), "PostgreSQL")
	p := startProxy(t)
	got := runFlowOnce(t, f, p.Env("main"), "pgproxy")
	p.alive(t)
	if want != got {
		t.Errorf("transcripts differ\n%s", lineDiff(want, got))
	}
}

// runFlowOnce runs the flow with env and returns its output, failing the
// test unless the command exits 0 with OK as its last line.
func runFlowOnce(t *testing.T, f ormFlow, env []string, target string) string {
	t.Helper()
	ctx, cancel := clientContext(t)
	defer cancel()
	cmd := exec.CommandContext(ctx, f.argv[0], f.argv[1:]...)
	cmd.Env = append(env, f.env...)
	cmd.Dir = f.dir
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s on %s timed out\n%s\n%s", f.argv, target, out.String(), stderr.String())
	}
	if err != nil || !strings.HasSuffix(strings.TrimSpace(out.String()), "OK") {
		t.Fatalf("%s on %s failed: %v (installed with: %s)\n%s\n%s", f.argv, target, err, f.install, out.String(), stderr.String())
	}
	return out.String()
}

// lineDiff lists the lines of want and got that differ, position by
// position, with the PostgreSQL line first.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			b.WriteString("- postgresql: " + wl + "\n+ pgproxy:    " + gl + "\n")
		}
	}
	return b.String()
}
