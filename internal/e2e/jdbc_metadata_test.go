package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestJdbcMetadata runs pgjdbc's DatabaseMetaData calls
// (testdata/clients/JdbcMetadata.java: getSchemas, getTables, getColumns,
// getPrimaryKeys, getIndexInfo, getImportedKeys/getExportedKeys/
// getCrossReference, getBestRowIdentifier, getTypeInfo, getFunctions,
// getUDTs, ...) against pgproxy and against PostgreSQL 15 after the same
// DDL (testdata/clients/jdbc_metadata_schema.sql) and requires the same
// transcript, database and user names aside.
func TestJdbcMetadata(t *testing.T) {
	const install = "apt-get install -y openjdk-17-jdk-headless libpostgresql-jdbc-java"
	raw, err := os.ReadFile("testdata/clients/jdbc_metadata_schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	schema := string(raw)
	ctx := context.Background()
	argv := []string{"java", "-cp", "/usr/share/java/postgresql.jar", "testdata/clients/JdbcMetadata.java"}

	pg := sharedPostgres(t)
	db := freshPostgresDB(t, pg)
	pgc, err := pgx.Connect(ctx, pg.ConnString(db))
	if err != nil {
		t.Fatal(err)
	}
	defer pgc.Close(ctx)
	if _, err := pgc.Exec(ctx, schema); err != nil {
		t.Fatal(err)
	}
	want := runClientEnv(t, postgresEnv(pg, db), install, argv...)

	p := startProxy(t)
	conn, err := p.Connect(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, stmt := range strings.Split(schema, ";") {
		if strings.TrimSpace(stripComments(stmt)) == "" {
			continue
		}
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatalf("pgproxy: %s: %v", stmt, err)
		}
	}
	got := runClient(t, p, install, nil, argv...)
	p.alive(t)

	w, g := neutralNames(want, db, "postgres"), neutralNames(withoutGraphSchema(got), "main", e2eUser)
	if w != g {
		t.Errorf("DatabaseMetaData transcripts differ\n%s", sectionDiff(w, g))
	}
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
