package pgtest

import (
	"context"
	"strings"
	"testing"
)

func TestShortFollowsTheTestFlag(t *testing.T) {
	if Short() != testing.Short() {
		t.Fatalf("Short() = %v, testing.Short() = %v", Short(), testing.Short())
	}
}

// TestSharedStartsOnce: every caller in a test binary gets the same
// running cluster.
func TestSharedStartsOnce(t *testing.T) {
	a, b := Shared(t), Shared(t)
	if a != b {
		t.Fatalf("Shared started two clusters (ports %d and %d)", a.Port, b.Port)
	}
	ctx := context.Background()
	c, err := a.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var one int
	if err := c.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1 on the shared cluster: %d, %v", one, err)
	}
}

func TestPsqlRun(t *testing.T) {
	srv := Shared(t)
	conn := srv.ConnString("postgres")
	cases := []struct {
		name       string
		run        Psql
		out, err   string
		exit       int
		noStderrIn bool
	}{
		{"result", Psql{Args: []string{conn, "-A", "-t", "-c", "SELECT 40 + 2"}}, "42\n", "", 0, false},
		{"error exit", Psql{Args: []string{conn, "-v", "ON_ERROR_STOP=1", "-c", "SELECT nope"}}, "", `column "nope" does not exist`, 1, false},
		{"combined", Psql{Args: []string{conn, "-A", "-t", "-c", "SELECT 1", "-c", "SELECT nope"}, Combined: true},
			"1\nERROR:  column \"nope\" does not exist", "", 1, true},
		{"env", Psql{Args: []string{conn, "-A", "-t", "-c", "SHOW application_name"}, Env: []string{"PGAPPNAME=pgtest_env"}}, "pgtest_env\n", "", 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.run.Run(t)
			if res.ExitCode != tc.exit || !strings.HasPrefix(res.Stdout, tc.out) || !strings.Contains(res.Stderr, tc.err) {
				t.Fatalf("exit %d (want %d)\nstdout %q (want prefix %q)\nstderr %q (want %q in it)", res.ExitCode, tc.exit, res.Stdout, tc.out, res.Stderr, tc.err)
			}
			if tc.noStderrIn && res.Stderr != "" {
				t.Fatalf("Combined left %q on stderr", res.Stderr)
			}
		})
	}
}

func TestMain(m *testing.M) { Main(m) }
