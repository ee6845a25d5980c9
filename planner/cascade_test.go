package planner

import "testing"

// TestCascadeDifferential runs testdata/cascade/*.sql (foreign key
// actions, constraint checks of multi-row statements) statement by
// statement against PostgreSQL 15 and pgproxy, as TestDifferential does:
// same command tags, rows, and error SQLSTATE, message and detail.
func TestCascadeDifferential(t *testing.T) {
	compareScripts(t, "testdata/cascade/*.sql", "cascade", true, 10)
}
