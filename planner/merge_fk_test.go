package planner

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestMergeReferentialActions: MERGE's DELETE takes the foreign keys' ON
// DELETE actions and its UPDATE their ON UPDATE ones, in one statement.
func TestMergeReferentialActions(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE p (id int8 PRIMARY KEY, name text)",
		"CREATE TABLE e (src int8 REFERENCES p(id) ON DELETE CASCADE, dst int8 REFERENCES p(id) ON DELETE CASCADE, n int4)",
		"INSERT INTO p VALUES (1, 'a'), (2, 'b'), (3, 'c')",
		"INSERT INTO e VALUES (1, 2, 1), (2, 1, 2), (2, 3, 3), (3, 3, 4)",
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	steps := []struct {
		sql, tag string
		edges    int
	}{
		{"MERGE INTO p USING (VALUES (1::int8)) AS v(id) ON p.id = v.id WHEN MATCHED THEN DELETE", "MERGE 1", 2},
		// one clause updates a non-key column, another deletes: the
		// deleted row's edges cascade, the updated row keeps its edges
		{"MERGE INTO p USING (VALUES (2::int8, 'x'), (3::int8, 'y')) AS v(id, name) ON p.id = v.id WHEN MATCHED AND v.id = 2 THEN UPDATE SET name = v.name WHEN MATCHED THEN DELETE", "MERGE 2", 0},
	}
	for _, s := range steps {
		tag, err := c.Exec(ctx, s.sql)
		if err != nil {
			t.Fatalf("%s: %v", s.sql, err)
		}
		if tag.String() != s.tag {
			t.Fatalf("%s: tag %q, want %q", s.sql, tag, s.tag)
		}
		var n int
		if err := c.QueryRow(ctx, "SELECT count(*) FROM e").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != s.edges {
			t.Fatalf("%s: %d edges left, want %d", s.sql, n, s.edges)
		}
	}
	var name string
	if err := c.QueryRow(ctx, "SELECT string_agg(id || name, ',' ORDER BY id) FROM p").Scan(&name); err != nil || name != "2x" {
		t.Fatalf("people %q %v, want 2x", name, err)
	}
}
