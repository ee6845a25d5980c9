package exec

import "testing"

// pg_cast lists PostgreSQL's casts between the engine's types with the
// context the engine applies; every one agrees with PostgreSQL's.
func TestCatalogCasts(t *testing.T) {
	pg := map[uint32]pgCastFact{}
	for _, c := range pgCastFacts() {
		pg[c.oid] = c
	}
	listed := catalogCasts()
	if len(listed) == 0 {
		t.Fatal("no casts listed")
	}
	for _, c := range listed {
		if w := pg[c.oid]; c.context != w.context {
			t.Errorf("cast %s -> %s: context %c, PostgreSQL's %c", typeSQLName(c.source), typeSQLName(c.target), c.context, w.context)
		}
	}
	eng := &Engine{Catalog: NewMemCatalog()}
	runSQLCases(t, eng, nil, []sqlCase{
		{sql: "SELECT castcontext, castmethod FROM pg_cast WHERE castsource = 'int4'::regtype AND casttarget = 'int8'::regtype", want: "i,f"},
		{sql: "SELECT castcontext FROM pg_cast WHERE castsource = 'oid'::regtype AND casttarget = 'int8'::regtype", want: "a"},
		// only casts between types pg_type lists, through functions pg_proc lists
		{sql: "SELECT count(*) FROM pg_cast c WHERE NOT EXISTS (SELECT 1 FROM pg_type t WHERE t.oid = c.casttarget) OR c.castfunc <> 0 AND NOT EXISTS (SELECT 1 FROM pg_proc p WHERE p.oid = c.castfunc)", want: "0"},
	})
}

// The engine's casts follow pg_cast where they differed before:
// "char" and integer by character code, OID alias types, text to
// regclass, json and jsonb by assignment only.
func TestCastRules(t *testing.T) {
	cat := NewMemCatalog()
	cat.Add(&TableDef{Name: "t", Columns: []ColumnDef{{Name: "j", Type: TJSON}}, Source: mustMemTable(t, []ColumnDef{{Name: "j", Type: TJSON}}, [][]any{{`{"a":1}`}})})
	eng := &Engine{Catalog: cat}
	runSQLCases(t, eng, nil, []sqlCase{
		{sql: `SELECT 65::"char", 'A'::"char"::int4, 0::"char" = ''`, want: "A,65,t"},
		{sql: `SELECT 300::"char"`, code: CodeNumericOutOfRange},
		{sql: `SELECT pg_table_size('t'::text), 't'::text::regclass::oid = 't'::regclass`, want: "0,t"},
		{sql: `SELECT jsonb_typeof(j) FROM t`, code: CodeUndefinedFunction},
		{sql: `SELECT jsonb_typeof(j::jsonb) FROM t`, want: "object"},
		{sql: `SELECT 'pg_class'::regclass::oid::int8, 1259::oid::regproc::oid`, want: "1259,1259"},
		{sql: `SELECT 'pg_class'::regclass::regtype`, code: CodeCannotCoerce},
	})
}

func mustMemTable(t *testing.T, cols []ColumnDef, rows [][]any) *MemTable {
	t.Helper()
	mt, err := NewMemTable(cols, rows)
	if err != nil {
		t.Fatal(err)
	}
	return mt
}
