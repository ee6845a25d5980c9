package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestDeepStatementsKeepTheServerUp: statements nested far deeper than any
// parser stack allows answer 54001 (as PostgreSQL does) over both the
// simple and the extended protocol, the session goes on, and wide
// statements of the same size still run.
func TestDeepStatementsKeepTheServerUp(t *testing.T) {
	ctx := context.Background()
	p, conn := socialProxy(t, ctx)

	deep := []struct{ name, sql string }{
		{"parentheses", "SELECT " + strings.Repeat("(", 60000) + "1" + strings.Repeat(")", 60000)},
		{"operator chain", "SELECT 1" + strings.Repeat("+1", 60000)},
		{"union chain", "SELECT 1" + strings.Repeat(" UNION SELECT 1", 60000)},
		{"insert expression", "INSERT INTO people (id, name) VALUES (1" + strings.Repeat("+1", 60000) + ", 'x')"},
		{"jsonb", "SELECT '" + strings.Repeat("[", 60000) + strings.Repeat("]", 60000) + "'::jsonb"},
	}
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec} {
		for _, c := range deep {
			_, err := conn.Exec(ctx, c.sql, mode)
			mustState(t, err, "54001", c.name)
			if n := queryInt(t, ctx, conn, "SELECT count(*) FROM people"); n != 6 {
				t.Fatalf("after %s: people has %d rows, want 6", c.name, n)
			}
		}
	}

	wide := []struct {
		name, sql string
		want      int64
	}{
		{"values", "SELECT count(*) FROM (VALUES (1)" + strings.Repeat(", (1)", 50000) + ") v", 50001},
		{"in list", "SELECT count(*) FROM people WHERE id IN (0" + strings.Repeat(", 1", 50000) + ")", 1},
		{"or chain", "SELECT count(*) FROM people WHERE id = 0" + strings.Repeat(" OR id = 2", 50000), 1},
	}
	for _, c := range wide {
		if n := queryInt(t, ctx, conn, c.sql); n != c.want {
			t.Fatalf("%s: %d, want %d", c.name, n, c.want)
		}
	}

	// A second client was never affected.
	other, err := p.Connect(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	if n := queryInt(t, ctx, other, "SELECT 1"); n != 1 {
		t.Fatal("a fresh connection cannot query")
	}
}
