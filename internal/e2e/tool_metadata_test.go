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
	qb, err := os.ReadFile("testdata/clients/tool_metadata_queries.sql")
	if err != nil {
		t.Fatal(err)
	}
	type query struct {
		rows bool
		sql  string
	}
	var queries []query
	for _, s := range toolSession {
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
	res, err := c.PgConn().Exec(ctx, sql).ReadAll()
	if err != nil {
		code := "?"
		if pe, ok := err.(interface{ SQLState() string }); ok {
			code = pe.SQLState()
		}
		return "ERROR " + code + "\n"
	}
	var b strings.Builder
	for _, r := range res {
		for i, f := range r.FieldDescriptions {
			if i > 0 {
				b.WriteString(" | ")
			}
			fmt.Fprintf(&b, "%s:%d", f.Name, f.DataTypeOID)
		}
		b.WriteString("\n")
		if !rows {
			continue
		}
		for _, row := range r.Rows {
			for i, v := range row {
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
	}
	return b.String()
}
