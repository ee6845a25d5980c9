package exec

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// joinOrderCatalog is a small graph: person (primary key id) and knows
// (keyed by src), with names that a filter picks one person by.
func joinOrderCatalog(t *testing.T) *Engine {
	t.Helper()
	cat := NewMemCatalog()
	const n = 20000
	persons := make([][]any, n)
	for i := range persons {
		persons[i] = []any{int64(i + 1), fmt.Sprintf("p%d", i+1)}
	}
	pt, err := NewMemTable([]ColumnDef{{Name: "id", Type: TInt8}, {Name: "name", Type: TText}}, persons)
	if err != nil {
		t.Fatal(err)
	}
	pt.Keys = []int{0}
	cat.Add(&TableDef{Name: "person", Columns: pt.Cols, Source: pt, PrimaryKey: []int{0}})
	var knows [][]any
	for s := 1; s <= n; s++ {
		for d := 1; d <= 5; d++ {
			knows = append(knows, []any{int64(s), int64((s*7+d*131)%n + 1)})
		}
	}
	kt, err := NewMemTable([]ColumnDef{{Name: "src", Type: TInt8}, {Name: "dst", Type: TInt8}}, knows)
	if err != nil {
		t.Fatal(err)
	}
	kt.Keys = []int{0}
	cat.Add(&TableDef{Name: "knows", Columns: kt.Cols, Source: kt})
	return &Engine{Catalog: cat}
}

// TestInnerJoinCostOrder: inner joins written big table first with the
// selective condition last start from the selective table (EXPLAIN
// shows it); a sensible written order, and joins with no selective
// condition, keep the written order. Results are compared with
// PostgreSQL by testdata/sql/63_join_order.sql.
func TestInnerJoinCostOrder(t *testing.T) {
	eng := joinOrderCatalog(t)
	cases := []struct {
		sql   string
		first string // the scan the plan starts from
	}{
		{"SELECT count(*) FROM knows e1 JOIN knows e2 ON e2.src = e1.dst JOIN person p ON p.id = e1.src WHERE p.name = 'p7'", "person p"},
		{"SELECT count(*) FROM knows e1, knows e2, person p WHERE e2.src = e1.dst AND p.id = e1.src AND p.name = 'p7'", "person p"},
		{"SELECT e2.dst, p.name FROM knows e1 JOIN knows e2 ON e2.src = e1.dst JOIN person p ON p.id = e1.src WHERE p.name = 'p7' ORDER BY 1, 2", "person p"},
		{"SELECT count(*) FROM person p JOIN knows e1 ON p.id = e1.src JOIN knows e2 ON e2.src = e1.dst WHERE p.name = 'p7'", "knows e1"}, // written order: p is the build side (looked up from at run time)
		{"SELECT count(*) FROM knows e1 JOIN knows e2 ON e2.src = e1.dst JOIN person p ON p.id = e1.src", "knows e1"},
	}
	for _, c := range cases {
		prep, err := eng.Prepare(c.sql, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		plan, err := prep.Explain(context.Background(), nil, nil, false)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		first := ""
		for _, l := range plan {
			if i := strings.Index(l, "Scan on "); i >= 0 {
				first = strings.Fields(l[i+len("Scan on "):])[0] + " " + strings.Fields(l[i+len("Scan on "):])[1]
				break
			}
		}
		if first != c.first {
			t.Errorf("%s: plan starts from %q, want %q:\n%s", c.sql, first, c.first, strings.Join(plan, "\n"))
		}
	}
}
