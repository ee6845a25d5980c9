package exec

import (
	"context"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// scanCounter counts the scans of a table.
type scanCounter struct {
	TableSource
	scans atomic.Int64
}

func (c *scanCounter) Scan(ctx context.Context, req ScanRequest, emit func(arrow.RecordBatch, []uint64) error) error {
	c.scans.Add(1)
	return c.TableSource.Scan(ctx, req, emit)
}

// TestExistsDecorrelated: a WHERE-level [NOT] EXISTS correlated by
// equalities scans its inner table once (a hash semi/anti join), not once
// per outer row, and keeps EXISTS's NULL rules; the same sublink under OR
// still re-runs per row (the control that shows the counter works). A
// correlated x IN (SELECT y ...) is a semi join too; NOT IN is not.
func TestExistsDecorrelated(t *testing.T) {
	const nOuter, nInner = 2000, 300
	outer := make([][]any, nOuter)
	for i := range outer {
		var src any = int64(i % 700)
		if i%50 == 0 {
			src = nil
		}
		outer[i] = []any{int64(i), src}
	}
	inner := make([][]any, nInner)
	innerKeys := map[int64]int{}   // id -> rows
	taggedKeys := map[int64]bool{} // ids with a row whose tag is not 'x'
	for i := range inner {
		id := int64(2 * (i % 250)) // ids 0..498, 50 duplicated
		tag := "y"
		if i%3 == 0 {
			tag = "x"
		}
		if i%97 == 0 {
			inner[i] = []any{nil, tag}
			continue
		}
		inner[i] = []any{id, tag}
		innerKeys[id]++
		if tag != "x" {
			taggedKeys[id] = true
		}
	}
	om, err := NewMemTable([]ColumnDef{{Name: "id", Type: TInt8}, {Name: "src", Type: TInt8}}, outer)
	if err != nil {
		t.Fatal(err)
	}
	im, err := NewMemTable([]ColumnDef{{Name: "id", Type: TInt8}, {Name: "tag", Type: TText}}, inner)
	if err != nil {
		t.Fatal(err)
	}
	counted := &scanCounter{TableSource: im}
	cat := NewMemCatalog()
	cat.Add(&TableDef{Name: "co", Columns: om.Cols, Source: om})
	cat.Add(&TableDef{Name: "pa", Columns: im.Cols, Source: counted})
	eng := &Engine{Catalog: cat}

	// expected counts, computed from the rows
	var exists, notExists, existsTagged, existsOr int
	for _, r := range outer {
		src, ok := r[1].(int64)
		if ok && innerKeys[src] > 0 {
			exists++
		} else {
			notExists++ // a NULL key has no match: NOT EXISTS keeps it
		}
		if ok && taggedKeys[src] {
			existsTagged++
		}
		if (ok && innerKeys[src] > 0) || r[0].(int64) < 10 {
			existsOr++
		}
	}
	for _, c := range []struct {
		sql      string
		want     int
		maxScans int64 // inner scans allowed
		minScans int64
	}{
		{"SELECT count(*) FROM co c WHERE EXISTS (SELECT 1 FROM pa p WHERE p.id = c.src)", exists, 1, 1},
		{"SELECT count(*) FROM co c WHERE NOT EXISTS (SELECT 1 FROM pa p WHERE c.src = p.id)", notExists, 1, 1},
		{"SELECT count(*) FROM co c WHERE c.id >= 0 AND EXISTS (SELECT * FROM pa p WHERE p.id = c.src AND p.tag <> 'x')", existsTagged, 1, 1},
		{"SELECT count(*) FROM co c WHERE c.src IN (SELECT p.id FROM pa p WHERE p.tag = CASE WHEN c.id >= 0 THEN 'y' END)", existsTagged, 1, 1},
		{"SELECT count(*) FROM co c WHERE EXISTS (SELECT 1 FROM pa p WHERE p.id = c.src) OR c.id < 10", existsOr, nOuter, 100},
		{"SELECT count(*) FROM co c WHERE NOT (c.src IN (SELECT p.id FROM pa p WHERE p.tag = CASE WHEN c.id >= 0 THEN 'y' END))", -1, nOuter, 100},
	} {
		counted.scans.Store(0)
		res, err := eng.Query(context.Background(), nil, c.sql)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		got, _ := res.Text(0, 0)
		if c.want >= 0 && got != itoa(int64(c.want)) {
			t.Errorf("%s: count %s, want %d", c.sql, got, c.want)
		}
		if n := counted.scans.Load(); n < c.minScans || n > c.maxScans {
			t.Errorf("%s: inner table scanned %d times, want %d..%d", c.sql, n, c.minScans, c.maxScans)
		}
	}
}

// BenchmarkNotExists: the orphan check ORMs write, outer n rows x inner
// n/2 rows, with the hash anti join (on) and the per-row re-run (off).
func BenchmarkNotExists(b *testing.B) {
	const q = "WITH c AS (SELECT g AS id, g %% 60000 AS src FROM generate_series(1, %d) g), " +
		"p AS (SELECT g AS id FROM generate_series(1, %d) g) " +
		"SELECT count(*) FROM c WHERE NOT EXISTS (SELECT 1 FROM p WHERE p.id = c.src)"
	eng := &Engine{}
	for _, c := range []struct {
		name string
		on   bool
		n    int
	}{{"on-100k", true, 100_000}, {"on-10k", true, 10_000}, {"off-10k", false, 10_000}} {
		b.Run(c.name, func(b *testing.B) {
			saved := decorrelateExistsOn
			decorrelateExistsOn = c.on
			defer func() { decorrelateExistsOn = saved }()
			sql := fmt.Sprintf(q, c.n, c.n/2)
			for b.Loop() {
				if _, err := eng.Query(context.Background(), nil, sql); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// countSemiJoins counts the semi and anti joins reachable from v (plans,
// and the plans of sublinks inside expressions), by reflection.
func countSemiJoins(v reflect.Value, seen map[uintptr]bool) (semi, anti int) {
	switch v.Kind() {
	case reflect.Interface:
		if !v.IsNil() {
			return countSemiJoins(v.Elem(), seen)
		}
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return 0, 0
		}
		seen[v.Pointer()] = true
		if v.Type() == reflect.TypeFor[*joinNode]() {
			// unexported fields cannot be converted back with Interface
			switch joinKind(v.Elem().FieldByName("kind").Uint()) {
			case joinSemi:
				semi++
			case joinAnti:
				anti++
			}
		}
		s, a := countSemiJoins(v.Elem(), seen)
		return semi + s, anti + a
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			s, a := countSemiJoins(v.Field(i), seen)
			semi, anti = semi+s, anti+a
		}
	case reflect.Slice, reflect.Array:
		switch v.Type().Elem().Kind() {
		case reflect.Pointer, reflect.Interface, reflect.Struct, reflect.Slice:
			for i := 0; i < v.Len(); i++ {
				s, a := countSemiJoins(v.Index(i), seen)
				semi, anti = semi+s, anti+a
			}
		}
	}
	return semi, anti
}

// TestDecorrelatePlans: which sublinks become semi/anti joins and which
// keep the per-row path.
func TestDecorrelatePlans(t *testing.T) {
	cat := NewMemCatalog()
	for _, name := range []string{"c", "p"} {
		mt, err := NewMemTable([]ColumnDef{{Name: "id", Type: TInt4}, {Name: "src", Type: TInt4}, {Name: "k", Type: TText}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		cat.Add(&TableDef{Name: name, Columns: mt.Cols, Source: mt})
	}
	eng := &Engine{Catalog: cat}
	for _, c := range []struct {
		sql        string
		semi, anti int
	}{
		{"SELECT * FROM c WHERE EXISTS (SELECT 1 FROM p WHERE p.id = c.src)", 1, 0},
		{"SELECT * FROM c WHERE NOT EXISTS (SELECT 1 FROM p WHERE p.id = c.src)", 0, 1},
		{"SELECT * FROM c WHERE c.id > 1 AND EXISTS (SELECT * FROM p WHERE p.id = c.src AND p.k = c.k AND p.src > 2) AND NOT EXISTS (SELECT 1 FROM p WHERE c.id = p.src)", 1, 1},
		{"SELECT * FROM c WHERE c.src IN (SELECT p.id FROM p WHERE p.k = c.k)", 1, 0},
		{"SELECT (SELECT count(*) FROM c c2 WHERE NOT EXISTS (SELECT 1 FROM p WHERE p.id = c2.src)) FROM c", 0, 1},
		{"SELECT * FROM c WHERE EXISTS (SELECT 1 FROM p WHERE p.id = c.src) OR c.id = 1", 0, 0},
		{"SELECT * FROM c WHERE EXISTS (SELECT 1 AS a FROM p WHERE p.id = c.src LIMIT 1)", 1, 0},
		{"SELECT * FROM c WHERE NOT EXISTS (SELECT 1 FROM p WHERE p.id = c.src ORDER BY p.k FETCH FIRST 3 ROWS ONLY)", 0, 1},
		{"SELECT * FROM c WHERE EXISTS (SELECT 1 FROM p WHERE p.id = c.src LIMIT 0)", 0, 0},
		{"SELECT * FROM c WHERE c.src IN (SELECT p.id FROM p WHERE p.k = c.k LIMIT 1)", 0, 0},
		{"SELECT * FROM c WHERE EXISTS (SELECT 1 FROM p WHERE p.id = c.src LIMIT $1)", 0, 0},
		{"SELECT * FROM c WHERE EXISTS (SELECT 1 FROM p WHERE p.id = c.src LIMIT 1 OFFSET 1)", 0, 0},
		{"SELECT * FROM c WHERE EXISTS (SELECT 1 FROM p WHERE p.id = c.src OFFSET 0)", 0, 0},
		{"SELECT * FROM c WHERE EXISTS (SELECT count(*) FROM p WHERE p.id = c.src)", 0, 0},
		{"SELECT * FROM c WHERE EXISTS (SELECT p.id FROM p WHERE p.id = c.src GROUP BY p.id)", 0, 0},
		{"SELECT * FROM c WHERE EXISTS (SELECT 1 FROM p WHERE p.id = c.src UNION SELECT 1)", 0, 0},
		{"SELECT * FROM c WHERE EXISTS (SELECT 1 FROM p WHERE p.id = c.src AND random() < 0.5)", 0, 0},
		{"SELECT * FROM c WHERE EXISTS (SELECT 1 FROM p WHERE p.id < c.src)", 0, 0},
		{"SELECT * FROM c WHERE EXISTS (SELECT 1 FROM p WHERE p.id = c.src AND p.k = (SELECT max(k) FROM p))", 0, 0},
		{"SELECT * FROM c WHERE EXISTS (SELECT 1 FROM p WHERE p.id = 3)", 0, 0},
		{"SELECT * FROM c WHERE c.src NOT IN (SELECT p.id FROM p WHERE p.k = c.k)", 0, 0},
		{"SELECT * FROM c WHERE NOT (c.src IN (SELECT p.id FROM p WHERE p.k = c.k))", 0, 0},
		{"SELECT * FROM c WHERE EXISTS (SELECT 1 FROM (SELECT * FROM p WHERE p.k = c.k) s WHERE s.id = c.src)", 0, 0},
		{"SELECT * FROM c WHERE EXISTS (SELECT generate_series(1, 2) FROM p WHERE p.id = c.src)", 0, 0},
		{"SELECT * FROM c WHERE EXISTS (SELECT 1 FROM p JOIN c c2 ON c2.src = p.id AND c2.k = c.k WHERE p.id = c.src)", 0, 0},
		{"SELECT * FROM c WHERE EXISTS (SELECT 1 FROM p, generate_series(1, c.id) g WHERE p.id = c.src)", 0, 0},
		{"SELECT * FROM c WHERE EXISTS (SELECT 1 FROM p JOIN c c2 ON c2.src = p.id WHERE p.id = c.src)", 1, 0},
		{"SELECT (SELECT 1 FROM c c2 WHERE EXISTS (SELECT 1 FROM p WHERE p.id = c.src AND p.src = c2.id)) FROM c", 0, 0},
	} {
		p, err := eng.Prepare(c.sql, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		semi, anti := countSemiJoins(reflect.ValueOf(p.plan), map[uintptr]bool{})
		if semi != c.semi || anti != c.anti {
			t.Errorf("%s: %d semi and %d anti joins, want %d and %d", c.sql, semi, anti, c.semi, c.anti)
		}
	}
}
