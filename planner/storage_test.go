package planner

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestStorageTypesThroughServer writes vector(n) and numeric(p,s)
// columns through the server: good rows round-trip, a wrong dimension
// or a numeric overflow is an error (nothing stored), never a crash or
// a silent NULL.
func TestStorageTypesThroughServer(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	ctx := context.Background()
	if _, err := c.Exec(ctx, "CREATE TABLE t (id int primary key, v vector(3), p numeric(5,2))"); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		sql   string
		state string
	}{
		{"INSERT INTO t VALUES (1, '{1,2,3}', 123.45)", ""},
		{"INSERT INTO t VALUES (2, '{1,2}', 1)", "22000"},
		{"INSERT INTO t VALUES (3, '{1,2,3,4}', 1)", "22000"},
		{"INSERT INTO t VALUES (4, '{1,2,3}', 1234.5)", "22003"},
		{"INSERT INTO t VALUES (5, NULL, NULL)", ""},
		{"BEGIN", ""},
		{"INSERT INTO t VALUES (6, '{4,5,6.5}', -0.01)", ""},
		{"UPDATE t SET p = p + 1 WHERE id = 6", ""},
		{"COMMIT", ""},
		{"UPDATE t SET v = '{7,8}' WHERE id = 1", "22000"},
	}
	for _, s := range steps {
		_, err := c.Exec(ctx, s.sql)
		if got := sqlState(err); got != s.state || (s.state == "" && err != nil) {
			t.Fatalf("%s: err %v (SQLSTATE %q), want %q", s.sql, err, got, s.state)
		}
	}
	rows, err := c.Query(ctx, "SELECT id, v::text, p::text FROM t ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var id int32
		var v, p *string
		if err := rows.Scan(&id, &v, &p); err != nil {
			t.Fatal(err)
		}
		str := func(s *string) string {
			if s == nil {
				return "NULL"
			}
			return *s
		}
		got = append(got, str(v)+" "+str(p))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{"{1,2,3} 123.45", "NULL NULL", "{4,5,6.5} 0.99"}
	if len(got) != len(want) {
		t.Fatalf("rows %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("rows %q, want %q", got, want)
		}
	}
}
