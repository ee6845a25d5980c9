package exec

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// viewCatalog is t(a int4, b text, c varchar(10)) with rows and u(a int4, x int4).
func viewCatalog(t *testing.T) *MemCatalog {
	t.Helper()
	cat := NewMemCatalog()
	tt := &TableDef{Name: "t", Columns: []ColumnDef{{Name: "a", Type: TInt4}, {Name: "b", Type: TText}, {Name: "c", Type: Type{OIDVarchar, 14}}}}
	tt.Source = memRows(t, tt.Columns, "1|one|x", "2|two|y", "3|three|z")
	u := &TableDef{Name: "u", Columns: []ColumnDef{{Name: "a", Type: TInt4}, {Name: "x", Type: TInt4}}}
	u.Source = memRows(t, u.Columns, "1|10", "2|20")
	cat.Add(tt)
	cat.Add(u)
	return cat
}

// memRows builds a MemTable from '|'-separated text rows.
func memRows(t *testing.T, cols []ColumnDef, rows ...string) TableSource {
	t.Helper()
	vecs := make([]*Vec, len(cols))
	for i, c := range cols {
		vecs[i] = NewVec(c.Type, len(rows))
	}
	for r, row := range rows {
		for i, f := range strings.Split(row, "|") {
			if err := parseText(vecs[i], r, f, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	return MemTableFromVecs(cols, vecs)
}

// addView analyzes CREATE VIEW text and registers the view in cat.
func addView(t *testing.T, cat *MemCatalog, sql string) (*ViewAnalysis, error) {
	t.Helper()
	tree, err := q.Parse(sql)
	if err != nil {
		t.Fatal(err)
	}
	vs := tree.Stmts[0].Stmt.GetViewStmt()
	var names []string
	for _, a := range vs.Aliases {
		names = append(names, a.GetString_().Sval)
	}
	va, err := AnalyzeView(cat, sql, vs.Query, names)
	if err != nil {
		return nil, err
	}
	td := &TableDef{Name: vs.View.Relname, Kind: "view", View: &ViewDef{Query: va.Query, Depends: va.Depends}, Source: ViewSource{Name: vs.View.Relname}}
	for _, c := range va.Columns {
		td.Columns = append(td.Columns, ColumnDef{Name: c.Name, Type: c.Type})
	}
	cat.Add(td)
	return va, nil
}

func TestAnalyzeViewNormalizes(t *testing.T) {
	cases := []struct {
		create, stored, deps string
	}{
		{"create view v1 as select * from t", "SELECT t.a AS a, t.b AS b, t.c AS c FROM public.t", "t(a,b,c)"},
		{"create view v2 (x) as select a, b || 'x' from t where c = 'y'", "SELECT t.a AS a, t.b || 'x'::text AS \"?column?\" FROM public.t WHERE t.c::text = 'y'::text", "t(a,b,c)"},
		{"create view v3 as select count(*) from t", "SELECT count(*) AS count FROM public.t", "t()"},
		{"create view v4 as select * from t natural join u", "SELECT t.a AS a, t.b AS b, t.c AS c, u.x AS x FROM public.t JOIN public.u USING (a)", "t(a,b,c) u(a,x)"},
		{"create view v5 as with t as (select 1 as a) select a from t", "WITH t AS (SELECT 1 AS a) SELECT t.a AS a FROM t", ""},
		{"create view v6 as select s.a from (select a from t) s", "SELECT s.a AS a FROM (SELECT t.a AS a FROM public.t) s", "t(a)"},
		{"create view v7 as select a from v1", "SELECT v1.a AS a FROM public.v1", "v1(a)"},
	}
	cat := viewCatalog(t)
	for _, c := range cases {
		va, err := addView(t, cat, c.create)
		if err != nil {
			t.Fatalf("%s: %v", c.create, err)
		}
		if va.Query != c.stored {
			t.Errorf("%s:\n stored %s\n want   %s", c.create, va.Query, c.stored)
		}
		var deps []string
		for _, d := range va.Depends {
			deps = append(deps, d.Name+"("+strings.Join(d.Columns, ",")+")")
		}
		if got := strings.Join(deps, " "); got != c.deps {
			t.Errorf("%s: depends %s, want %s", c.create, got, c.deps)
		}
	}
}

func TestViewExpansion(t *testing.T) {
	cat := viewCatalog(t)
	for _, sql := range []string{
		"create view v as select a, b from t where a > 1",
		"create view vv (n, total) as select v.a, sum(u.x) from v join u on u.a = v.a group by v.a",
	} {
		if _, err := addView(t, cat, sql); err != nil {
			t.Fatal(err)
		}
	}
	eng := &Engine{Catalog: cat}
	cases := []struct{ sql, want string }{
		{"select * from v order by a", "2|two;3|three"},
		{"with t as (select 9 as a) select count(*) from v", "2"},
		{"select n, total from vv", "2|20"},
		{"select x.b from v x where x.a = 3", "three"},
		{"select (select count(*) from v where v.a > t.a) from t order by a", "2;1;0"},
	}
	for _, c := range cases {
		res, err := eng.Query(context.Background(), nil, c.sql)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if got := strings.ReplaceAll(strings.TrimSuffix(resultText(res), "\n"), "\n", ";"); got != c.want {
			t.Errorf("%s: got %s, want %s", c.sql, got, c.want)
		}
	}
	if _, err := eng.Query(context.Background(), nil, "select * from v where nope = 1"); Code(err) != CodeUndefinedColumn {
		t.Errorf("unknown column through a view: %v", err)
	}
}

func TestRenameInView(t *testing.T) {
	cat := viewCatalog(t)
	va, err := addView(t, cat, "create view v as select a, b from t where a > 1")
	if err != nil {
		t.Fatal(err)
	}
	got, err := RenameInView(cat, "v", va.Query, va.Columns, ViewRename{Schema: "public", Relation: "t", NewName: "t2"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "SELECT t2.a AS a, t2.b AS b FROM public.t2 WHERE t2.a > 1"; got.Query != want {
		t.Errorf("table rename: %s, want %s", got.Query, want)
	}
	got, err = RenameInView(cat, "v", va.Query, va.Columns, ViewRename{Schema: "public", Relation: "t", Column: "a", NewName: "z"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "SELECT t.z AS a, t.b AS b FROM public.t WHERE t.z > 1"; got.Query != want {
		t.Errorf("column rename: %s, want %s", got.Query, want)
	}
}

// TestViewFilterPushdown: a condition on a view over a filtered scan
// reaches the scan (a key lookup instead of a full scan), after the
// view's own condition; over an aggregating view it stays above.
func TestViewFilterPushdown(t *testing.T) {
	cat, src := peopleTable(t, 1000)
	for _, sql := range []string{
		"create view pv as select id, name, grp from people where grp >= 0",
		"create view pv2 (ident, label) as select id, name from pv",
		"create view agg as select grp, count(*) as n from people group by grp",
		"create view odd as select id, 100 / (id % 2) as q from people where id % 2 = 1",
	} {
		if _, err := addView(t, cat, sql); err != nil {
			t.Fatal(err)
		}
	}
	eng := &Engine{Catalog: cat}
	cases := []struct {
		sql, want      string
		lookups, scans int64
	}{
		{"select name from pv where id = 5", "p5", 1, 0},
		{"select label from pv2 where ident = 7", "p7", 1, 0},
		{"select label from pv2 where ident in (7, 8) order by 1", "p7;p8", 1, 0},
		{"select n from agg where grp = 3", "100", 0, 1},
		// the view's condition runs first: no division by zero
		{"select count(*) from odd where q = 100", "500", 0, 1},
	}
	for _, c := range cases {
		src.lookups.Store(0)
		src.scans.Store(0)
		res, err := eng.Query(context.Background(), nil, c.sql)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if got := strings.ReplaceAll(strings.TrimSuffix(resultText(res), "\n"), "\n", ";"); got != c.want {
			t.Errorf("%s: got %s, want %s", c.sql, got, c.want)
		}
		if l, s := src.lookups.Load(), src.scans.Load(); l != c.lookups || s != c.scans {
			t.Errorf("%s: %d lookups and %d scans, want %d and %d", c.sql, l, s, c.lookups, c.scans)
		}
	}
}

// columnsSource records the columns each scan (cols) and each key lookup
// (asked) asks for.
type columnsSource struct {
	*MemTable
	mu    sync.Mutex
	cols  [][]int
	asked [][]int
}

func (c *columnsSource) Scan(ctx context.Context, req ScanRequest, emit func(arrow.RecordBatch, []uint64) error) error {
	c.mu.Lock()
	c.cols = append(c.cols, slices.Clone(req.Columns))
	c.mu.Unlock()
	return c.MemTable.Scan(ctx, req, emit)
}

// CountKeys records a key-only lookup as one that fetched no column.
func (c *columnsSource) CountKeys(ctx context.Context, col int, keys *Vec) ([]int, error) {
	c.mu.Lock()
	c.asked = append(c.asked, []int{})
	c.mu.Unlock()
	return c.MemTable.CountKeys(ctx, col, keys)
}

func (c *columnsSource) LookupKeys(ctx context.Context, col int, keys *Vec, req ScanRequest, emit func(arrow.RecordBatch, []uint64) error) error {
	c.mu.Lock()
	c.asked = append(c.asked, slices.Clone(req.Columns))
	c.mu.Unlock()
	return c.MemTable.LookupKeys(ctx, col, keys, req, emit)
}

// TestViewColumnPruning: a scan under a view reads only the columns the
// statement reads through the view (and the view's own condition), and
// every query over a view answers what the same query over the view's
// definition written out does.
func TestViewColumnPruning(t *testing.T) {
	cols := []ColumnDef{{Name: "id", Type: TInt8}, {Name: "name", Type: TText}, {Name: "grp", Type: TInt4}, {Name: "note", Type: TText}}
	rows := make([][]any, 50)
	for i := range rows {
		rows[i] = []any{int64(i), "p" + itoa(int64(i)), int64(i % 5), nil}
	}
	mt, err := NewMemTable(cols, rows)
	if err != nil {
		t.Fatal(err)
	}
	src := &columnsSource{MemTable: mt}
	cat := NewMemCatalog()
	cat.Add(&TableDef{Name: "people", Columns: cols, Source: src})
	for _, sql := range []string{
		"create view pv as select id, name, grp, note from people where grp >= 1",
		"create view pv2 as select name, id from pv",
	} {
		if _, err := addView(t, cat, sql); err != nil {
			t.Fatal(err)
		}
	}
	eng := &Engine{Catalog: cat}
	run := func(sql string) string {
		t.Helper()
		res, err := eng.Query(context.Background(), nil, sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return resultText(res)
	}
	const pv = "(select id, name, grp, note from people where grp >= 1)"
	const pv2 = "(select name, id from " + pv + " pv)"
	cases := []struct {
		sql, inline string
		reads       []int // columns of the scan under the view (nil: not checked)
	}{
		{"select count(*) from pv where id > 5", "select count(*) from " + pv + " pv where id > 5", []int{0, 2}},
		{"select name from pv2 where id < 20", "select name from " + pv2 + " pv2 where id < 20", []int{0, 1, 2}},
		{"select count(*) from pv2", "select count(*) from " + pv2 + " pv2", []int{2}},
		{"select * from pv where id = 3", "select * from " + pv + " pv where id = 3", []int{0, 1, 2, 3}},
		{"select x.name from pv x join pv y on y.id = x.id + 1 where x.grp = 2 order by 1", "select x.name from " + pv + " x join " + pv + " y on y.id = x.id + 1 where x.grp = 2 order by 1", nil},
		{"select row_to_json(p) from pv2 p where id = 7", "select row_to_json(p) from " + pv2 + " p where id = 7", []int{0, 1, 2}},
	}
	for _, c := range cases {
		src.mu.Lock()
		src.cols = nil
		src.mu.Unlock()
		got := run(c.sql)
		if c.reads != nil && (len(src.cols) != 1 || !slices.Equal(src.cols[0], c.reads)) {
			t.Errorf("%s: scans read %v, want %v", c.sql, src.cols, c.reads)
		}
		if want := run(c.inline); got != want || got == "" {
			t.Errorf("%s: %q, written out: %q", c.sql, got, want)
		}
	}
}

// TestVarcharAsTextLookup: a view's condition on a varchar key is stored
// as PostgreSQL spells it (code::text = 'eng'::text) and still reads
// the row by key.
func TestVarcharAsTextLookup(t *testing.T) {
	cols := []ColumnDef{{Name: "code", Type: Type{OIDVarchar, 14}, NotNull: true}, {Name: "title", Type: TText}}
	mt, err := NewMemTable(cols, [][]any{{"eng", "Engineering"}, {"ops", "Operations"}, {"hr", "People"}})
	if err != nil {
		t.Fatal(err)
	}
	mt.Keys = []int{0}
	src := &countingSource{MemTable: mt}
	cat := NewMemCatalog()
	cat.Add(&TableDef{Name: "dept", Columns: cols, PrimaryKey: []int{0}, Source: src})
	va, err := addView(t, cat, "create view eng as select title from dept where code = 'eng'")
	if err != nil {
		t.Fatal(err)
	}
	if want := "SELECT dept.title AS title FROM public.dept WHERE dept.code::text = 'eng'::text"; va.Query != want {
		t.Fatalf("stored %s, want %s", va.Query, want)
	}
	for _, sql := range []string{"select * from eng", "select title from dept where code::text = 'eng'"} {
		src.lookups.Store(0)
		src.scans.Store(0)
		res, err := (&Engine{Catalog: cat}).Query(context.Background(), nil, sql)
		if err != nil {
			t.Fatal(err)
		}
		if got := resultText(res); got != "Engineering\n" || src.lookups.Load() != 1 || src.scans.Load() != 0 {
			t.Errorf("%s: %q with %d lookups, %d scans", sql, got, src.lookups.Load(), src.scans.Load())
		}
	}
}
