package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// toolSession is what DBeaver, Metabase and DataGrip send on connect
// besides catalog queries (settings and SHOW), in order.
var toolSession = []string{
	"SET extra_float_digits = 3",
	"SET application_name = 'DBeaver 25.1.5 - Main <postgres>'",
	"SHOW search_path",
	"SHOW TRANSACTION ISOLATION LEVEL",
	"SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ UNCOMMITTED",
	"SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED",
	"SHOW TRANSACTION ISOLATION LEVEL",
	"show timezone",
	"SELECT version() LIKE 'PostgreSQL 15.%'",
}

// TestToolStartupQueries runs the session statements and catalog queries
// of DBeaver, Metabase and DataGrip (testdata/clients/
// tool_metadata_queries.sql) against pgproxy and PostgreSQL 15 after the
// same DDL and compares the answers: column names and types always, rows
// where the query is marked "rows:", SQLSTATEs when PostgreSQL fails.
func TestToolStartupQueries(t *testing.T) {
	compareToolQueries(t, "testdata/clients/tool_metadata_queries.sql", toolSession)
}

// TestToolIntrospectionQueries is TestToolStartupQueries over the catalog
// and monitoring queries of pgAdmin 4, Grafana, Apache Superset and the
// session monitors of DBeaver and Metabase
// (testdata/clients/tool_introspection_queries.sql).
func TestToolIntrospectionQueries(t *testing.T) {
	compareToolQueries(t, "testdata/clients/tool_introspection_queries.sql", nil)
}

// compareToolQueries runs the session statements, then file's queries,
// on pgproxy and PostgreSQL 15 over the same schema and compares them.
func compareToolQueries(t *testing.T, file string, session []string) {
	qb, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	type query struct {
		rows bool
		sql  string
	}
	var queries []query
	for _, s := range session {
		queries = append(queries, query{true, s})
	}
	for _, l := range strings.Split(string(qb), "\n") {
		if rest, ok := strings.CutPrefix(l, "rows: "); ok {
			queries = append(queries, query{true, rest})
		} else if rest, ok := strings.CutPrefix(l, "cols: "); ok {
			queries = append(queries, query{false, rest})
		}
	}
	ctx := context.Background()
	both := schemaOnBoth(t, ctx, "testdata/clients/jdbc_metadata_schema.sql")
	for _, q := range queries {
		want := simpleQuery(ctx, both.pgc, q.sql, q.rows, both.db, "postgres")
		got := withoutGraphRows(simpleQuery(ctx, both.conn, q.sql, q.rows, "main", e2eUser))
		if want != got {
			t.Errorf("%s\n--- PostgreSQL\n%s--- pgproxy\n%s", q.sql, want, got)
		}
	}
	both.proxy.alive(t)
}

// withoutGraphRows drops result rows naming pggraph's own schema (graph:
// the commit log and branch views), which PostgreSQL does not have.
func withoutGraphRows(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "graph | ") || strings.Contains(l, " | graph | ") || strings.HasSuffix(l, " | graph") {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// simpleQuery runs sql with the simple protocol and renders the columns
// (name:type OID), the rows when rows is set (database and user names
// neutralized), or the SQLSTATE.
func simpleQuery(ctx context.Context, c *pgx.Conn, sql string, rows bool, db, user string) string {
	var b strings.Builder
	// the result readers, not ReadAll: ReadAll keeps a result's columns
	// only when it has rows, and an empty answer's columns count too
	mrr := c.PgConn().Exec(ctx, sql)
	for mrr.NextResult() {
		rr := mrr.ResultReader()
		for i, f := range rr.FieldDescriptions() {
			if i > 0 {
				b.WriteString(" | ")
			}
			fmt.Fprintf(&b, "%s:%d", f.Name, f.DataTypeOID)
		}
		b.WriteString("\n")
		for rr.NextRow() {
			if !rows {
				continue
			}
			for i, v := range rr.Values() {
				if i > 0 {
					b.WriteString(" | ")
				}
				switch {
				case v == nil:
					b.WriteString("NULL")
				case string(v) == db:
					b.WriteString("<database>")
				case string(v) == user:
					b.WriteString("<user>")
				default:
					b.Write(v)
				}
			}
			b.WriteString("\n")
		}
		if _, err := rr.Close(); err != nil {
			break
		}
	}
	if err := mrr.Close(); err != nil {
		code := "?"
		if pe, ok := err.(interface{ SQLState() string }); ok {
			code = pe.SQLState()
		}
		return "ERROR " + code + "\n"
	}
	return b.String()
}
