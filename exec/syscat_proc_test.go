package exec

import (
	"strings"
	"testing"
)

// pg_proc lists PostgreSQL's overloads the engine binds, with
// PostgreSQL's OIDs and signatures, and no others.
func TestCatalogProcs(t *testing.T) {
	eng := &Engine{Catalog: NewMemCatalog()}
	runSQLCases(t, eng, nil, []sqlCase{
		// now() is timestamptz, as PostgreSQL has it (OID 1299)
		{sql: "SELECT oid, prorettype::regtype::text, provolatile FROM pg_proc WHERE proname = 'now'", want: "1299,timestamp with time zone,s"},
		{sql: "SELECT pg_get_function_result(1299), pg_get_function_arguments(1299)", want: "timestamp with time zone,"},
		// upper(text) is listed; upper(anyrange) and upper(anymultirange) are not (no ranges)
		{sql: "SELECT string_agg(pg_get_function_identity_arguments(oid), '; ' ORDER BY oid) FROM pg_proc WHERE proname = 'upper'", want: "text"},
		// both of PostgreSQL's overloads, in OID order
		{sql: "SELECT string_agg(proargtypes::text, '; ' ORDER BY oid) FROM pg_proc WHERE proname = 'md5'", want: "25; 17"},
		{sql: "SELECT count(*) > 0 FROM pg_proc WHERE proname = 'sum' AND prokind = 'a'", want: "t"},
		{sql: "SELECT prokind FROM pg_proc WHERE proname = 'row_number'", want: "w"},
		// set-returning functions with OUT arguments
		{sql: "SELECT proretset, proallargtypes::text, proargmodes::text FROM pg_proc WHERE oid = 3208", want: "t,{3802,25,3802},{i,o,o}"},
		// referenced functions: type I/O, operator and cast implementations
		{sql: "SELECT typinput::text, typoutput::text FROM pg_type WHERE oid = 23", want: "int4in,int4out"},
		{sql: "SELECT string_agg(proname, ',' ORDER BY oid) FROM pg_proc WHERE oid IN (42, 177, 481)", want: "int4in,int4pl,int8"},
		{sql: "SELECT castfunc FROM pg_cast WHERE castsource = 23 AND casttarget = 20", want: "481"},
		{sql: "SELECT 'array_in'::regproc::oid", want: "750"},
		// the engine's own functions (pgvector's) are listed from their signatures
		{sql: "SELECT oid >= 900000, pg_get_function_result(oid) FROM pg_proc WHERE proname = 'vector_dims'", want: "t,integer"},
		{sql: "SELECT pg_get_function_result(12345678)", want: "NULL"},
		{sql: "SELECT pg_get_function_sqlbody(1299)", want: "NULL"},
		{sql: "SELECT pg_function_is_visible(1299), pg_function_is_visible(12345678)", want: "t,NULL"},
		// every overload listed has a type pg_type lists
		{sql: "SELECT count(*) FROM pg_proc p WHERE NOT EXISTS (SELECT 1 FROM pg_type t WHERE t.oid = p.prorettype)", want: "0"},
	})
}

// No PostgreSQL overload binds in the engine with another result type:
// such an overload would be left out of pg_proc, so the probe's
// mismatches are engine bugs.
func TestCatalogProcMismatches(t *testing.T) {
	if m := probeMismatches(); len(m) > 0 {
		t.Errorf("PostgreSQL 15 overloads the engine binds with another result type:\n%s", strings.Join(m, "\n"))
	}
}

// The functions PostgreSQL implements operators and casts with bind as
// those operators and casts.
func TestImplementationFunctions(t *testing.T) {
	eng := &Engine{Catalog: NewMemCatalog()}
	runSQLCases(t, eng, nil, []sqlCase{
		{sql: "SELECT int4pl(1, 2), textcat('a', 'b'), int8mul(3, 4)", want: "3,ab,12"},
		{sql: "SELECT int4um(5), float8div(1, 4)", want: "-5,0.25"},
		{sql: "SELECT int4('5'), text(5), bool(1), float8(1), int8(5.5)", want: "5,5,t,1,6"},
		{sql: "SELECT pg_typeof(int4(5::int8))::text", want: "integer"},
		{sql: "SELECT int4pl(1.5, 2)", code: CodeUndefinedFunction},
		{sql: "SELECT int4pl(1)", code: CodeUndefinedFunction},
		{sql: "SELECT bool(gen_random_uuid())", code: CodeUndefinedFunction},
		{sql: "SELECT nosuchfunction(1)", code: CodeUndefinedFunction},
	})
}
