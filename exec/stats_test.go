package exec

import (
	"context"
	"strings"
	"testing"
)

// TestStatsDriveEstimates: after ANALYZE, a lookup on a non-unique key
// is estimated at the table's rows per distinct value (8 edges per
// source here) instead of the fixed guess, for the scan and the join
// above it.
func TestStatsDriveEstimates(t *testing.T) {
	ecols := []ColumnDef{{Name: "src", Type: TInt8, NotNull: true}, {Name: "dst", Type: TInt8, NotNull: true}}
	erows := make([][]any, 8000)
	for i := range erows {
		erows[i] = []any{int64(i%1000 + 1), int64((i*7)%1000 + 1)}
	}
	edges, err := NewMemTable(ecols, erows)
	if err != nil {
		t.Fatal(err)
	}
	edges.Keys = []int{0, 1}
	td := &TableDef{Name: "knows", Columns: ecols, Kind: "edge", Adjacency: []int{0, 1}, Source: edges}
	cat := NewMemCatalog()
	cat.Add(td)
	eng := &Engine{Catalog: cat}
	explain := func() string {
		prep, err := eng.PrepareFor(&Session{}, "SELECT e2.dst FROM knows e1 JOIN knows e2 ON e2.src = e1.dst WHERE e1.src = 1", nil)
		if err != nil {
			t.Fatal(err)
		}
		lines, err := prep.Explain(context.Background(), &Session{}, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(lines, "\n")
	}
	before := explain()
	st, err := AnalyzeTable(context.Background(), td, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Columns[0].NDistinct != -0.125 { // 1000 of 8000 rows: scales with the table
		t.Fatalf("n_distinct of src = %v, want -0.125", st.Columns[0].NDistinct)
	}
	after := explain()
	if !strings.Contains(after, "Nested Loop  (rows=64)") || !strings.Contains(after, "(rows=8)") {
		t.Fatalf("estimates after ANALYZE:\n%s\nbefore:\n%s", after, before)
	}
	if strings.Contains(before, "(rows=64)") {
		t.Fatalf("estimates before ANALYZE already use statistics:\n%s", before)
	}
}
