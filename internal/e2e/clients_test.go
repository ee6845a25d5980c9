package e2e

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// nodeModules holds the npm packages of testdata/knex (knex, pg,
// pg-copy-streams), installed from its lockfile by make deps / .ci/run.
var nodeModules, _ = filepath.Abs("testdata/knex/node_modules")

const npmInstall = "npm ci --prefix internal/e2e/testdata/knex"

// runClient runs a client program with the libpq environment of branch
// main on p and fails unless it exits 0 and its last line is OK.
func runClient(t *testing.T, p *proxy, install string, env []string, argv ...string) string {
	t.Helper()
	return runClientEnv(t, append(p.Env("main"), env...), install, argv...)
}

// runClientEnv runs a client program with environment env (which names
// the server) and fails unless it exits 0 and its last line is OK.
func runClientEnv(t *testing.T, env []string, install string, argv ...string) string {
	t.Helper()
	ctx, cancel := clientContext(t)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s timed out\n%s", argv, out.String())
	}
	if err != nil || !strings.HasSuffix(strings.TrimSpace(out.String()), "OK") {
		t.Fatalf("%s failed: %v (installed with: %s)\n%s", argv, err, install, out.String())
	}
	return out.String()
}

// clientFlow is one real client's script of the social-graph flow.
type clientFlow struct {
	name    string
	argv    []string
	env     []string
	install string
	java    string // a Java client's class (argv is then javaArgv's)
}

// socialClients are node-postgres (testdata/clients/pg_social.js) and
// pgjdbc (JdbcSocial.java). SQLAlchemy Core has its own test.
func socialClients() []clientFlow {
	return []clientFlow{
		{name: "node-postgres", argv: []string{"node", "testdata/clients/pg_social.js"}, env: []string{"NODE_PATH=" + nodeModules},
			install: "apt-get install -y nodejs npm && " + npmInstall},
		{name: "pgjdbc", install: javaInstall, java: "JdbcSocial"},
	}
}

// command is the client's command line.
func (c clientFlow) command(t *testing.T) []string {
	if c.java != "" {
		return javaArgv(t, c.java)
	}
	return c.argv
}

// TestClientsSocialGraph runs the social-graph flow (DDL, COPY, prepared
// statements, every constraint class, transactions, time travel, a branch
// as a database) through each real client against its own pgproxy.
func TestClientsSocialGraph(t *testing.T) {
	if !fileExists(nodeModules) {
		t.Fatalf("%s is missing: run %s", nodeModules, npmInstall)
	}
	for _, c := range socialClients() {
		t.Run(c.name, func(t *testing.T) {
			p := startProxy(t)
			runClient(t, p, c.install, c.env, c.command(t)...)
			p.alive(t)
		})
	}
}

// TestClientFlowsOnPostgres runs the same client scripts against
// PostgreSQL 15 with E2E_TARGET=postgres (the graph-only steps left out),
// so every expectation they hold pgproxy to is PostgreSQL's own.
func TestClientFlowsOnPostgres(t *testing.T) {
	if !fileExists(nodeModules) {
		t.Fatalf("%s is missing: run %s", nodeModules, npmInstall)
	}
	pg := pgtest.Shared(t)
	for _, c := range socialClients() {
		t.Run(c.name, func(t *testing.T) {
			env := append(postgresEnv(pg, freshPostgresDB(t, pg)), c.env...)
			runClientEnv(t, append(env, "E2E_TARGET=postgres"), c.install, c.command(t)...)
		})
	}
}
