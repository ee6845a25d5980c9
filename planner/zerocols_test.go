package planner

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestZeroColumnSelect: a query whose rows have no columns (SELECT;,
// SELECT FROM t WHERE ...) answers its rows, as PostgreSQL does, in the
// simple and the extended protocol.
func TestZeroColumnSelect(t *testing.T) {
	ts := startServer(t, nil)
	ctx := context.Background()
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec, pgx.QueryExecModeCacheStatement, pgx.QueryExecModeDescribeExec} {
		c := ts.connect(t, mode)
		if _, err := c.Exec(ctx, "create table if not exists t (id int8 primary key)"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Exec(ctx, "insert into t values (1), (2), (3) on conflict do nothing"); err != nil {
			t.Fatal(err)
		}
		for _, q := range []struct {
			sql  string
			args []any
			rows int
		}{{"select", nil, 1}, {"select from t where id < $1", []any{int64(3)}, 2}, {"select from t where id = 9", nil, 0}} {
			rows, err := c.Query(ctx, q.sql, q.args...)
			if err != nil {
				t.Fatalf("mode %v %s: %v", mode, q.sql, err)
			}
			n := 0
			for rows.Next() {
				if len(rows.RawValues()) != 0 {
					t.Errorf("mode %v %s: a row of %d values", mode, q.sql, len(rows.RawValues()))
				}
				n++
			}
			if err := rows.Err(); err != nil {
				t.Fatalf("mode %v %s: %v", mode, q.sql, err)
			}
			if n != q.rows {
				t.Errorf("mode %v %s: %d rows, want %d", mode, q.sql, n, q.rows)
			}
			if tag := rows.CommandTag().String(); tag != "SELECT "+string(rune('0'+q.rows)) {
				t.Errorf("mode %v %s: tag %q", mode, q.sql, tag)
			}
		}
	}
}
