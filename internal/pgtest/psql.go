package pgtest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"time"
)

// PsqlInstallHint installs the psql client the tests drive.
const PsqlInstallHint = "apt-get install -y postgresql-client-15"

// PsqlBin is PostgreSQL 15's psql; tests whose expected output is psql's
// format use it before any other psql on PATH.
const PsqlBin = "/usr/lib/postgresql/15/bin/psql"

// PsqlPath returns PostgreSQL 15's psql (PsqlBin, else psql on PATH). A
// missing psql fails the test; in -short mode the test skips.
func PsqlPath(t TB) string {
	t.Helper()
	SkipShort(t, "psql")
	if _, err := os.Stat(PsqlBin); err == nil {
		return PsqlBin
	}
	p, err := exec.LookPath("psql")
	if err != nil {
		t.Fatalf("psql not found (install it with: %s)", PsqlInstallHint)
	}
	return p
}

// Psql is one run of psql. -X (no psqlrc, so a user's settings cannot
// change the output) always comes first, then Args.
type Psql struct {
	Args []string
	// Env is added to the test process's environment; a later entry
	// overrides an earlier one of the same name.
	Env []string
	Dir string
	// Combined writes stdout and stderr to one buffer (Result.Stdout),
	// interleaved exactly as psql wrote them.
	Combined bool
	// Timeout bounds the run; reaching it fails the test. Zero runs until
	// shortly before the test binary's deadline (go test -timeout).
	Timeout time.Duration
}

// deadlineMargin is left before the test binary's deadline, for the
// test to report the timed-out run.
const deadlineMargin = 30 * time.Second

// PsqlResult is what a psql run printed and its exit code.
type PsqlResult struct {
	Stdout, Stderr string
	ExitCode       int
}

// Run runs psql and returns its output. A non-zero exit is returned in
// ExitCode (ON_ERROR_STOP and connection failures are results the tests
// check); a psql that cannot be started or times out fails the test.
func (p Psql) Run(t TB) PsqlResult {
	t.Helper()
	bin := PsqlPath(t)
	ctx, cancel := context.WithCancel(context.Background())
	timeout := p.Timeout
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(context.Background(), timeout)
	} else if dt, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		// No budget of its own: psql may run until shortly before the
		// test binary's deadline, so a loaded machine slows it down
		// instead of failing it, and a hung psql still fails with its
		// output rather than a bare panic of the test binary.
		if d, ok := dt.Deadline(); ok {
			ctx, cancel = context.WithDeadline(context.Background(), d.Add(-deadlineMargin))
			timeout = time.Until(d.Add(-deadlineMargin))
		}
	}
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"-X"}, p.Args...)...)
	cmd.Dir = p.Dir
	cmd.Env = append(os.Environ(), p.Env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if p.Combined {
		// One writer for both streams: exec shares a single pipe, so
		// errors interleave with results as psql emitted them.
		cmd.Stderr = &out
	}
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("psql %q timed out after %s; output so far:\n%s%s", p.Args, timeout, out.String(), errb.String())
	}
	res := PsqlResult{Stdout: out.String(), Stderr: errb.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		res.ExitCode = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("psql: %v", err)
	}
	return res
}
