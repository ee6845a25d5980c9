package exec

import (
	"strconv"
	"testing"
)

// tableoid is the relation a row comes from, on user tables and the
// generated catalogs, as PostgreSQL's system column.
func TestTableOIDColumn(t *testing.T) {
	cat := rowAddrCatalog(t)
	tcols := []ColumnDef{{Name: "tableoid", Type: TText}}
	own, err := NewMemTable(tcols, [][]any{{"mine"}})
	if err != nil {
		t.Fatal(err)
	}
	cat.Add(&TableDef{Name: "own", Columns: tcols, Source: own})
	eng := &Engine{Catalog: cat}
	toid := strconv.Itoa(int(cat.Table("public", "t").OID))
	uoid := strconv.Itoa(int(cat.Table("public", "u").OID))
	cases := []sqlCase{
		{sql: "SELECT DISTINCT tableoid FROM t", want: toid},
		{sql: "SELECT tableoid::regclass::text, count(*) FROM t GROUP BY 1", want: "t,4"}, // overlay rows too
		{sql: "SELECT pg_typeof(tableoid)::text FROM tk LIMIT 1", want: "oid"},
		{sql: "SELECT x.tableoid = 't'::regclass FROM t AS x(a) WHERE a = 0", want: "t"},
		{sql: "SELECT DISTINCT t.tableoid, u.tableoid FROM t JOIN u ON u.t_id = t.id", want: toid + "," + uoid},
		{sql: "SELECT * FROM tk WHERE id = 0", want: "0,a,1"},
		{sql: "SELECT count(*) FROM tr NATURAL JOIN tk", want: "4"},
		{sql: "SELECT tableoid FROM own", want: "mine"}, // a real column wins
		{sql: "SELECT DISTINCT tableoid FROM pg_class", want: "1259"},
		{sql: "SELECT DISTINCT c.tableoid::regclass::text FROM pg_catalog.pg_namespace c", want: "pg_namespace"},
		{sql: "SELECT count(*) FROM pg_attribute WHERE attname = 'tableoid' AND attrelid = 't'::regclass AND attnum > 0", want: "0"},
		{sql: "SELECT tableoid FROM t JOIN u ON u.t_id = t.id", code: CodeAmbiguousColumn},
		{sql: "SELECT s.tableoid FROM (SELECT * FROM t) s", code: CodeUndefinedColumn},
	}
	runSQLCases(t, eng, nil, cases)
}
