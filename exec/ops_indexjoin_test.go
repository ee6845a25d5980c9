package exec

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestLookupJoinReadsByKey: a join whose other side is small reads the
// indexed table only through key lookups (no scan of it), in either
// written order and for inner, left, semi and anti joins; a large other
// side, or enable_nestloop = off, hashes the table instead (a scan, no
// lookups); enable_hashjoin = off forces lookups even then. Every way
// gives the same rows.
func TestLookupJoinReadsByKey(t *testing.T) {
	ecols := []ColumnDef{{Name: "src", Type: TInt8, NotNull: true}, {Name: "dst", Type: TInt8, NotNull: true}, {Name: "w", Type: TInt4}}
	rows := make([][]any, 4000)
	for i := range rows {
		rows[i] = []any{int64(i % 1000), int64((i * 7) % 1000), int64(i % 13)}
	}
	mt, err := NewMemTable(ecols, rows)
	if err != nil {
		t.Fatal(err)
	}
	mt.Keys = []int{0, 1}
	edges := &columnsSource{MemTable: mt}
	scols := []ColumnDef{{Name: "k", Type: TInt8}}
	small, err := NewMemTable(scols, [][]any{{int64(3)}, {int64(5)}, {nil}, {int64(5000)}})
	if err != nil {
		t.Fatal(err)
	}
	cat := NewMemCatalog()
	cat.Add(&TableDef{Name: "e", Columns: ecols, Source: edges, Adjacency: []int{0, 1}})
	cat.Add(&TableDef{Name: "s", Columns: scols, Source: small})
	eng := &Engine{Catalog: cat}
	cases := []struct {
		sql     string
		lookups bool // by default
	}{
		{"SELECT s.k, e.dst, e.w FROM s JOIN e ON e.src = s.k ORDER BY 1, 2, 3", true},
		{"SELECT s.k, e.dst, e.w FROM e JOIN s ON e.src = s.k ORDER BY 1, 2, 3", true},
		{"SELECT s.k, e.dst FROM s LEFT JOIN e ON e.src = s.k AND e.w > 5 ORDER BY 1, 2", true},
		{"SELECT k FROM s WHERE EXISTS (SELECT 1 FROM e WHERE e.dst = s.k) ORDER BY 1", true},
		{"SELECT k FROM s WHERE NOT EXISTS (SELECT 1 FROM e WHERE e.dst = s.k AND e.w = 1) ORDER BY 1", true},
		{"SELECT e2.dst, count(*) FROM e e1 JOIN e e2 ON e2.src = e1.dst WHERE e1.src = 3 GROUP BY 1 ORDER BY 1", true},
		{"SELECT count(*) FROM e e1 JOIN e e2 ON e2.src = e1.dst", false},
		// each iteration's frontier looks up its edges
		{"WITH RECURSIVE r(n, d) AS (SELECT 3::int8, 0 UNION ALL SELECT e.dst, r.d + 1 FROM r JOIN e ON e.src = r.n WHERE r.d < 3) SELECT d, count(*) FROM r GROUP BY d ORDER BY d", true},
		{"WITH RECURSIVE r(n, d) AS (SELECT 3::int8, 0 UNION ALL SELECT e.dst, r.d + 1 FROM r JOIN e ON e.src = r.n WHERE r.d < 3) CYCLE n SET c USING p SELECT count(*), count(*) FILTER (WHERE c) FROM r", true},
	}
	run := func(sql string, settings map[string]string) (string, int, int) {
		edges.mu.Lock()
		edges.cols, edges.asked = nil, nil
		edges.mu.Unlock()
		sess := &Session{Setting: func(n string) (string, bool) { v, ok := settings[n]; return v, ok }}
		res, err := eng.Query(context.Background(), sess, sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		var out []string
		for _, r := range res.Rows() {
			var f []string
			for _, v := range r {
				if v == nil {
					f = append(f, "NULL")
				} else {
					f = append(f, *v)
				}
			}
			out = append(out, strings.Join(f, ","))
		}
		return strings.Join(out, ";"), len(edges.cols), len(edges.asked)
	}
	for _, tc := range cases {
		def, scans, lookups := run(tc.sql, nil)
		if tc.lookups && (scans != 0 || lookups == 0) {
			t.Errorf("%s: %d scans and %d lookups of e, want lookups only", tc.sql, scans, lookups)
		}
		if !tc.lookups && (scans == 0 || lookups != 0) {
			t.Errorf("%s: %d scans and %d lookups of e, want a scan", tc.sql, scans, lookups)
		}
		// (e1.src = 3 alone is still a key lookup, not a join)
		hashed, scans, _ := run(tc.sql, map[string]string{"enable_nestloop": "off"})
		if scans == 0 {
			t.Errorf("%s with enable_nestloop=off: no scan of e", tc.sql)
		}
		looked, _, lookups := run(tc.sql, map[string]string{"enable_hashjoin": "off"})
		if lookups == 0 {
			t.Errorf("%s with enable_hashjoin=off: no lookups", tc.sql)
		}
		if def != hashed || def != looked {
			t.Errorf("%s: results differ:\n  default %s\n  hash    %s\n  lookup  %s", tc.sql, trunc(def), trunc(hashed), trunc(looked))
		}
	}
}

func trunc(s string) string {
	if len(s) > 200 {
		return fmt.Sprintf("%s… (%d bytes)", s[:200], len(s))
	}
	return s
}
