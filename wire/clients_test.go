package wire

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestClientConformance runs each real client's script (testdata/clients)
// against the fake engine over SCRAM and TLS: parameterized statements, a
// pipeline, COPY both ways, a cancel and an error with its SQLSTATE. The
// clients are installed by .ci/run (Debian python3-psycopg2,
// python3-psycopg, libpostgresql-jdbc-java, default-jdk-headless; npm pg
// and postgres under testdata/clients/node).
func TestClientConformance(t *testing.T) {
	clients := []struct {
		name string
		cmd  func(t *testing.T) []string
	}{
		{"psycopg2", func(*testing.T) []string {
			return []string{"/usr/bin/python3", "testdata/clients/psycopg2_client.py"}
		}},
		{"psycopg3", func(*testing.T) []string {
			return []string{"/usr/bin/python3", "testdata/clients/psycopg3_client.py"}
		}},
		{"node-postgres", func(*testing.T) []string {
			return []string{"node", "testdata/clients/node/pg_client.js"}
		}},
		{"postgres.js", func(*testing.T) []string {
			return []string{"node", "testdata/clients/node/postgresjs_client.mjs"}
		}},
		{"pgjdbc", func(*testing.T) []string {
			return []string{"java", "-cp", "/usr/share/java/postgresql.jar", "testdata/clients/JdbcClient.java"}
		}},
	}
	for _, cl := range clients {
		t.Run(cl.name, func(t *testing.T) {
			ts := startServer(t, func(c *Config) { c.Auth = AuthSCRAM; c.TLSSelfSigned = true; c.RequireTLS = true })
			args := cl.cmd(t)
			cmd := exec.Command(args[0], args[1:]...)
			cmd.Env = append(os.Environ(), "PGHOST="+ts.host, "PGPORT="+ts.port, "PGUSER="+testUser,
				"PGPASSWORD="+testPassword, "PGDATABASE=main", "PGSSLMODE=require", "PGCONNECT_TIMEOUT=10")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			done := make(chan error, 1)
			if err := cmd.Start(); err != nil {
				t.Fatalf("%s: %v", cl.name, err)
			}
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil || !strings.HasSuffix(strings.TrimSpace(out.String()), "OK") {
					t.Fatalf("%s failed: %v\n%s", cl.name, err, out.String())
				}
			case <-time.After(90 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("%s timed out\n%s", cl.name, out.String())
			}
		})
	}
}
