package lancesrc

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
)

// counting records which access path the engine used.
type counting struct {
	*Source
	scans, lookups int
}

func (c *counting) Scan(ctx context.Context, req exec.ScanRequest, emit func(arrow.RecordBatch, []uint64) error) error {
	c.scans++
	return c.Source.Scan(ctx, req, emit)
}

func (c *counting) LookupKeys(ctx context.Context, col int, keys *exec.Vec, req exec.ScanRequest, emit func(arrow.RecordBatch, []uint64) error) error {
	c.lookups++
	return c.Source.LookupKeys(ctx, col, keys, req, emit)
}

func newPersonDataset(t testing.TB, n int) *lance.Dataset {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := 0; i < n; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		if i%10 == 0 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("p%d", i))
		}
		b.Field(2).(*array.Float64Builder).Append(float64(i) / 2)
	}
	rec := b.NewRecordBatch()
	rdr, err := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := lance.Create(context.Background(), objstore.NewMem(), "person.lance", rdr, lance.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func TestEngineOverLance(t *testing.T) {
	ds := newPersonDataset(t, 1000)
	cols := []exec.ColumnDef{{Name: "id", Type: exec.TInt8, NotNull: true}, {Name: "name", Type: exec.TText}, {Name: "score", Type: exec.TFloat8}}
	src := &counting{Source: New(ds, cols, []int{0})}
	cat := exec.NewMemCatalog()
	cat.Add(&exec.TableDef{Name: "person", Columns: cols, PrimaryKey: []int{0}, Source: src})
	eng := &exec.Engine{Catalog: cat}
	ctx := context.Background()
	cases := []struct {
		sql           string
		want          string
		scans, lookup int
	}{
		{"SELECT count(*), count(name), sum(score) FROM person", "1000,900,249750", 1, 0},
		{"SELECT name FROM person WHERE id = 42", "p42", 0, 1},
		{"SELECT id, name FROM person WHERE id IN (3, 999, 5000) ORDER BY id", "3,p3;999,p999", 0, 1},
		{"SELECT name FROM person WHERE id = $1", "p7", 0, 1},
		{"SELECT count(*) FROM person WHERE score > 400 AND name IS NOT NULL", "180", 1, 0},
	}
	for _, c := range cases {
		src.scans, src.lookups = 0, 0
		var params []any
		if strings.Contains(c.sql, "$1") {
			params = []any{int64(7)}
		}
		res, err := eng.Query(ctx, nil, c.sql, params...)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		var rows []string
		for _, r := range res.Rows() {
			var vals []string
			for _, v := range r {
				vals = append(vals, *v)
			}
			rows = append(rows, strings.Join(vals, ","))
		}
		if got := strings.Join(rows, ";"); got != c.want {
			t.Errorf("%s: got %q want %q", c.sql, got, c.want)
		}
		if src.scans != c.scans || src.lookups != c.lookup {
			t.Errorf("%s: %d scans, %d lookups; want %d, %d", c.sql, src.scans, src.lookups, c.scans, c.lookup)
		}
	}
}

func TestOverlayOverLanceAddresses(t *testing.T) {
	ds := newPersonDataset(t, 100)
	cols := []exec.ColumnDef{{Name: "id", Type: exec.TInt8, NotNull: true}, {Name: "name", Type: exec.TText}, {Name: "score", Type: exec.TFloat8}}
	src := New(ds, cols, []int{0})
	eng := &exec.Engine{}
	td := &exec.TableDef{Name: "person", Columns: cols, PrimaryKey: []int{0}, Source: src}
	ctx := context.Background()
	// find the Lance addresses of ids 1..3 through the DML evaluator
	where, err := sqlparse.Parse("SELECT id BETWEEN 1 AND 3")
	if err != nil {
		t.Fatal(err)
	}
	addrs, err := eng.MatchAddresses(ctx, nil, td, where.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val, nil)
	if err != nil || len(addrs) != 3 {
		t.Fatalf("addresses: %v %v", addrs, err)
	}
	for _, a := range addrs {
		if frag, off := lance.SplitRowAddress(a); off > 3 || frag > 1<<20 {
			t.Fatalf("address %x is not a Lance row address", a)
		}
	}
	deleted := map[uint64]bool{addrs[0]: true, addrs[2]: true}
	ins, err := exec.NewMemTable(cols, [][]any{{int64(1000), "new", 1.0}})
	if err != nil {
		t.Fatal(err)
	}
	cat := exec.NewMemCatalog()
	cat.Add(&exec.TableDef{Name: "person", Columns: cols, PrimaryKey: []int{0}, Source: exec.WithOverlay(src, cols, &exec.Overlay{
		Deleted: func(a uint64) bool { return deleted[a] }, Inserts: ins.Records})})
	eng = &exec.Engine{Catalog: cat}
	res, err := eng.Query(ctx, nil, "SELECT count(*), string_agg(id::text, ',' ORDER BY id) FILTER (WHERE id < 5 OR id > 99) FROM person")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range res.Rows()[0] {
		got = append(got, *v)
	}
	if strings.Join(got, "|") != "99|0,2,4,1000" {
		t.Fatalf("got %v", got)
	}
}

// TestFilterPushdown: selective predicates read the filter column first
// and then only the matching rows; results never change.
func TestFilterPushdown(t *testing.T) {
	ds := newPersonDataset(t, 5000)
	cols := []exec.ColumnDef{{Name: "id", Type: exec.TInt8, NotNull: true}, {Name: "name", Type: exec.TText}, {Name: "score", Type: exec.TFloat8}}
	src := New(ds, cols, nil)
	cat := exec.NewMemCatalog()
	cat.Add(&exec.TableDef{Name: "person", Columns: cols, Source: src})
	rows := make([][]any, 5000)
	for i := range rows {
		var name any = fmt.Sprintf("p%d", i)
		if i%10 == 0 {
			name = nil
		}
		rows[i] = []any{int64(i), name, float64(i) / 2}
	}
	mt, err := exec.NewMemTable(cols, rows)
	if err != nil {
		t.Fatal(err)
	}
	ref := exec.NewMemCatalog()
	ref.Add(&exec.TableDef{Name: "person", Columns: cols, Source: mt})
	eng, refEng := &exec.Engine{Catalog: cat}, &exec.Engine{Catalog: ref}
	ctx := context.Background()
	cases := []struct {
		sql  string
		late bool
	}{
		{"SELECT id, name FROM person WHERE score >= 2400 ORDER BY id", true},
		{"SELECT id, score FROM person WHERE name = 'p4321'", true},
		{"SELECT count(*), sum(score) FROM person WHERE id < 10 AND name IS NOT NULL", true},
		{"SELECT id FROM person WHERE name IS NULL AND score > 2000 ORDER BY id", true},
		{"SELECT count(name) FROM person WHERE score > 100", false}, // keeps most rows
		{"SELECT count(*) FROM person WHERE id > 4990", false},      // only the filter column is read
		{"SELECT id FROM person WHERE score = 'NaN'::float8", true},
	}
	for _, c := range cases {
		before := src.lateScans
		got, err := eng.Query(ctx, nil, c.sql)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		want, err := refEng.Query(ctx, nil, c.sql)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := fmt.Sprint(rowsText(got)), fmt.Sprint(rowsText(want)); g != w {
			t.Errorf("%s:\n got %s\nwant %s", c.sql, g, w)
		}
		if late := src.lateScans > before; late != c.late {
			t.Errorf("%s: two-pass scan %v, want %v", c.sql, late, c.late)
		}
	}
}

func rowsText(r *exec.Result) []string {
	var out []string
	for _, row := range r.Rows() {
		var vals []string
		for _, v := range row {
			if v == nil {
				vals = append(vals, "NULL")
			} else {
				vals = append(vals, *v)
			}
		}
		out = append(out, strings.Join(vals, ","))
	}
	return out
}

// noFilters hides the filter hints (the plain scan, for comparison).
type noFilters struct{ *Source }

func (n noFilters) Scan(ctx context.Context, req exec.ScanRequest, emit func(arrow.RecordBatch, []uint64) error) error {
	req.Filters = nil
	return n.Source.Scan(ctx, req, emit)
}

func BenchmarkFilteredScan(b *testing.B) {
	t := &testing.T{}
	ds := newPersonDataset(t, 1_000_000)
	cols := []exec.ColumnDef{{Name: "id", Type: exec.TInt8, NotNull: true}, {Name: "name", Type: exec.TText}, {Name: "score", Type: exec.TFloat8}}
	for _, mode := range []string{"pushdown", "plain"} {
		var src exec.TableSource = New(ds, cols, nil)
		if mode == "plain" {
			src = noFilters{New(ds, cols, nil)}
		}
		cat := exec.NewMemCatalog()
		cat.Add(&exec.TableDef{Name: "person", Columns: cols, Source: src})
		eng := &exec.Engine{Catalog: cat}
		b.Run(mode, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := eng.Query(context.Background(), nil, "SELECT id, name, score FROM person WHERE score BETWEEN 1000 AND 1010"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
