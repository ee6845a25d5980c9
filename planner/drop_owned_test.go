package planner

import "testing"

// TestDropOwnedOutsideTransactions: DROP OWNED publishes to the role
// catalog, which cannot roll back with a transaction, so inside a
// transaction block it is refused (PostgreSQL allows it there) and
// nothing changes; outside one it drops and revokes.
func TestDropOwnedOutsideTransactions(t *testing.T) {
	ts := startServer(t, nil)
	admin, err := ts.connectAs(t, "admin", "", "main", "")
	if err != nil {
		t.Fatal(err)
	}
	runRoleSteps(t, admin, []roleStep{
		{"CREATE ROLE alice LOGIN", ""},
		{"ALTER DEFAULT PRIVILEGES FOR ROLE alice GRANT SELECT ON TABLES TO PUBLIC", ""},
		{"BEGIN", ""},
		{"DROP OWNED BY alice", "25001 DROP OWNED cannot run inside a transaction block"},
		{"ROLLBACK", ""},
	})
	if got := queryStrings(t, admin, "SELECT count(*) FROM pg_default_acl"); got != "1" {
		t.Fatalf("after the refused DROP OWNED: %s default ACL rows, want 1", got)
	}
	runRoleSteps(t, admin, []roleStep{{"DROP OWNED BY alice", ""}, {"DROP ROLE alice", ""}})
}
