package exec

import "testing"

// The encoding functions use PostgreSQL's encoding numbers; pggraph's
// database encoding is UTF8.
func TestEncodingFunctions(t *testing.T) {
	runSQLCases(t, &Engine{Catalog: NewMemCatalog()}, nil, []sqlCase{
		{sql: "SELECT getdatabaseencoding(), pg_typeof(getdatabaseencoding())::text", want: "UTF8,name"},
		{sql: "SELECT pg_char_to_encoding('UTF8'), pg_char_to_encoding('utf-8'), pg_char_to_encoding('LATIN1'), pg_char_to_encoding('nope')", want: "6,6,8,-1"},
		{sql: "SELECT pg_encoding_to_char(6), pg_encoding_to_char(0), pg_encoding_to_char(999)", want: "UTF8,SQL_ASCII,"},
		{sql: "SELECT pg_encoding_to_char(encoding) FROM pg_database", want: "UTF8"},
		{sql: "SELECT count(*) FROM pg_collation WHERE collencoding IN (-1, pg_char_to_encoding(getdatabaseencoding()))", want: "3"},
	})
}
