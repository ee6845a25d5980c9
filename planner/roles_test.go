package planner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/wire"
)

// rolesRun executes each statement and compares its outcome: "" for
// success, else the SQLSTATE and message.
type roleStep struct {
	sql  string
	want string // "" = success; "CODE message" for an error
}

func runRoleSteps(t *testing.T, c *pgx.Conn, steps []roleStep) {
	t.Helper()
	for _, st := range steps {
		_, err := c.Exec(context.Background(), st.sql)
		got := ""
		if err != nil {
			got = sqlState(err) + " " + pgMessage(err)
		}
		if got != st.want {
			t.Errorf("%s:\n got %q\nwant %q", st.sql, got, st.want)
		}
	}
}

func pgMessage(err error) string {
	s := err.Error()
	s = strings.TrimPrefix(s, "ERROR: ")
	if i := strings.LastIndex(s, " (SQLSTATE"); i >= 0 {
		s = s[:i]
	}
	return s
}

func queryStrings(t *testing.T, c *pgx.Conn, sql string) string {
	t.Helper()
	rows, err := c.Query(context.Background(), sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		var cells []string
		for _, v := range vals {
			cells = append(cells, strings.TrimSpace(strings.ReplaceAll(fmtValue(v), "\n", " ")))
		}
		out = append(out, strings.Join(cells, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return strings.Join(out, "\n")
}

func fmtValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case bool:
		if x {
			return "t"
		}
		return "f"
	case []any:
		var parts []string
		for _, e := range x {
			parts = append(parts, fmtValue(e))
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	return strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(fmtSprint(v), "\t", " "), "  ", " "))
}

// TestRoles: role statements with PostgreSQL 15's rules and messages,
// authentication from the stored roles, LOGIN, CONNECTION LIMIT, VALID
// UNTIL, membership, SET ROLE, pg_has_role and the catalogs.
func TestRoles(t *testing.T) {
	ctx := context.Background()
	ts := startServerWith(t, wire.Config{Auth: wire.AuthSCRAM, Users: &wire.Users{},
		HBA: mustHBA(t, "host all admin all trust\nhost all all all scram-sha-256")})
	admin, err := ts.connectAs(t, "admin", "", "main", "")
	if err != nil {
		t.Fatal(err)
	}
	// before any role statement every user is a superuser (no catalog);
	// pg_database_owner is PostgreSQL's predefined role pg_dump looks up
	if got := queryStrings(t, admin, "SELECT rolname, rolsuper, oid FROM pg_roles ORDER BY oid"); got != "admin|t|10\npg_database_owner|f|6171" {
		t.Fatalf("bootstrap pg_roles: %q", got)
	}
	runRoleSteps(t, admin, []roleStep{
		{"CREATE ROLE readers", ""},
		{"CREATE USER reader PASSWORD 'pw' IN ROLE readers", ""},
		{"CREATE ROLE writer LOGIN PASSWORD 'pw2' CONNECTION LIMIT 1 CREATEDB", ""},
		{"CREATE ROLE manager LOGIN CREATEROLE PASSWORD 'pw3'", ""},
		{"CREATE ROLE old LOGIN PASSWORD 'pw' VALID UNTIL '2001-01-01'", ""},
		{"CREATE ROLE reader", "42710 role \"reader\" already exists"},
		{"CREATE ROLE pg_x", "42939 role name \"pg_x\" is reserved"},
		{"CREATE ROLE x SUPERUSER NOSUPERUSER", "42601 conflicting or redundant options"},
		{"ALTER ROLE nobody LOGIN", "42704 role \"nobody\" does not exist"},
		{"DROP ROLE nobody", "42704 role \"nobody\" does not exist"},
		{"DROP ROLE IF EXISTS nobody", ""},
		{"DROP ROLE admin", "55006 current user cannot be dropped"},
		{"GRANT readers TO writer", ""},
		{"GRANT writer TO readers", "0LP01 role \"writer\" is a member of role \"readers\""},
		{"GRANT readers TO readers", "0LP01 role \"readers\" is a member of role \"readers\""},
		{"GRANT nobody TO writer", "42704 role \"nobody\" does not exist"},
		{"BEGIN", ""},
		{"CREATE ROLE intx", ""}, // rolled back: not in \du below
		{"ROLLBACK", ""},
	})
	if got := queryStrings(t, admin, `SELECT r.rolname, r.rolsuper, r.rolinherit, r.rolcreaterole, r.rolcreatedb, r.rolcanlogin, r.rolconnlimit,
		ARRAY(SELECT b.rolname FROM pg_catalog.pg_auth_members m JOIN pg_catalog.pg_roles b ON (m.roleid = b.oid) WHERE m.member = r.oid) as memberof
		FROM pg_catalog.pg_roles r WHERE r.rolname !~ '^pg_' ORDER BY 1`); got != strings.Join([]string{
		"admin|t|t|t|t|t|-1|{}",
		"manager|f|t|t|f|t|-1|{}",
		"old|f|t|f|f|t|-1|{}",
		"reader|f|t|f|f|t|-1|{readers}",
		"readers|f|t|f|f|f|-1|{}",
		"writer|f|t|f|t|t|1|{readers}",
	}, "\n") {
		t.Fatalf("\\du:\n%s", got)
	}
	if got := queryStrings(t, admin, "SELECT usename FROM pg_user ORDER BY 1"); got != "admin\nmanager\nold\nreader\nwriter" {
		t.Fatalf("pg_user: %q", got)
	}

	// logins against the stored roles
	if _, err := ts.connectAs(t, "reader", "wrong", "main", ""); sqlState(err) != "28P01" {
		t.Fatalf("wrong password: %v", err)
	}
	if _, err := ts.connectAs(t, "old", "pw", "main", ""); sqlState(err) != "28P01" {
		t.Fatalf("expired password: %v", err)
	}
	if _, err := ts.connectAs(t, "readers", "", "main", ""); sqlState(err) != "28P01" {
		t.Fatalf("role without password: %v", err)
	}
	reader, err := ts.connectAs(t, "reader", "pw", "main", "")
	if err != nil {
		t.Fatal(err)
	}
	writer, err := ts.connectAs(t, "writer", "pw2", "main", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.connectAs(t, "writer", "pw2", "main", ""); sqlState(err) != "53300" || !strings.Contains(err.Error(), `too many connections for role "writer"`) {
		t.Fatalf("connection limit: %v", err)
	}
	runRoleSteps(t, reader, []roleStep{
		{"CREATE ROLE x", "42501 permission denied to create role"},
		{"ALTER ROLE writer NOLOGIN", "42501 permission denied"},
		{"ALTER ROLE reader PASSWORD 'pw-new'", ""}, // one's own password
		{"DROP ROLE writer", "42501 permission denied to drop role"},
		{"GRANT readers TO manager", "42501 must have admin option on role \"readers\""},
		{"CALL graph.create_branch('mine')", "42501 permission denied to create database"},
		{"SET ROLE writer", "42501 permission denied to set role \"writer\""},
		{"SET ROLE nobody", "22023 role \"nobody\" does not exist"},
		{"SET ROLE readers", ""},
		{"RESET ROLE", ""},
	})
	if got := queryStrings(t, reader, "SELECT current_user, session_user, pg_has_role('readers', 'MEMBER'), pg_has_role('writer', 'USAGE'), pg_has_role('writer', 'readers', 'USAGE')"); got != "reader|reader|t|f|t" {
		t.Fatalf("membership: %q", got)
	}
	if _, err := reader.Exec(ctx, "SET ROLE readers"); err != nil {
		t.Fatal(err)
	}
	if got := queryStrings(t, reader, "SELECT current_user, session_user"); got != "readers|reader" {
		t.Fatalf("after SET ROLE: %q", got)
	}
	if _, err := reader.Exec(ctx, "SELECT pg_has_role('nobody', 'MEMBER')"); sqlState(err) != "42704" {
		t.Fatalf("pg_has_role of an unknown role: %v", err)
	}
	runRoleSteps(t, writer, []roleStep{
		{"CALL graph.create_branch('mine')", ""}, // CREATEDB
		{"CALL graph.delete_branch('mine')", ""},
	})
	manager, err := ts.connectAs(t, "manager", "pw3", "main", "")
	if err != nil {
		t.Fatal(err)
	}
	runRoleSteps(t, manager, []roleStep{
		{"CREATE ROLE su SUPERUSER", "42501 must be superuser to create superusers"},
		{"ALTER ROLE admin NOLOGIN", "42501 must be superuser to alter superuser roles or change superuser attribute"},
		{"CREATE ROLE temp", ""},
		{"GRANT readers TO temp", ""},
		{"GRANT readers TO temp", ""}, // NOTICE: already a member
		{"REVOKE readers FROM temp", ""},
		{"ALTER ROLE temp RENAME TO temp2", ""},
		{"DROP ROLE temp2", ""},
		{"ALTER ROLE reader NOLOGIN", ""},
	})
	// takes effect for new logins at once
	if _, err := ts.connectAs(t, "reader", "pw-new", "main", ""); sqlState(err) != "28000" || !strings.Contains(err.Error(), "is not permitted to log in") {
		t.Fatalf("NOLOGIN: %v", err)
	}
	runRoleSteps(t, admin, []roleStep{
		{"ALTER ROLE reader LOGIN", ""},
	})
	if _, err := ts.connectAs(t, "reader", "pw-new", "main", ""); err != nil {
		t.Fatalf("new password: %v", err)
	}
}

func mustHBA(t *testing.T, text string) []wire.HBARule {
	t.Helper()
	r, err := wire.ParseHBA(text)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRolesDurable: roles are stored in the root, survive a restart and
// are seen by a second process on the same data directory at its next
// statement.
func TestRolesDurable(t *testing.T) {
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
		return serveGraph(t, g, wire.Config{Auth: wire.AuthSCRAM, Users: &wire.Users{}})
	}
	users := &wire.Users{}
	secret, _ := wire.HashSCRAM("boot")
	if err := users.Add("boot", secret); err != nil {
		t.Fatal(err)
	}
	a := open(true)
	if seeded, err := a.backend.Access.SeedUsers(ctx, users.Entries()); err != nil || !seeded {
		t.Fatalf("seed: %v %v", seeded, err)
	}
	b := open(false) // a second process
	ca, err := a.connectAs(t, "boot", "boot", "main", "")
	if err != nil {
		t.Fatal(err)
	}
	cb, err := b.connectAs(t, "boot", "boot", "main", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ca.Exec(ctx, "CREATE ROLE carol LOGIN PASSWORD 'c'"); err != nil {
		t.Fatal(err)
	}
	if got := queryStrings(t, cb, "SELECT rolname FROM pg_roles WHERE rolname !~ '^pg_' ORDER BY 1"); got != "boot\ncarol" {
		t.Fatalf("second process sees %q", got)
	}
	if _, err := b.connectAs(t, "carol", "c", "main", ""); err != nil {
		t.Fatalf("carol through the second process: %v", err)
	}
	if _, err := cb.Exec(ctx, "ALTER ROLE carol CREATEDB"); err != nil {
		t.Fatal(err)
	}
	// seeding again keeps the catalog
	if seeded, err := a.backend.Access.SeedUsers(ctx, users.Entries()); err != nil || seeded {
		t.Fatalf("second seed: %v %v", seeded, err)
	}
	c := open(false) // a restart
	cc, err := c.connectAs(t, "carol", "c", "main", "")
	if err != nil {
		t.Fatal(err)
	}
	if got := queryStrings(t, cc, "SELECT rolname, rolcreatedb FROM pg_roles WHERE rolname !~ '^pg_' ORDER BY 1"); got != "boot|t\ncarol|t" {
		t.Fatalf("after restart %q", got)
	}
	if _, err := c.connectAs(t, "carol", "wrong", "main", ""); sqlState(err) != "28P01" {
		t.Fatalf("wrong password after restart: %v", err)
	}
}

func fmtSprint(v any) string { return fmt.Sprint(v) }
