package exec

import (
	"testing"
)

// rowAddrCatalog: t(id pk, v, grp) with an overlay (row 1 deleted, one
// pending insert id 100), u(id, t_id), w with a real _rowaddr column.
func rowAddrCatalog(t *testing.T) *MemCatalog {
	t.Helper()
	tcols := []ColumnDef{{Name: "id", Type: TInt8, NotNull: true}, {Name: "v", Type: TText}, {Name: "grp", Type: TInt4}}
	base, err := NewMemTable(tcols, [][]any{{0, "a", 1}, {1, "b", 1}, {2, "c", 2}, {3, "d", 2}})
	if err != nil {
		t.Fatal(err)
	}
	base.Keys = []int{0}
	pend, err := NewMemTable(tcols, [][]any{{100, "p", 2}})
	if err != nil {
		t.Fatal(err)
	}
	ucols := []ColumnDef{{Name: "id", Type: TInt8}, {Name: "t_id", Type: TInt8}}
	u, err := NewMemTable(ucols, [][]any{{10, 0}, {11, 2}, {12, 100}, {13, 1}})
	if err != nil {
		t.Fatal(err)
	}
	wcols := []ColumnDef{{Name: "_rowaddr", Type: TText}}
	w, err := NewMemTable(wcols, [][]any{{"mine"}})
	if err != nil {
		t.Fatal(err)
	}
	cat := NewMemCatalog()
	cat.Add(&TableDef{Name: "t", Columns: tcols, PrimaryKey: []int{0},
		Source: WithOverlay(base, tcols, &Overlay{Deleted: func(a uint64) bool { return a == 1 }, Inserts: pend.Records})})
	cat.Add(&TableDef{Name: "tk", Columns: tcols, PrimaryKey: []int{0}, Source: base})
	rev, err := NewMemTable(tcols, [][]any{{3, "d", 2}, {2, "c", 2}, {1, "b", 1}, {0, "a", 1}})
	if err != nil {
		t.Fatal(err)
	}
	cat.Add(&TableDef{Name: "tr", Columns: tcols, Source: rev})
	cat.Add(&TableDef{Name: "u", Columns: ucols, Source: u})
	cat.Add(&TableDef{Name: "w", Columns: wcols, Source: w})
	return cat
}

func TestRowAddrColumn(t *testing.T) {
	eng := &Engine{Catalog: rowAddrCatalog(t)}
	pend := "-9223372036854775808" // first pending insert: top bit set
	cases := []sqlCase{
		{sql: "SELECT t._rowaddr, id FROM t ORDER BY id", want: "0,0,2,2,3,3," + pend + ",100"},
		{sql: "SELECT _rowaddr FROM t WHERE v = 'c'", want: "2"},
		{sql: "SELECT _rowaddr FROM tk WHERE id = 3", want: "3"},         // key lookup path
		{sql: "SELECT _rowaddr FROM tk WHERE id IN (0, 2)", want: "0,2"}, // key lookup path
		{sql: "SELECT pg_typeof(_rowaddr)::text FROM tk LIMIT 1", want: "bigint"},
		{sql: "SELECT * FROM tk WHERE id = 0", want: "0,a,1"},
		{sql: "SELECT t.* FROM tk AS t WHERE id = 0", want: "0,a,1"},
		{sql: "SELECT x._rowaddr, x.a FROM tk AS x(a, b) WHERE a = 2", want: "2,2"},
		// what UPDATE … FROM / DELETE … USING are rewritten into
		{sql: "SELECT t._rowaddr, u.id FROM t JOIN u ON u.t_id = t.id WHERE u.id > 10 ORDER BY 2", want: "2,11," + pend + ",12"},
		{sql: "SELECT t._rowaddr, u._rowaddr FROM t, u WHERE u.t_id = t.id AND t.grp = 1", want: "0,0"},
		{sql: "SELECT t._rowaddr FROM t LEFT JOIN u ON u.t_id = t.id WHERE u.id IS NULL", want: "3"},
		{sql: "SELECT t._rowaddr FROM t JOIN u USING (id)", want: ""},
		{sql: "SELECT count(*) FROM tr NATURAL JOIN tk", want: "4"}, // not joined on _rowaddr
		{sql: "SELECT tr._rowaddr, tk._rowaddr FROM tr JOIN tk USING (id, v) WHERE id = 0", want: "3,0"},
		{sql: "SELECT t._rowaddr FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.t_id = t.id AND u.id = 12)", want: pend},
		{sql: "WITH s AS (SELECT t_id FROM u WHERE id IN (10, 11)) SELECT t._rowaddr FROM t JOIN s ON s.t_id = t.id ORDER BY 1", want: "0,2"},
		{sql: "SELECT t._rowaddr FROM t WHERE id IN (SELECT t_id FROM u WHERE id = 11)", want: "2"},
		{sql: "SELECT s.a FROM (SELECT _rowaddr AS a, id FROM t WHERE id = 3) s", want: "3"},
		{sql: "SELECT t._rowaddr, s.n FROM t, (SELECT 2 AS k, 'x' AS n) s WHERE t.id = s.k", want: "2,x"},
		{sql: "SELECT _rowaddr FROM w", want: "mine"}, // a real column wins
		{sql: "SELECT count(*) FROM pg_attribute WHERE attname = '_rowaddr' AND attrelid = 't'::regclass", want: "0"},
		{sql: "SELECT count(*) FROM information_schema.columns WHERE table_name = 't'", want: "3"},
		{sql: "SELECT _rowaddr FROM t JOIN u ON u.t_id = t.id", code: CodeAmbiguousColumn},
		{sql: "SELECT s._rowaddr FROM (SELECT * FROM t) s", code: CodeUndefinedColumn},
	}
	runSQLCases(t, eng, nil, cases)
}

func TestRowAddrDescribe(t *testing.T) {
	eng := &Engine{Catalog: rowAddrCatalog(t)}
	p, err := eng.Prepare("SELECT *, _rowaddr FROM tk", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Columns) != 4 || p.Columns[3].Name != "_rowaddr" || p.Columns[3].TypeOID != OIDInt8 {
		t.Fatalf("columns: %+v", p.Columns)
	}
}
