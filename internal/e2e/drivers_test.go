package e2e

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lib/pq"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// TestDriverValueRoundTrip runs each driver's round-trip script
// (testdata/clients/types_roundtrip.*) over every value of
// testdata/types/values.tsv against PostgreSQL 15 and against pgproxy:
// the value sent as text and read back as the driver's native value, that
// native value sent back, and (psycopg 3) read in binary format. Every
// line must be PostgreSQL's, except the values pgproxy refuses with 0A000
// (refusedValues). pgjdbc sends the text with setString and the value
// back with setObject/setArray.
func TestDriverValueRoundTrip(t *testing.T) {
	nodeDir, err := filepath.Abs(filepath.Join(repoRoot, "wire", "testdata", "clients", "node"))
	if err != nil {
		t.Fatal(err)
	}
	values, err := filepath.Abs(typesFile)
	if err != nil {
		t.Fatal(err)
	}
	drivers := []struct {
		name    string
		cmd     []string
		install string
	}{
		{"psycopg2", []string{"/usr/bin/python3", "testdata/clients/types_roundtrip.py", "psycopg2", values}, "apt-get install -y python3-psycopg2"},
		{"psycopg3", []string{"/usr/bin/python3", "testdata/clients/types_roundtrip.py", "psycopg", values}, "apt-get install -y python3-psycopg"},
		{"node-postgres", []string{"node", "testdata/clients/types_roundtrip.js", values, nodeDir}, "apt-get install -y nodejs npm && npm ci --prefix wire/testdata/clients/node"},
		{"postgres.js", []string{"node", "testdata/clients/types_roundtrip_postgresjs.mjs", values, nodeDir}, "apt-get install -y nodejs npm && npm ci --prefix wire/testdata/clients/node"},
	}
	p := startProxy(t)
	pg := pgtest.Shared(t)
	pgEnv := postgresEnv(pg, freshPostgresDB(t, pg))
	run := func(t *testing.T, env, cmdline []string, install string) map[string]string {
		t.Helper()
		ctx, cancel := clientContext(t)
		defer cancel()
		cmd := exec.CommandContext(ctx, cmdline[0], cmdline[1:]...)
		cmd.Env = env
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &stderr
		if err := cmd.Run(); err != nil || !strings.HasSuffix(strings.TrimSpace(out.String()), "OK") {
			t.Fatalf("%v: %v (install with: %s)\n%s\n%s", cmdline, err, install, out.String(), stderr.String())
		}
		res := map[string]string{}
		for _, line := range strings.Split(out.String(), "\n") {
			parts := strings.SplitN(line, "\t", 3)
			if len(parts) == 3 {
				res[parts[0]+"\t"+parts[1]] = parts[2]
			}
		}
		return res
	}
	drivers = append(drivers, struct {
		name    string
		cmd     []string
		install string
	}{"pgjdbc", append(javaArgv(t, "JdbcTypes"), values), javaInstall})
	for _, d := range drivers {
		t.Run(d.name, func(t *testing.T) {
			want := run(t, pgEnv, d.cmd, d.install)
			got := run(t, p.Env("main"), d.cmd, d.install)
			if len(want) < 80 {
				t.Fatalf("PostgreSQL answered only %d values", len(want))
			}
			for k, w := range want {
				g := got[k]
				if g == w {
					continue
				}
				val := k[strings.Index(k, "\t")+1:]
				if _, refused := refusedValues[val]; refused && strings.Contains(g, "ERROR 0A000") {
					continue
				}
				t.Errorf("%s %q:\n got %s\nwant %s", d.name, k, g, w)
			}
		})
	}
	p.alive(t)
}

// TestLibPQValueRoundTrip is TestDriverValueRoundTrip's check for lib/pq
// (database/sql): each value of testdata/types/values.tsv is sent as text,
// scanned into the driver's Go value, sent back as that value, and the
// answers from pgproxy must be PostgreSQL 15's (except refusedValues).
func TestLibPQValueRoundTrip(t *testing.T) {
	values := readTypeValues(t)
	p := startProxy(t)
	pg := pgtest.Shared(t)
	roundTrip := func(dsn string) []string {
		db, err := sql.Open("postgres", dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		db.SetMaxOpenConns(1)
		ctx := context.Background()
		if _, err := db.ExecContext(ctx, "SET TimeZone = 'UTC'"); err != nil {
			t.Fatal(err)
		}
		show := func(err error, x any) string {
			if err != nil {
				var pqErr *pq.Error
				if errors.As(err, &pqErr) {
					return "ERROR " + string(pqErr.Code)
				}
				return "CLIENT " + err.Error()
			}
			if b, ok := x.([]byte); ok {
				return fmt.Sprintf("bytes:%q", b)
			}
			if tm, ok := x.(time.Time); ok {
				return "time:" + tm.UTC().Format(time.RFC3339Nano)
			}
			return fmt.Sprintf("%T:%v", x, x)
		}
		var out []string
		for _, v := range values {
			q := "SELECT $1::" + v.typ
			var param any
			if v.value != nil {
				param = *v.value
			}
			var x any
			err := db.QueryRowContext(ctx, q, param).Scan(&x)
			line := v.typ + "\t" + show(nil, param) + "\t" + show(err, x)
			if err == nil {
				var y any
				err2 := db.QueryRowContext(ctx, q, x).Scan(&y)
				line += " | " + show(err2, y)
			}
			out = append(out, line)
		}
		return out
	}
	want := roundTrip(pg.ConnString(freshPostgresDB(t, pg)))
	got := roundTrip(p.DSN("main"))
	for i := range values {
		if got[i] == want[i] {
			continue
		}
		if v := values[i].value; v != nil && strings.Contains(got[i], "ERROR 0A000") {
			if _, refused := refusedValues[*v]; refused {
				continue
			}
		}
		t.Errorf("lib/pq:\n got %s\nwant %s", got[i], want[i])
	}
	p.alive(t)
}
