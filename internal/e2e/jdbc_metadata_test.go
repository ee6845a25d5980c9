package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// TestJdbcMetadata runs pgjdbc's DatabaseMetaData calls
// (testdata/clients/JdbcMetadata.java: getSchemas, getTables, getColumns,
// getPrimaryKeys, getIndexInfo, getImportedKeys/getExportedKeys/
// getCrossReference, getBestRowIdentifier, getTypeInfo, getFunctions,
// getUDTs, ...) against pgproxy and against PostgreSQL 15 after the same
// DDL (testdata/clients/jdbc_metadata_schema.sql) and requires the same
// transcript, database and user names aside.
func TestJdbcMetadata(t *testing.T) {
	const install = javaInstall
	ctx := context.Background()
	argv := javaArgv(t, "JdbcMetadata")

	both := schemaOnBoth(t, ctx, "testdata/clients/jdbc_metadata_schema.sql")
	want := runClientEnv(t, postgresEnv(both.pg, both.db), install, argv...)
	got := runClient(t, both.proxy, install, nil, argv...)
	both.proxy.alive(t)

	w, g := neutralNames(want, both.db, "postgres"), neutralNames(withoutGraphSchema(got), "main", e2eUser)
	if w != g {
		t.Errorf("DatabaseMetaData transcripts differ\n%s", sectionDiff(w, g))
	}
}

// bothSides is PostgreSQL 15 (a fresh database in the shared cluster) and
// a pgproxy, each with the same DDL applied.
type bothSides struct {
	pg    *pgtest.Server
	db    string
	pgc   *pgx.Conn
	proxy *proxy
	conn  *pgx.Conn
}

// schemaOnBoth runs the DDL script at path on a fresh PostgreSQL database
// (as one multi-statement query) and on a new pgproxy (statement by
// statement); both connections close when the test ends.
func schemaOnBoth(t *testing.T, ctx context.Context, path string) bothSides {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	schema := string(raw)
	b := bothSides{pg: pgtest.Shared(t)}
	b.db = freshPostgresDB(t, b.pg)
	if b.pgc, err = pgx.Connect(ctx, b.pg.ConnString(b.db)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.pgc.Close(context.Background()) })
	if _, err := b.pgc.Exec(ctx, schema); err != nil {
		t.Fatal(err)
	}
	b.proxy = startProxy(t)
	if b.conn, err = b.proxy.Connect(ctx, "main"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.conn.Close(context.Background()) })
	for _, stmt := range strings.Split(schema, ";") {
		if strings.TrimSpace(stripComments(stmt)) == "" {
			continue
		}
		if _, err := b.conn.Exec(ctx, stmt); err != nil {
			t.Fatalf("pgproxy: %s: %v", stmt, err)
		}
	}
	return b
}

// withoutGraphSchema removes pggraph's own schema (graph: the commit log
// and branch views) from the getSchemas() listing; PostgreSQL has no such
// schema, everything else must match.
func withoutGraphSchema(s string) string {
	lines := strings.Split(s, "\n")
	var out []string
	section := ""
	for _, l := range lines {
		if strings.HasPrefix(l, "## ") {
			section = l
		}
		if section == "## getSchemas()" {
			if l == "graph | NULL" {
				continue
			}
			var n int
			if _, err := fmt.Sscanf(l, "(%d rows)", &n); err == nil {
				l = fmt.Sprintf("(%d rows)", n-1)
			}
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// stripComments drops -- comment lines.
func stripComments(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "--") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// neutralNames replaces result fields equal to the database or user name.
func neutralNames(s, db, user string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		f := strings.Split(l, " | ")
		for k := range f {
			switch f[k] {
			case db:
				f[k] = "<database>"
			case user:
				f[k] = "<user>"
			}
		}
		lines[i] = strings.Join(f, " | ")
	}
	return strings.Join(lines, "\n")
}

// sectionDiff prints the "## call" sections whose text differs.
func sectionDiff(want, got string) string {
	split := func(s string) ([]string, map[string]string) {
		m := map[string]string{}
		var order []string
		title := ""
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "## ") {
				title = l
				order = append(order, title)
			}
			m[title] += l + "\n"
		}
		return order, m
	}
	order, w := split(want)
	_, g := split(got)
	var b strings.Builder
	for _, k := range order {
		if w[k] != g[k] {
			b.WriteString("--- PostgreSQL\n" + w[k] + "+++ pgproxy\n" + g[k] + "\n")
		}
	}
	return b.String()
}
