package wire

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// TestClientConformance runs each real client's script (testdata/clients)
// against the fake engine over SCRAM and TLS: parameterized statements, a
// pipeline, COPY both ways, a cancel and an error with its SQLSTATE. The
// clients are installed by .ci/run (Debian python3-psycopg2,
// python3-psycopg, libpostgresql-jdbc-java, default-jdk-headless; npm pg
// and postgres under testdata/clients/node).
func TestClientConformance(t *testing.T) {
	pgtest.SkipShort(t, "Python, Node and Java clients")
	const npmHint = "npm ci --prefix wire/testdata/clients/node"
	clients := []struct {
		name    string
		cmd     []string
		install string // what .ci/run must install for this client
	}{
		{"psycopg2", []string{"/usr/bin/python3", "testdata/clients/psycopg2_client.py"}, "apt-get install -y python3-psycopg2"},
		{"psycopg3", []string{"/usr/bin/python3", "testdata/clients/psycopg3_client.py"}, "apt-get install -y python3-psycopg"},
		{"node-postgres", []string{"node", "testdata/clients/node/pg_client.js"}, "apt-get install -y nodejs npm && " + npmHint},
		{"postgres.js", []string{"node", "testdata/clients/node/postgresjs_client.mjs"}, "apt-get install -y nodejs npm && " + npmHint},
		{"pgjdbc", []string{"java", "-cp", "/usr/share/java/postgresql.jar", "testdata/clients/JdbcClient.java"},
			"apt-get install -y openjdk-17-jdk-headless libpostgresql-jdbc-java"},
	}
	for _, cl := range clients {
		t.Run(cl.name, func(t *testing.T) {
			ts := startServer(t, func(c *Config) { c.Auth = AuthSCRAM; c.TLSSelfSigned = true; c.RequireTLS = true })
			cmd := exec.Command(cl.cmd[0], cl.cmd[1:]...)
			cmd.Env = append(os.Environ(), "PGHOST="+ts.host, "PGPORT="+ts.port, "PGUSER="+testUser,
				"PGPASSWORD="+testPassword, "PGDATABASE=main", "PGSSLMODE=require", "PGCONNECT_TIMEOUT=10")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			done := make(chan error, 1)
			if err := cmd.Start(); err != nil {
				t.Fatalf("%s: %v (install with: %s)", cl.name, err, cl.install)
			}
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil || !strings.HasSuffix(strings.TrimSpace(out.String()), "OK") {
					t.Fatalf("%s failed: %v (client installed with: %s)\n%s", cl.name, err, cl.install, out.String())
				}
			case <-time.After(90 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("%s timed out\n%s", cl.name, out.String())
			}
		})
	}
}
