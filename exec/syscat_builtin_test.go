package exec

import "testing"

// The built-in access methods, languages and tablespaces, their
// descriptions, and the access method an index records.
func TestBuiltinObjects(t *testing.T) {
	cols := []ColumnDef{{Name: "id", Type: TInt8, NotNull: true}, {Name: "tag", Type: TText}}
	cat := NewMemCatalog()
	cat.Add(&TableDef{Name: "t", Columns: cols, PrimaryKey: []int{0}, Source: mustMemTable(t, cols, nil),
		Indexes: []IndexDef{{Name: "t_tag_hash", Columns: []int{1}, Method: "hash"}, {Name: "t_tag_hnsw", Columns: []int{1}, Method: "hnsw"}}})
	runSQLCases(t, &Engine{Catalog: cat}, nil, []sqlCase{
		{sql: "SELECT string_agg(amname || ':' || amtype || ':' || amhandler, ',' ORDER BY amname) FROM pg_am",
			want: "brin:i:brinhandler,btree:i:bthandler,gin:i:ginhandler,gist:i:gisthandler,hash:i:hashhandler,heap:t:heap_tableam_handler,spgist:i:spghandler"},
		{sql: "SELECT obj_description(403, 'pg_am'), obj_description(403, 'pg_class'), obj_description(403)", want: "b-tree index access method,NULL,b-tree index access method"},
		{sql: "SELECT lanname, lanpltrusted, obj_description(oid, 'pg_language') FROM pg_language WHERE lanispl", want: "plpgsql,t,PL/pgSQL procedural language"},
		{sql: "SELECT count(*) FROM pg_proc p JOIN pg_language l ON l.lanplcallfoid = p.oid", want: "1"},
		{sql: "SELECT obj_description(2200, 'pg_namespace')", want: "standard public schema"},
		{sql: "SELECT obj_description('t'::regclass, 'pg_class'), obj_description('t'::regclass, 'nope')", want: "NULL,NULL"},
		{sql: "SELECT c.relname, a.amname FROM pg_class c LEFT JOIN pg_am a ON a.oid = c.relam WHERE c.relkind = 'i' ORDER BY 1", want: "t_pkey,btree,t_tag_hash,hash,t_tag_hnsw,NULL"},
		{sql: "SELECT indexdef FROM pg_indexes WHERE indexname = 't_tag_hash'", want: "CREATE INDEX t_tag_hash ON public.t USING hash (tag)"},
		{sql: "SELECT string_agg(spcname, ',' ORDER BY oid) FROM pg_tablespace", want: "pg_default,pg_global"},
	})
}
