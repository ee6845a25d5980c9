package planner

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// noticesOf runs each statement on a fresh connection to url over both
// protocols and returns the notices (code and message) in arrival order.
func noticesOf(t *testing.T, url string, stmts []string) []string {
	t.Helper()
	ctx := context.Background()
	var got []string
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeDescribeExec} {
		cfg, err := pgx.ParseConfig(url)
		if err != nil {
			t.Fatal(err)
		}
		cfg.DefaultQueryExecMode = mode
		cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { got = append(got, n.Code+" "+n.Message) }
		c, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range stmts {
			rows, err := c.Query(ctx, s)
			if err == nil {
				rows.Close()
				err = rows.Err()
			}
			got = append(got, "-- "+sqlState(err))
		}
		c.Close(ctx)
	}
	return got
}

// TestTruncatedIdentifierNotices: identifiers longer than 63 bytes are
// truncated with PostgreSQL's NOTICE (42622), the same notices in the same
// order as PostgreSQL 15 sends them, over the simple and extended protocol.
func TestTruncatedIdentifierNotices(t *testing.T) {
	pg := pgtest.Shared(t)
	ts := startServer(t, nil)
	long := strings.Repeat("Ab", 40)
	stmts := []string{
		"SELECT 1 AS " + long,
		`SELECT 1 AS "` + long + `"`,
		"SELECT '" + long + "', 2 AS " + long + "x, 3 AS y" + long,
		"SELECT 1 AS short",
	}
	want := noticesOf(t, pg.ConnString("postgres"), stmts)
	got := noticesOf(t, ts.url("main"), stmts)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("notices differ from PostgreSQL's\n got: %q\nwant: %q", got, want)
	}
	if !strings.Contains(strings.Join(want, "\n"), "42622") {
		t.Fatal("PostgreSQL sent no 42622 notice: the test checks nothing")
	}
}
