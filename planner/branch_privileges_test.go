package planner

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pggraph/pggraph/wire"
)

// TestBranchPrivileges: CONNECT, WRITE and MERGE on a branch (GRANT …
// ON DATABASE) are enforced for every way of reaching and changing it;
// main becomes a protected branch that only named roles write and merge
// into, while everyone works on their own branches.
func TestBranchPrivileges(t *testing.T) {
	ctx := context.Background()
	ts := startServerWith(t, wire.Config{})
	admin, err := ts.connectAs(t, "admin", "", "main", "")
	if err != nil {
		t.Fatal(err)
	}
	runRoleSteps(t, admin, []roleStep{
		{"CREATE TABLE item (id int PRIMARY KEY)", ""},
		// table privileges are enforced too (table_privileges.go); a
		// grant made before roles exist is recorded
		{"GRANT SELECT, INSERT, UPDATE ON item TO PUBLIC", ""},
		{"CREATE ROLE alice LOGIN CREATEDB", ""},
		{"CREATE ROLE bob LOGIN CREATEDB", ""},
		{"CREATE ROLE releasers", ""},
		{"GRANT releasers TO alice", ""},
		{"CALL graph.create_branch('dev')", ""},
		{"REVOKE WRITE, MERGE ON DATABASE main FROM PUBLIC", ""},
		{"GRANT WRITE, MERGE ON BRANCH main TO releasers", ""}, // pggraph's spelling of ON DATABASE
		{"GRANT FLY ON DATABASE main TO bob", "0LP01 invalid privilege type FLY for database"},
		{"GRANT CONNECT ON DATABASE nope TO bob", "3D000 database \"nope\" does not exist"},
		{"GRANT CREATE ON DATABASE main TO bob", ""},
		{"REVOKE CREATE ON DATABASE main FROM bob", ""}, // CREATE SCHEMA checks it (database_privileges.go)
	})
	if got := queryStrings(t, admin, "SELECT datacl FROM pg_database"); got != "{=Tc/admin,admin=CTc/admin}" {
		t.Fatalf("datacl %q", got)
	}
	if got := queryStrings(t, admin, `SELECT has_database_privilege('bob', 'main', 'WRITE'), has_database_privilege('alice', 'main', 'WRITE'),
		has_database_privilege('bob', 'main', 'CONNECT'), has_database_privilege('bob', 'dev', 'MERGE'), has_database_privilege('main', 'MERGE')`); got != "f|t|t|t|t" {
		t.Fatalf("has_database_privilege %q", got)
	}
	bob, err := ts.connectAs(t, "bob", "", "main", "")
	if err != nil {
		t.Fatal(err)
	}
	denied := func(string) string {
		return "42501 permission denied for database \"main\""
	}
	runRoleSteps(t, bob, []roleStep{
		{"SELECT count(*) FROM item", ""},
		{"INSERT INTO item VALUES (1)", denied("WRITE")},
		{"BEGIN", ""},
		{"UPDATE item SET id = 2", denied("WRITE")},
		{"ROLLBACK", ""},
		{"CREATE TABLE other (id int)", denied("WRITE")},
		{"CALL graph.optimize()", denied("WRITE")},
		{"VACUUM FULL item", denied("WRITE")},
		{"SET graph.branch = 'dev'", ""},
		{"INSERT INTO item VALUES (7)", ""},
		{"CALL graph.merge('dev', 'main')", denied("MERGE")},
		{"RESET graph.branch", ""},
	})
	if _, err := bob.Exec(ctx, "INSERT INTO item VALUES (1)"); err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Fatalf("bob's insert: %v", err)
	} else if pe := asPgError(err); pe == nil || pe.Detail != "User does not have WRITE privilege." {
		t.Fatalf("detail: %+v", pe)
	}
	if _, err := bob.CopyFrom(ctx, []string{"item"}, []string{"id"}, copyRows([][]any{{int32(9)}})); sqlState(err) != "42501" {
		t.Fatalf("COPY FROM by bob: %v", err)
	}
	alice, err := ts.connectAs(t, "alice", "", "main", "")
	if err != nil {
		t.Fatal(err)
	}
	runRoleSteps(t, alice, []roleStep{
		{"CALL graph.merge('dev', 'main')", ""},
		{"INSERT INTO item VALUES (8)", ""},
	})
	if got := queryStrings(t, admin, "SELECT id FROM item ORDER BY id"); got != "7\n8" {
		t.Fatalf("main holds %q", got)
	}
	// CONNECT: at login and for every other way of reaching the branch
	runRoleSteps(t, admin, []roleStep{
		{"REVOKE CONNECT ON BRANCH dev FROM PUBLIC", ""},
		{"DROP ROLE releasers", "2BP01 role \"releasers\" cannot be dropped because some objects depend on it"},
	})
	if _, err := ts.connectAs(t, "bob", "", "dev", ""); sqlState(err) != "42501" {
		t.Fatalf("bob connecting to dev: %v", err)
	}
	runRoleSteps(t, bob, []roleStep{
		{"SET graph.branch = 'dev'", "42501 permission denied for database \"dev\""},
		{"CALL graph.create_branch('copy', 'dev')", "42501 permission denied for database \"dev\""},
		{"CALL graph.merge('dev', 'main')", "42501 permission denied for database \"dev\""},
		{"CALL graph.create_branch('bobs')", ""},
	})
	// a deleted branch's privileges go with it
	runRoleSteps(t, admin, []roleStep{
		{"CALL graph.delete_branch('dev')", ""},
		{"CALL graph.create_branch('dev')", ""},
	})
	if _, err := ts.connectAs(t, "bob", "", "dev", ""); err != nil {
		t.Fatalf("bob on the new dev: %v", err)
	}
}

func asPgError(err error) *pgconn.PgError {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe
	}
	return nil
}

func copyRows(rows [][]any) pgx.CopyFromSource { return pgx.CopyFromRows(rows) }

// TestBranchInheritsSchemaPrivileges: a branch created from another takes
// its schema privileges (public's and created schemas'), as CREATE
// DATABASE copies its template's nspacl; later grants on either branch
// stay on it, and a branch deleted and created again starts over.
func TestBranchInheritsSchemaPrivileges(t *testing.T) {
	ts := startServerWith(t, wire.Config{})
	admin, err := ts.connectAs(t, "admin", "", "main", "")
	if err != nil {
		t.Fatal(err)
	}
	runRoleSteps(t, admin, []roleStep{
		{"CREATE ROLE bob LOGIN", ""},
		{"CREATE SCHEMA app", ""},
		{"CREATE TABLE app.t (id int PRIMARY KEY)", ""},
		{"GRANT SELECT ON app.t TO bob", ""},
		{"GRANT USAGE ON SCHEMA app TO bob", ""},
		{"REVOKE USAGE ON SCHEMA public FROM PUBLIC", ""},
		{"CALL graph.create_branch('feat')", ""},
		{"CALL graph.create_branch('feat2', 'feat')", ""},
	})
	const probe = "SELECT has_schema_privilege('bob', 'app', 'USAGE'), has_schema_privilege('bob', 'public', 'USAGE')"
	for _, b := range []string{"main", "feat", "feat2"} {
		c, err := ts.connectAs(t, "admin", "", b, "")
		if err != nil {
			t.Fatal(err)
		}
		if got := queryStrings(t, c, probe); got != "t|f" {
			t.Fatalf("branch %s: schema privileges %q, want t|f (inherited from main)", b, got)
		}
	}
	bob, err := ts.connectAs(t, "bob", "", "feat", "")
	if err != nil {
		t.Fatal(err)
	}
	if got := queryStrings(t, bob, "SELECT count(*) FROM app.t"); got != "0" {
		t.Fatalf("bob reading app.t on feat: %q", got)
	}
	// a grant on feat stays on feat
	feat, err := ts.connectAs(t, "admin", "", "feat", "")
	if err != nil {
		t.Fatal(err)
	}
	runRoleSteps(t, feat, []roleStep{{"GRANT USAGE ON SCHEMA public TO bob", ""}})
	if got := queryStrings(t, admin, probe); got != "t|f" {
		t.Fatalf("main after a grant on feat: %q", got)
	}
	runRoleSteps(t, admin, []roleStep{
		{"CALL graph.delete_branch('feat2')", ""},
		{"GRANT USAGE ON SCHEMA public TO PUBLIC", ""},
		{"CALL graph.create_branch('feat2')", ""},
	})
	c, err := ts.connectAs(t, "admin", "", "feat2", "")
	if err != nil {
		t.Fatal(err)
	}
	if got := queryStrings(t, c, probe); got != "t|t" {
		t.Fatalf("feat2 created again from main: %q", got)
	}
}
