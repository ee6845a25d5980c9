package planner

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/internal/pgtest"
	"github.com/pggraph/pggraph/internal/sqlparse"
)

// TestRolesDifferential runs testdata/roles/roles.sql against
// PostgreSQL 15 and pgproxy as the users it names ("-- as NAME" switches
// sessions) and requires the same outcome for every statement: role
// statements, permission errors, SET ROLE, pg_has_role and the role
// catalogs. Roles are cluster-wide in PostgreSQL, so the script's roles
// are dropped there before and after.
func TestRolesDifferential(t *testing.T) {
	roleScriptDiff(t, "roles_diff", "testdata/roles/roles.sql", 60)
}

// roleScriptDiff runs script on PostgreSQL 15 (database db) and on
// pgproxy (branch db), switching users at "-- as NAME" lines, and
// requires the same outcome (rows, command tag or SQLSTATE, message,
// detail, hint and position) for every statement.
func roleScriptDiff(t *testing.T, db, script string, minStmts int) {
	pg := pgtest.Shared(t)
	ctx := context.Background()
	dropPGRoles(ctx, t, pg.ConnString("postgres"))
	t.Cleanup(func() { dropPGRoles(context.Background(), t, pg.ConnString("postgres")) })
	freshPGDatabase(ctx, t, pg, db)
	// the script's objects go first, so its roles can be dropped and the
	// next script may create roles of the same names
	t.Cleanup(func() {
		if c, err := pgx.Connect(context.Background(), pg.ConnString("postgres")); err == nil {
			_, _ = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)")
			c.Close(context.Background())
		}
	})
	ts := startServer(t, nil)
	// the branch of the same name as PostgreSQL's database, so GRANT …
	// ON DATABASE and current_database() read the same
	boot, err := pgx.Connect(ctx, fmt.Sprintf("postgres://postgres@%s/main?sslmode=disable", ts.addr))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := boot.Exec(ctx, "CALL graph.create_branch('"+db+"')"); err != nil {
		t.Fatal(err)
	}
	boot.Close(ctx)
	text, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	stmts, err := sqlparse.Split(string(text))
	if err != nil {
		t.Fatal(err)
	}
	type pair struct{ want, got *pgx.Conn }
	sessions := map[string]*pair{}
	session := func(user string) *pair {
		if p := sessions[user]; p != nil {
			return p
		}
		w, err := pgx.Connect(ctx, strings.Replace(pg.ConnString(db), "user=postgres", "user="+user, 1))
		if err != nil {
			t.Fatalf("postgres as %s: %v", user, err)
		}
		g, err := pgx.Connect(ctx, fmt.Sprintf("postgres://%s@%s/%s?sslmode=disable", user, ts.addr, db))
		if err != nil {
			t.Fatalf("pgproxy as %s: %v", user, err)
		}
		p := &pair{w, g}
		sessions[user] = p
		t.Cleanup(func() { w.Close(context.Background()); g.Close(context.Background()) })
		return p
	}
	cur := session("postgres")
	n := 0
	for _, s := range stmts {
		for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
			if user, ok := strings.CutPrefix(strings.TrimSpace(line), "-- as "); ok {
				cur = session(user)
			}
		}
		s = strings.TrimSpace(s)
		if s == "" || strings.HasPrefix(s, "--") && !strings.Contains(s, "\n") {
			continue
		}
		w, g := scriptOutcome(ctx, cur.want.PgConn(), s), scriptOutcome(ctx, cur.got.PgConn(), s)
		n++
		if w != g {
			t.Errorf("%s\n  postgres: %s\n  pgproxy:  %s", s, w, g)
		}
	}
	if n < minStmts {
		t.Fatalf("only %d statements compared", n)
	}
	t.Logf("%d statements compared", n)
}

// dropPGRoles drops every role but postgres and the predefined ones.
func dropPGRoles(ctx context.Context, t *testing.T, conn string) {
	c, err := pgx.Connect(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	rows, err := c.Query(ctx, "SELECT quote_ident(rolname) FROM pg_roles WHERE rolname !~ '^pg_' AND rolname <> 'postgres'")
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		_, _ = c.Exec(ctx, "DROP OWNED BY "+n)
		_, _ = c.Exec(ctx, "DROP ROLE "+n)
	}
}

// TestTablePrivilegesDifferential runs the privilege matrix of
// testdata/roles/table_privileges.sql (owner, granted, ungranted, group
// and PUBLIC roles × tables and views × SELECT, INSERT, UPDATE, DELETE,
// TRUNCATE, DROP, ALTER, GRANT/REVOKE, with the catalogs and \dp)
// against PostgreSQL 15 and pgproxy.
func TestTablePrivilegesDifferential(t *testing.T) {
	roleScriptDiff(t, "tp_diff", "testdata/roles/table_privileges.sql", 100)
}

// TestSequencePrivilegesDifferential runs the sequence privilege matrix
// of testdata/roles/sequence_privileges.sql (owner, granted, ungranted,
// group and PUBLIC roles × nextval, currval, setval, SELECT FROM the
// sequence, a nextval default, around grants and revokes) against
// PostgreSQL 15 and pgproxy.
func TestSequencePrivilegesDifferential(t *testing.T) {
	roleScriptDiff(t, "sp_diff", "testdata/roles/sequence_privileges.sql", 60)
}

// TestDefaultPrivilegesDifferential runs testdata/roles/
// default_privileges.sql (ALTER DEFAULT PRIVILEGES for the acting role
// and FOR ROLE, every schema and IN SCHEMA public, tables, views,
// sequences and serial columns, what created relations then hold,
// pg_default_acl and \ddp, DROP ROLE while defaults name the role)
// against PostgreSQL 15 and pgproxy.
func TestDefaultPrivilegesDifferential(t *testing.T) {
	roleScriptDiff(t, "dp_diff", "testdata/roles/default_privileges.sql", 60)
}

// TestReassignOwnedDifferential runs testdata/roles/reassign_owned.sql
// (who may reassign, what moves with its ACL, what stays) against
// PostgreSQL 15 and pgproxy.
func TestReassignOwnedDifferential(t *testing.T) {
	roleScriptDiff(t, "ro_diff", "testdata/roles/reassign_owned.sql", 30)
}

// TestDropOwnedDifferential runs testdata/roles/drop_owned.sql (who may,
// what is dropped, what is revoked, DROP ROLE afterwards) against
// PostgreSQL 15 and pgproxy.
func TestDropOwnedDifferential(t *testing.T) {
	roleScriptDiff(t, "do_diff", "testdata/roles/drop_owned.sql", 30)
}

// TestSchemaPrivilegesDifferential runs testdata/roles/
// schema_privileges.sql (CREATE in public for the owner only, GRANT/
// REVOKE ON SCHEMA, what CREATE guards, has_schema_privilege, nspacl,
// \dn+, DROP ROLE/OWNED with schema grants) against PostgreSQL 15 and
// pgproxy.
func TestSchemaPrivilegesDifferential(t *testing.T) {
	roleScriptDiff(t, "sch_diff", "testdata/roles/schema_privileges.sql", 70)
}

// TestColumnPrivilegesDifferential runs testdata/roles/
// column_privileges.sql (GRANT/REVOKE on columns, enforced on every
// statement shape, has_column_privilege, attacl, \dp, information_schema)
// against PostgreSQL 15 and pgproxy.
func TestColumnPrivilegesDifferential(t *testing.T) {
	roleScriptDiff(t, "col_diff", "testdata/roles/column_privileges.sql", 60)
}

// TestSchemaUsageDifferential runs testdata/roles/schema_usage.sql
// (USAGE on public revoked and granted: unqualified and qualified names
// in queries, DML, DDL and utility statements, sequences, types,
// regclass, views owned by a role without USAGE) against PostgreSQL 15
// and pgproxy.
func TestSchemaUsageDifferential(t *testing.T) {
	roleScriptDiff(t, "usage_diff", "testdata/roles/schema_usage.sql", 100)
}

// TestColumnPrivilegesDMLDifferential runs testdata/roles/
// column_privileges_dml.sql (column privileges on INSERT … ON CONFLICT,
// MERGE and SELECT … FOR UPDATE/SHARE; information_schema's
// column_privileges and role_column_grants as several roles see them)
// against PostgreSQL 15 and pgproxy.
func TestColumnPrivilegesDMLDifferential(t *testing.T) {
	roleScriptDiff(t, "coldml_diff", "testdata/roles/column_privileges_dml.sql", 80)
}

// TestRolesInTransactionDifferential runs testdata/roles/roles_txn.sql
// (role statements inside transaction blocks: seen by the transaction,
// not by other sessions before COMMIT, undone by ROLLBACK and ROLLBACK
// TO SAVEPOINT, published with the transaction's grants) against
// PostgreSQL 15 and pgproxy.
func TestRolesInTransactionDifferential(t *testing.T) {
	roleScriptDiff(t, "rt_diff", "testdata/roles/roles_txn.sql", 80)
}

// TestFunctionPrivilegesDifferential runs testdata/roles/
// function_privileges.sql (has_function_privilege and the errors of
// GRANT/REVOKE … ON FUNCTION) against PostgreSQL 15 and pgproxy.
func TestFunctionPrivilegesDifferential(t *testing.T) {
	roleScriptDiff(t, "fn_diff", "testdata/roles/function_privileges.sql", 30)
}

// TestFunctionACLDifferential runs testdata/roles/function_acl.sql
// (privileges of user functions: GRANT/REVOKE EXECUTE, calls refused
// without it, proacl, default privileges, OWNER TO, triggers) against
// PostgreSQL 15 and pgproxy.
func TestFunctionACLDifferential(t *testing.T) {
	roleScriptDiff(t, "fnacl_diff", "testdata/roles/function_acl.sql", 70)
}

// TestCreatedSchemaGrantsDifferential runs testdata/roles/
// created_schema_privileges.sql (GRANT/REVOKE USAGE, CREATE ON SCHEMA
// for created schemas, enforced on lookup and creation) against
// PostgreSQL 15 and pgproxy.
func TestCreatedSchemaGrantsDifferential(t *testing.T) {
	roleScriptDiff(t, "csp_diff", "testdata/roles/created_schema_privileges.sql", 35)
}

// TestSchemaOwnerDropDifferential runs testdata/roles/schema_owner_drop.sql
// (a schema's owner drops relations other roles own in it, may not alter
// them; others get 42501) against PostgreSQL 15 and pgproxy.
func TestSchemaOwnerDropDifferential(t *testing.T) {
	roleScriptDiff(t, "sod_diff", "testdata/roles/schema_owner_drop.sql", 25)
}

// TestNonOwnerDDLDifferential runs testdata/roles/non_owner_ddl.sql (DDL,
// maintenance and grants a role that owns nothing tries on another
// role's table, index, sequence, view, type, function and trigger)
// against PostgreSQL 15 and pgproxy.
func TestNonOwnerDDLDifferential(t *testing.T) {
	roleScriptDiff(t, "nod_diff", "testdata/roles/non_owner_ddl.sql", 45)
}

// TestBuiltinFunctionACLDifferential runs testdata/roles/
// builtin_function_acl.sql (GRANT/REVOKE EXECUTE on built-in functions,
// enforced on scalar, aggregate and FROM calls) against PostgreSQL 15
// and pgproxy.
func TestBuiltinFunctionACLDifferential(t *testing.T) {
	roleScriptDiff(t, "bfacl_diff", "testdata/roles/builtin_function_acl.sql", 60)
}

// TestTypePrivilegesDifferential runs testdata/roles/type_privileges.sql
// (GRANT/REVOKE USAGE ON TYPE|DOMAIN for enums and domains, enforced
// where a type is declared, typacl, has_type_privilege, ALTER TYPE …
// OWNER TO, ALTER DEFAULT PRIVILEGES … ON TYPES) against PostgreSQL 15
// and pgproxy.
func TestTypePrivilegesDifferential(t *testing.T) {
	roleScriptDiff(t, "typ_diff", "testdata/roles/type_privileges.sql", 100)
}

// TestDatabasePrivilegesDifferential runs testdata/roles/
// database_privileges.sql (GRANT/REVOKE CREATE, TEMPORARY, CONNECT ON
// DATABASE, what CREATE and TEMPORARY guard, datacl,
// has_database_privilege, GRANTED BY on object and role grants) against
// PostgreSQL 15 and pgproxy.
func TestDatabasePrivilegesDifferential(t *testing.T) {
	roleScriptDiff(t, "db_diff", "testdata/roles/database_privileges.sql", 90)
}

// TestOperatorCastACLDifferential runs testdata/roles/
// operator_cast_acl.sql (EXECUTE on the functions behind casts and
// prefix operators: explicit, function-style, assignment and implicit
// casts, constant and column operands) against PostgreSQL 15 and
// pgproxy.
func TestOperatorCastACLDifferential(t *testing.T) {
	roleScriptDiff(t, "opcast_diff", "testdata/roles/operator_cast_acl.sql", 45)
}

// TestDomainViewUsageDifferential runs testdata/roles/
// domain_view_usage.sql (USAGE on a domain for views, CREATE TABLE AS
// and SELECT … INTO whose columns have its type) against PostgreSQL 15
// and pgproxy.
func TestDomainViewUsageDifferential(t *testing.T) {
	roleScriptDiff(t, "dvu_diff", "testdata/roles/domain_view_usage.sql", 30)
}

// TestGrantOptionChainsDifferential runs testdata/roles/
// grant_option_chains.sql (GRANT … WITH GRANT OPTION chains, REVOKE
// RESTRICT refused with 2BP01 while dependent grants exist, CASCADE,
// REVOKE GRANT OPTION FOR, options held through a group, column,
// sequence, schema and function chains) against PostgreSQL 15 and
// pgproxy.
func TestGrantOptionChainsDifferential(t *testing.T) {
	roleScriptDiff(t, "goc_diff", "testdata/roles/grant_option_chains.sql", 100)
}

// TestSessionAuthorizationDifferential runs testdata/roles/
// session_authorization.sql (SET ROLE and SET SESSION AUTHORIZATION:
// who may, current_user and session_user, the privileges statements
// then run with, SET LOCAL, ROLLBACK, RESET, DISCARD ALL, NOINHERIT)
// against PostgreSQL 15 and pgproxy.
func TestSessionAuthorizationDifferential(t *testing.T) {
	roleScriptDiff(t, "sa_diff", "testdata/roles/session_authorization.sql", 90)
}

// TestViewOwnerRowsDifferential runs testdata/roles/view_owner_rows.sql
// (views owned by another role read their tables as that role,
// security_invoker views as the caller, nested views, DML through views,
// functions a view calls) against PostgreSQL 15 and pgproxy.
func TestViewOwnerRowsDifferential(t *testing.T) {
	roleScriptDiff(t, "vo_diff", "testdata/roles/view_owner_rows.sql", 60)
}
