package planner

import (
	"testing"

	"github.com/pggraph/pggraph/wire"
)

// TestFunctionGrantsRefused: a GRANT or REVOKE on functions whose names,
// grantees and privileges check out answers 0A000 (function ACLs are
// not stored), never a silent GRANT; its errors come first, as
// PostgreSQL's (compared in TestFunctionPrivilegesDifferential).
func TestFunctionGrantsRefused(t *testing.T) {
	ts := startServerWith(t, wire.Config{Auth: wire.AuthSCRAM, Users: &wire.Users{},
		HBA: mustHBA(t, "host all all all trust")})
	admin, err := ts.connectAs(t, "admin", "", "main", "")
	if err != nil {
		t.Fatal(err)
	}
	runRoleSteps(t, admin, []roleStep{
		{"CREATE ROLE fu", ""},
		{"GRANT EXECUTE ON FUNCTION now() TO fu", "0A000 GRANT … ON FUNCTION is not supported: function privileges are not stored"},
		{"GRANT ALL ON FUNCTION pg_catalog.length(text) TO fu WITH GRANT OPTION", "0A000 GRANT … ON FUNCTION is not supported: function privileges are not stored"},
		{"GRANT EXECUTE ON ROUTINE upper(text) TO PUBLIC", "0A000 GRANT … ON FUNCTION is not supported: function privileges are not stored"},
		{"GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO fu", "0A000 GRANT … ON FUNCTION is not supported: function privileges are not stored"},
		{"REVOKE EXECUTE ON FUNCTION now() FROM PUBLIC", "0A000 REVOKE … ON FUNCTION is not supported: function privileges are not stored"},
		{"REVOKE EXECUTE ON FUNCTION now() FROM nobody", "42704 role \"nobody\" does not exist"},
	})
	if got := queryStrings(t, admin, "SELECT has_function_privilege('fu', 'now()', 'EXECUTE'), has_function_privilege('fu', 'now()', 'EXECUTE WITH GRANT OPTION')"); got != "t|f" {
		t.Fatalf("has_function_privilege after the refused statements: %q", got)
	}
}
