package exec

import (
	"context"
	"errors"
	"testing"
)

// sizedTable is an in-memory table that reports a storage size.
type sizedTable struct {
	*MemTable
	size StorageSize
	err  error
}

func (s *sizedTable) StorageSize(context.Context) (StorageSize, error) { return s.size, s.err }

// The size functions report what the table sources and sequences say
// they occupy; indexes and catalogs occupy nothing.
func TestRelationSizes(t *testing.T) {
	cols := []ColumnDef{{Name: "id", Type: TInt8, NotNull: true}}
	cat := NewMemCatalog()
	cat.Add(&TableDef{Name: "big", Columns: cols, PrimaryKey: []int{0}, Source: &sizedTable{MemTable: mustMemTable(t, cols, nil), size: StorageSize{Data: 1000, Other: 234}}})
	cat.Add(&TableDef{Name: "mem", Columns: cols, Source: mustMemTable(t, cols, nil)})
	cat.Add(&TableDef{Name: "broken", Columns: cols, Source: &sizedTable{MemTable: mustMemTable(t, cols, nil), err: errors.New("disk on fire")}})
	cat.AddSequence(&SequenceDef{Name: "s", Start: 1, Increment: 1, Min: 1, Max: 100, Cache: 1,
		Storage: func(context.Context) (int64, error) { return 40, nil }})
	eng := &Engine{Catalog: cat}
	runSQLCases(t, eng, &Session{Database: "db"}, []sqlCase{
		{sql: "SELECT pg_relation_size('big'), pg_table_size('big'), pg_indexes_size('big'), pg_total_relation_size('big')", want: "1000,1234,0,1234"},
		{sql: "SELECT pg_relation_size('big', 'main'), pg_relation_size('big', 'fsm'), pg_relation_size('big', 'vm')", want: "1000,0,0"},
		{sql: "SELECT pg_relation_size('big', 'nope')", code: CodeInvalidParameterValue},
		{sql: "SELECT pg_relation_size('big_pkey'), pg_relation_size('mem'), pg_relation_size('pg_class')", want: "0,0,0"},
		{sql: "SELECT pg_relation_size('s'), pg_table_size('s')", want: "40,40"},
		{sql: "SELECT pg_relation_size(12345678), pg_table_size(NULL)", want: "NULL,NULL"},
		{sql: "SELECT pg_relation_size('nosuch')", code: CodeUndefinedTable},
		{sql: "SELECT pg_relation_size('broken')", code: CodeIOError},
		{sql: "SELECT pg_size_pretty(pg_table_size(c.oid)) FROM pg_class c WHERE relname = 'big'", want: "1234 bytes"},
		{sql: "SELECT pg_database_size('db') = pg_database_size(16384), pg_database_size(5)", code: CodeIOError}, // broken is part of db
	})
	cat = NewMemCatalog()
	cat.Add(&TableDef{Name: "big", Columns: cols, Source: &sizedTable{MemTable: mustMemTable(t, cols, nil), size: StorageSize{Data: 1000, Other: 234}}})
	cat.AddSequence(&SequenceDef{Name: "s", Storage: func(context.Context) (int64, error) { return 40, nil }})
	eng = &Engine{Catalog: cat}
	runSQLCases(t, eng, &Session{Database: "db"}, []sqlCase{
		{sql: "SELECT pg_database_size('db'), pg_database_size(16384), pg_database_size(5)", want: "1274,1274,NULL"},
		{sql: "SELECT pg_database_size('other')", code: CodeUndefinedDatabase},
		{sql: "SELECT pg_tablespace_size('pg_default'), pg_tablespace_size(1664), pg_tablespace_size(99)", want: "1274,0,NULL"},
		{sql: "SELECT pg_tablespace_size('nope')", code: CodeUndefinedObject},
		{sql: "SELECT spcname, pg_tablespace_location(oid) = '' FROM pg_tablespace ORDER BY 1", want: "pg_default,t,pg_global,t"},
		// pg_size_pretty over numeric (sum of sizes), PostgreSQL 15's answers
		{sql: "SELECT pg_size_pretty(1.5::numeric), pg_size_pretty(10239::numeric), pg_size_pretty(10240::numeric), pg_size_pretty(123456789012::numeric)",
			want: "1.5 bytes,10239 bytes,10 kB,115 GB"},
		{sql: "SELECT pg_size_pretty(-20000::numeric), pg_size_pretty(99999999999999999999999999::numeric), pg_size_pretty(10240.7::numeric), pg_size_pretty(20479.5::numeric)",
			want: "-20 kB,88817841970 PB,10 kB,20 kB"},
		{sql: "SELECT pg_size_pretty(sum(pg_table_size(c.oid))) FROM pg_class c WHERE relname = 'big'", want: "1234 bytes"},
		{sql: "SELECT pg_size_pretty(10240)", want: "10 kB"},
	})
}
