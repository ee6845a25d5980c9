package lancesrc

import (
	"context"
	"testing"

	"github.com/pggraph/pggraph/exec"
)

// BenchmarkTextIndexRange times selective queries on an indexed text
// column of a 200k-row Lance table through the engine: a BETWEEN range
// of a few keys and ORDER BY … LIMIT in the column's order, which read
// the index's keys in order instead of scanning the table.
func BenchmarkTextIndexRange(b *testing.B) {
	const rows = 200_000
	ds := newPersonDataset(b, rows)
	cols := []exec.ColumnDef{{Name: "id", Type: exec.TInt8, NotNull: true}, {Name: "name", Type: exec.TText}, {Name: "score", Type: exec.TFloat8}}
	cat := exec.NewMemCatalog()
	cat.Add(&exec.TableDef{Name: "person", Columns: cols, PrimaryKey: []int{0},
		Indexes: []exec.IndexDef{{Name: "person_name", Columns: []int{1}}}, Source: New(ds, cols, []int{0, 1})})
	eng := &exec.Engine{Catalog: cat}
	ctx := context.Background()
	for _, q := range []struct{ name, sql string }{
		{"between", "SELECT id, score FROM person WHERE name BETWEEN 'p1000' AND 'p10003'"},
		{"order-limit", "SELECT id, name FROM person ORDER BY name LIMIT 5"},
		{"like-prefix", "SELECT id, score FROM person WHERE name LIKE 'p1999%'"},
	} {
		b.Run(q.name, func(b *testing.B) {
			res, err := eng.Query(ctx, nil, q.sql)
			if err != nil || res.NumRows() == 0 {
				b.Fatalf("no rows, %v", err)
			}
			if testing.Verbose() {
				prep, err := eng.PrepareFor(&exec.Session{}, q.sql, nil)
				if err != nil {
					b.Fatal(err)
				}
				lines, err := prep.Explain(ctx, &exec.Session{}, nil, true)
				if err != nil {
					b.Fatal(err)
				}
				for _, l := range lines {
					b.Log(l)
				}
			}
			for b.Loop() {
				if _, err := eng.Query(ctx, nil, q.sql); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
