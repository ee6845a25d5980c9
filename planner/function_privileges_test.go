package planner

import (
	"testing"

	"github.com/pggraph/pggraph/wire"
)

// TestFunctionGrants: GRANT and REVOKE on built-in functions are
// recorded (enforcement is compared with PostgreSQL in
// TestBuiltinFunctionACLDifferential), one statement naming both a
// built-in and a user function answers 0A000, and function bodies'
// errors are PostgreSQL's.
func TestFunctionGrants(t *testing.T) {
	ts := startServerWith(t, wire.Config{Auth: wire.AuthSCRAM, Users: &wire.Users{},
		HBA: mustHBA(t, "host all all all trust")})
	admin, err := ts.connectAs(t, "admin", "", "main", "")
	if err != nil {
		t.Fatal(err)
	}
	runRoleSteps(t, admin, []roleStep{
		{"CREATE ROLE fu", ""},
		{"GRANT EXECUTE ON FUNCTION now() TO fu", ""},
		{"GRANT ALL ON FUNCTION pg_catalog.length(text) TO fu WITH GRANT OPTION", ""},
		{"GRANT EXECUTE ON ROUTINE upper(text) TO PUBLIC", ""},
		{"GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA pg_catalog TO fu", ""},
		{"REVOKE EXECUTE ON FUNCTION now() FROM PUBLIC", ""},
		{"REVOKE EXECUTE ON FUNCTION now() FROM nobody", "42704 role \"nobody\" does not exist"},
		// a user function: its own ACL; with a built-in one in one statement, refused
		{"CREATE FUNCTION mine(int) RETURNS int LANGUAGE sql AS 'SELECT $1'", ""},
		{"GRANT EXECUTE ON FUNCTION mine(int) TO fu", ""},
		{"GRANT EXECUTE ON FUNCTION mine(int), now() TO fu", "0A000 GRANT … ON FUNCTION naming both built-in and user functions is not supported"},
		{"REVOKE EXECUTE ON FUNCTION public.mine FROM PUBLIC", ""},
		// errors PostgreSQL reports with a cursor position into the body
		// (compared here without it)
		{"CREATE FUNCTION bad_sql() RETURNS int LANGUAGE sql AS 'SELEC 1'", "42601 syntax error at or near \"SELEC\""},
		{"CREATE FUNCTION void_value() RETURNS void LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$", "42804 RETURN cannot have a parameter in function returning void"},
		{"CREATE FUNCTION bad_next() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN NEXT 1; END $$", "42804 cannot use RETURN NEXT in a non-SETOF function"},
		{"CREATE FUNCTION set_fn() RETURNS SETOF int LANGUAGE sql AS 'SELECT 1'", ""},
		{"SELECT set_fn() + 1", "0A000 set-returning function set_fn() is only supported in FROM and at the top level of a select list"},
		{"CREATE FUNCTION trig() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$", ""},
		{"SELECT trig()", "0A000 trigger functions can only be called as triggers"},
		{"CREATE TABLE tt (id int)", ""},
		{"CREATE TRIGGER tr INSTEAD OF INSERT ON tt FOR EACH ROW EXECUTE FUNCTION trig()", "42809 \"tt\" is a table"},
		{"CREATE TRIGGER tr_args BEFORE INSERT ON tt FOR EACH ROW EXECUTE FUNCTION trig('x')", ""},
		{"CREATE TRIGGER tr BEFORE INSERT ON tt FOR EACH ROW EXECUTE FUNCTION trig()", ""},
		{"DROP FUNCTION trig()", "2BP01 cannot drop function trig() because other objects depend on it"},
		{"MERGE INTO tt USING (SELECT 1 AS id) s ON tt.id = s.id WHEN NOT MATCHED THEN INSERT VALUES (s.id)", "0A000 MERGE into table \"tt\" with INSERT triggers is not supported"},
	})
	if got := queryStrings(t, admin, "SELECT has_function_privilege('fu', 'mine(int)', 'EXECUTE')"); got != "t" {
		t.Fatalf("has_function_privilege on a user function: %q", got)
	}
	if got := queryStrings(t, admin, "SELECT has_function_privilege('fu', 'now()', 'EXECUTE'), has_function_privilege('fu', 'now()', 'EXECUTE WITH GRANT OPTION')"); got != "t|f" {
		t.Fatalf("has_function_privilege after the refused statements: %q", got)
	}
}
