package exec

import "testing"

// pg_describe_object names objects as PostgreSQL does; regprocedure
// reads and prints name(argument types).
func TestDescribeObject(t *testing.T) {
	cols := []ColumnDef{{Name: "id", Type: TInt8, NotNull: true}, {Name: "n", Type: TInt4, Default: "0"}}
	cat := NewMemCatalog()
	cat.Add(&TableDef{Name: "t", Columns: cols, PrimaryKey: []int{0}, Source: mustMemTable(t, cols, nil)})
	cat.AddSequence(&SequenceDef{Name: "s"})
	runSQLCases(t, &Engine{Catalog: cat}, nil, []sqlCase{
		{sql: "SELECT pg_describe_object(1259, 't'::regclass, 0), pg_describe_object(1259, 't'::regclass, 2), pg_describe_object(1259, 't_pkey'::regclass, 0), pg_describe_object(1259, 's'::regclass, 0)",
			want: "table t,column n of table t,index t_pkey,sequence s"},
		{sql: "SELECT pg_describe_object(1255, 1299, 0), pg_describe_object(2612, 13563, 0), pg_describe_object(1259, 1259, 2), pg_describe_object(1259, 99999, 0)",
			want: "function now(),language plpgsql,column relname of table pg_class,NULL"},
		{sql: "SELECT pg_describe_object(2615, 2200, 0), pg_describe_object(1247, 23, 0), pg_describe_object(2601, 403, 0), pg_describe_object(3079, 13559, 0)",
			want: "schema public,type integer,access method btree,extension plpgsql"},
		{sql: "SELECT pg_describe_object(1259, 13425, 0), pg_describe_object(2617, 551, 0)", want: "view information_schema.tables,operator +(integer,integer)"},
		{sql: "SELECT pg_describe_object(d.classid, d.objid, d.objsubid) FROM pg_depend d WHERE d.refobjid = 't'::regclass AND d.classid = 2604",
			want: "default value for column n of table t"},
		// what psql's \dx+ lists
		{sql: "SELECT string_agg(pg_describe_object(classid, objid, 0), '; ' ORDER BY 1) FROM pg_depend WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'",
			want: "function plpgsql_call_handler(); function plpgsql_inline_handler(internal); function plpgsql_validator(oid); language plpgsql"},
		{sql: "SELECT 13560::regprocedure::text, 'now()'::regprocedure::oid, 'pg_catalog.upper(text)'::regprocedure::oid, 1299::oid::regprocedure::regproc::text",
			want: "plpgsql_call_handler(),1299,871,now"},
		{sql: "SELECT lanplcallfoid::regprocedure::text FROM pg_language WHERE lanname = 'plpgsql'", want: "plpgsql_call_handler()"},
		{sql: "SELECT 'upper(int4)'::regprocedure", code: CodeUndefinedFunction},
		{sql: "SELECT 'trigger'::regtype::oid, 'pg_catalog.trigger'::regtype::text", want: "2279,trigger"},
		{sql: "SELECT 551::regoperator::text, '+(integer,integer)'::regoperator::oid, '-(NONE,integer)'::regoperator::text", want: "+(integer,integer),551,-(NONE,integer)"},
		{sql: "SELECT '+(uuid,uuid)'::regoperator", code: CodeUndefinedFunction},
	})
}
