package planner

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/wire"
)

// TestTablePrivilegesDurable: a table's owner and grants are part of its
// definition in the graph: they survive a restart, a second process on
// the same data directory enforces them at its next statement, and a
// branch may grant differently from the branch it was made from, and a
// merge carries its grants.
func TestTablePrivilegesDurable(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "g")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	open := func(create bool) *testServer {
		st, err := objstore.NewLocal(dir)
		if err != nil {
			t.Fatal(err)
		}
		g, err := adapters.Open(ctx, st, adapters.Options{Create: create, Actor: "test", Location: dir})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(g.Close)
		return serveGraph(t, g, wire.Config{})
	}
	a := open(true)
	b := open(false) // a second process
	admin, err := a.connectAs(t, "admin", "", "main", "")
	if err != nil {
		t.Fatal(err)
	}
	runRoleSteps(t, admin, []roleStep{
		{"CREATE ROLE alice LOGIN", ""},
		{"CREATE ROLE bob LOGIN", ""},
		{"CREATE TABLE secret (id int PRIMARY KEY)", ""},
		{"INSERT INTO secret VALUES (1)", ""},
		// PostgreSQL 15: only the database owner may create in public
		// until it grants CREATE (kept in the role catalog: the second
		// process sees it when alice creates s2 there)
		{"GRANT CREATE ON SCHEMA public TO alice", ""},
	})
	alice, err := a.connectAs(t, "alice", "", "main", "")
	if err != nil {
		t.Fatal(err)
	}
	runRoleSteps(t, alice, []roleStep{
		// a column grant needs a grant option alice does not hold
		{"GRANT SELECT (id) ON secret TO bob", "42501 permission denied for column \"id\" of relation \"secret\""},
		{"CREATE SEQUENCE s", ""},
		{"GRANT USAGE ON SEQUENCE s TO bob", ""},
		{"REVOKE ALL ON s FROM bob", ""},
		{"ALTER DEFAULT PRIVILEGES GRANT EXECUTE ON FUNCTIONS TO bob", ""},
		{"ALTER DEFAULT PRIVILEGES GRANT USAGE ON TYPES TO bob", ""},
		// default privileges live in the role catalog: the second
		// process sees them and applies them to what alice creates there
		{"ALTER DEFAULT PRIVILEGES GRANT SELECT ON SEQUENCES TO bob", ""},
		{"CREATE TABLE mine (id int)", ""},
		{"INSERT INTO mine VALUES (1)", ""},
		{"SELECT count(*) FROM secret", "42501 permission denied for table secret"},
	})
	bobB, err := b.connectAs(t, "bob", "", "main", "")
	if err != nil {
		t.Fatal(err)
	}
	runRoleSteps(t, bobB, []roleStep{
		{"SELECT count(*) FROM mine", "42501 permission denied for table mine"},
	})
	if got := queryStrings(t, bobB, "SELECT defaclobjtype::text, defaclacl FROM pg_default_acl ORDER BY 1"); got != "S|{alice=rwU/alice,bob=r/alice}\nT|{=U/alice,alice=U/alice,bob=U/alice}\nf|{=X/alice,alice=X/alice,bob=X/alice}" {
		t.Fatalf("second process: pg_default_acl is %q", got)
	}
	aliceB, err := b.connectAs(t, "alice", "", "main", "")
	if err != nil {
		t.Fatal(err)
	}
	runRoleSteps(t, aliceB, []roleStep{{"CREATE SEQUENCE s2", ""}})
	runRoleSteps(t, bobB, []roleStep{
		{"SELECT last_value FROM s2", ""},
		{"SELECT nextval('s2')", "42501 permission denied for sequence s2"},
	})
	runRoleSteps(t, alice, []roleStep{{"GRANT SELECT ON mine TO bob", ""}})
	// the second process sees the grant at its next statement
	runRoleSteps(t, bobB, []roleStep{
		{"SELECT count(*) FROM mine", ""},
		{"INSERT INTO mine VALUES (2)", "42501 permission denied for table mine"},
	})
	if got := queryStrings(t, bobB, "SELECT pg_get_userbyid(relowner), relacl FROM pg_class WHERE relname = 'mine'"); got != "alice|{alice=arwdDxt/alice,bob=r/alice}" {
		t.Fatalf("second process: mine is %q", got)
	}
	// a branch made now carries the grants; revoking on it leaves main's
	runRoleSteps(t, admin, []roleStep{
		{"CALL graph.create_branch('dev')", ""},
		{"SET graph.branch = 'dev'", ""},
		{"REVOKE SELECT ON mine FROM bob", ""},
		{"RESET graph.branch", ""},
	})
	runRoleSteps(t, bobB, []roleStep{
		{"SELECT count(*) FROM mine", ""},
		{"SET graph.branch = 'dev'", ""},
		{"SELECT count(*) FROM mine", "42501 permission denied for table mine"},
		{"RESET graph.branch", ""},
	})
	// COPY: TO needs SELECT, FROM needs INSERT
	if _, err := bobB.PgConn().CopyTo(ctx, io.Discard, "COPY mine TO STDOUT"); err != nil {
		t.Fatalf("COPY TO with SELECT: %v", err)
	}
	if _, err := bobB.PgConn().CopyTo(ctx, io.Discard, "COPY secret TO STDOUT"); sqlState(err) != "42501" {
		t.Fatalf("COPY secret TO: %v", err)
	}
	if _, err := bobB.PgConn().CopyTo(ctx, io.Discard, "COPY (SELECT * FROM secret) TO STDOUT"); sqlState(err) != "42501" {
		t.Fatalf("COPY (query on secret) TO: %v", err)
	}
	if _, err := bobB.CopyFrom(ctx, []string{"mine"}, []string{"id"}, copyRows([][]any{{int32(5)}})); sqlState(err) != "42501" {
		t.Fatalf("COPY mine FROM without INSERT: %v", err)
	}
	runRoleSteps(t, alice, []roleStep{{"GRANT INSERT ON mine TO bob", ""}})
	if _, err := bobB.CopyFrom(ctx, []string{"mine"}, []string{"id"}, copyRows([][]any{{int32(5)}})); err != nil {
		t.Fatalf("COPY mine FROM with INSERT: %v", err)
	}
	runRoleSteps(t, alice, []roleStep{{"REVOKE INSERT ON mine FROM bob", ""}})
	// a merge carries the revoke (a definition change) to main
	granted := queryStrings(t, admin, "SELECT max(manifest_version) FROM graph.commits")
	runRoleSteps(t, admin, []roleStep{{"CALL graph.merge('dev', 'main')", ""}})
	runRoleSteps(t, bobB, []roleStep{
		{"SELECT count(*) FROM mine", "42501 permission denied for table mine"},
		// history a revoke protects stays closed: reading as of a
		// version that granted needs the head's grant too
		{"SET graph.as_of = '" + granted + "'", ""},
		{"SELECT count(*) FROM mine", "42501 permission denied for table mine"},
	})
	runRoleSteps(t, alice, []roleStep{{"GRANT SELECT ON mine TO bob", ""}})
	runRoleSteps(t, bobB, []roleStep{
		{"SELECT count(*) FROM mine", ""},
		{"RESET graph.as_of", ""},
	})
	c := open(false) // a restart
	bobC, err := c.connectAs(t, "bob", "", "main", "")
	if err != nil {
		t.Fatal(err)
	}
	runRoleSteps(t, bobC, []roleStep{
		{"SELECT count(*) FROM mine", ""},
		{"SELECT count(*) FROM secret", "42501 permission denied for table secret"},
		{"DROP TABLE mine", "42501 must be owner of table mine"},
	})
	if got := queryStrings(t, bobC, "SELECT grantee, privilege_type FROM information_schema.table_privileges WHERE table_name = 'mine' ORDER BY 1, 2"); got != "bob|SELECT" {
		t.Fatalf("after restart bob sees %q", got)
	}
}
