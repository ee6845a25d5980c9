package exec

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkLeftJoinUnderInner times a LEFT JOIN written before a
// selective inner join (30k persons, 120k edges with adjacency indexes):
// the inner join runs first and drives lookups into the edges and then
// the left join's table (join_order_outer.go).
func BenchmarkLeftJoinUnderInner(b *testing.B) {
	pcols := []ColumnDef{{Name: "id", Type: TInt8, NotNull: true}, {Name: "name", Type: TText}}
	prows := make([][]any, 30000)
	for i := range prows {
		prows[i] = []any{int64(i + 1), fmt.Sprintf("p%d", i+1)}
	}
	people, err := NewMemTable(pcols, prows)
	if err != nil {
		b.Fatal(err)
	}
	people.Keys = []int{0}
	ecols := []ColumnDef{{Name: "src", Type: TInt8, NotNull: true}, {Name: "dst", Type: TInt8, NotNull: true}}
	erows := make([][]any, 120000)
	for i := range erows {
		erows[i] = []any{int64(i%30000 + 1), int64((i*7)%33000 + 1)}
	}
	edges, err := NewMemTable(ecols, erows)
	if err != nil {
		b.Fatal(err)
	}
	edges.Keys = []int{0, 1}
	cat := NewMemCatalog()
	cat.Add(&TableDef{Name: "person", Columns: pcols, PrimaryKey: []int{0}, Source: people})
	cat.Add(&TableDef{Name: "knows", Columns: ecols, Kind: "edge", Adjacency: []int{0, 1}, Source: edges})
	eng := &Engine{Catalog: cat}
	ctx := context.Background()
	const sql = "SELECT p.name, q.name FROM knows e LEFT JOIN person q ON q.id = e.dst JOIN person p ON p.id = e.src WHERE p.id = 7"
	prep, err := eng.PrepareFor(nil, sql, nil)
	if err != nil {
		b.Fatal(err)
	}
	if res, err := prep.Execute(ctx, nil, nil); err != nil || res.NumRows() != 4 {
		b.Fatalf("warm-up: %v", err)
	}
	for b.Loop() {
		if _, err := prep.Execute(ctx, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}
