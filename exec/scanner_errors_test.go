package exec

import "testing"

// TestScannerErrorCodes: errors PostgreSQL's scanner raises keep its
// SQLSTATE: an escape string that is not valid UTF-8 (or holds a zero
// byte) is 22021, an invalid Unicode escape stays a syntax error.
func TestScannerErrorCodes(t *testing.T) {
	runSQLCases(t, &Engine{Catalog: NewMemCatalog()}, nil, []sqlCase{
		{sql: `SELECT E'\xff'`, code: "22021"},
		{sql: `SELECT E'\000'`, code: "22021"},
		{sql: `SELECT E'a\x00b'`, code: "22021"},
		{sql: `SELECT E'\377'`, code: "22021"},
		{sql: `SELECT E'\xc3'`, code: "22021"},
		{sql: `SELECT E'\u0000'`, code: "42601"},
		{sql: `SELECT E'\xc3\xa9'`, want: "é"},
	})
}
