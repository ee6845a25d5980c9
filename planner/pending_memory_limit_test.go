package planner

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestHeldRowsMemoryLimit: a statement whose new rows cannot join the
// pending state chunk by chunk (chunked_writes.go) fails past the
// session memory limit with 53200 naming why it holds them and what to
// do instead; the forms that stream (INSERT … SELECT … ON CONFLICT DO
// NOTHING, DO UPDATE of non-key columns) commit under the same limit.
func TestHeldRowsMemoryLimit(t *testing.T) {
	ts := startServer(t, nil)
	ts.backend.MemoryLimit = 256 << 10
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE h (id int8 PRIMARY KEY, k int8 UNIQUE, v text)",
		"CREATE TABLE hc (id int8 PRIMARY KEY, h_id int8 REFERENCES h(id))",
		"INSERT INTO h SELECT g, g, repeat('v', 100) FROM generate_series(1, 5000) g",
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, tc := range []struct {
		sql    string
		tag    string // success
		detail string // else 53200 with this in its detail
		hint   string // … and this in its hint
	}{
		{sql: "UPDATE h SET k = k + 100000", detail: `because it assigns a column of unique key "h_k_key"`, hint: "a key range"},
		{sql: "UPDATE h SET id = id + 100000", detail: "because it assigns a column of unique key", hint: "a key range"},
		{sql: "UPDATE h SET v = v || 'x' RETURNING id, (SELECT 1)", detail: "because its RETURNING has a subquery", hint: "a separate query"},
		{sql: "MERGE INTO h USING generate_series(1, 5000) AS s(x) ON h.id = s.x WHEN MATCHED THEN UPDATE SET k = k + 200000", detail: "because its UPDATE assigns a column of unique key", hint: "restrict the source"},
		{sql: "MERGE INTO h USING generate_series(1, 5000) AS s(x) ON h.id = s.x WHEN MATCHED THEN UPDATE SET v = 'm' RETURNING h.id, (SELECT 1)", detail: "because its RETURNING has a subquery", hint: "a separate query"},
		{sql: "INSERT INTO h SELECT g, g, repeat('z', 100) FROM generate_series(1, 5000) g ON CONFLICT (id) DO UPDATE SET k = excluded.k + 300000", detail: "because its ON CONFLICT DO UPDATE assigns a column of unique key", hint: "Insert fewer rows"},
		{sql: "INSERT INTO h SELECT g, g, repeat('z', 100) FROM generate_series(1, 5000) g ON CONFLICT (id) DO UPDATE SET v = (SELECT 'q')", detail: "because its ON CONFLICT DO UPDATE has a subquery", hint: "Insert fewer rows"},
		// streamed: one chunk of new rows at a time
		{sql: "INSERT INTO h SELECT g, g, repeat('z', 100) FROM generate_series(1, 10000) g ON CONFLICT DO NOTHING", tag: "INSERT 0 5000"},
		{sql: "INSERT INTO h SELECT g, g, repeat('w', 100) FROM generate_series(5001, 15000) g ON CONFLICT (id) DO UPDATE SET v = excluded.v", tag: "INSERT 0 10000"},
		{sql: "UPDATE h SET v = v || 'x'", tag: "UPDATE 15000"},
		// RETURNING rows spill; DELETE streams
		{sql: "UPDATE h SET v = v || 'y' RETURNING id, v", tag: "UPDATE 15000"},
		{sql: "MERGE INTO h USING generate_series(1, 15000) AS s(x) ON h.id = s.x WHEN MATCHED THEN UPDATE SET v = v || 'm' RETURNING h.id, h.v", tag: "MERGE 15000"},
		{sql: "DELETE FROM h RETURNING id, v", detail: "because another table's foreign key references its table", hint: "a key range"},
		{sql: "DROP TABLE hc", tag: "DROP TABLE"},
		{sql: "DELETE FROM h WHERE id > 5000 RETURNING id, v", tag: "DELETE 10000"},
	} {
		tag, err := c.Exec(ctx, tc.sql)
		if tc.tag != "" {
			if err != nil || tag.String() != tc.tag {
				t.Errorf("%s: %v %v, want %s", tc.sql, tag, err, tc.tag)
			}
			continue
		}
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "53200" || !strings.Contains(pe.Detail, tc.detail) || !strings.Contains(pe.Hint, tc.hint) {
			if pe != nil {
				t.Errorf("%s: %s %s\n  detail: %s\n  hint: %s\nwant 53200 with %q in the detail, %q in the hint", tc.sql, pe.Code, pe.Message, pe.Detail, pe.Hint, tc.detail, tc.hint)
			} else {
				t.Errorf("%s: %v %v, want 53200", tc.sql, tag, err)
			}
		}
	}
}
