package planner

import (
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestSchemasBranchAndMerge: a schema is graph state (ddl/schema.go). One
// created on a branch, with its tables, is absent from main until the
// branch merges; two schemas may then hold tables of the same name, each
// with its own rows; a branch made before DROP SCHEMA … CASCADE keeps the
// schema and its rows.
func TestSchemasBranchAndMerge(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	runScript(t, c, []step{
		{sql: "create table items (id int primary key, v text)"},
		{sql: "insert into items values (1, 'public')"},
		{sql: "call graph.create_branch('side')"},
		{sql: "set graph.branch = 'side'"},
		{sql: "create schema sales"},
		{sql: "create table sales.items (id int primary key, v text)"},
		{sql: "insert into sales.items values (1, 'sales'), (2, 'sales')"},
		{sql: "select count(*) from sales.items", rows: "2"},
		{sql: "set graph.branch = 'main'"},
		{sql: "select count(*) from sales.items", code: "42P01", msg: `"sales.items"`},
		{sql: "select count(*) from pg_namespace where nspname = 'sales'", rows: "0"},
		{sql: "call graph.merge('side')", tag: "CALL"},
		{sql: "select v from sales.items order by id", rows: "sales;sales"},
		{sql: "select v from items", rows: "public"},
		{sql: "set search_path = sales, public"},
		{sql: "select count(*) from items", rows: "2"},
		{sql: "reset search_path"},
		{sql: "select n.nspname || '.' || c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.relname = 'items' order by 1", rows: "public.items;sales.items"},
		{sql: "call graph.create_branch('keep')"},
		{sql: "drop schema sales cascade"},
		{sql: "select count(*) from sales.items", code: "42P01"},
		{sql: "set graph.branch = 'keep'"},
		{sql: "select count(*) from sales.items", rows: "2"},
	})
}

// TestSchemasSharedAndDurable: a second process on the same directory
// sees the schema and table the first created and writes to it; after a
// restart, schema, storage names and rows are as committed.
func TestSchemasSharedAndDurable(t *testing.T) {
	root := newSharedRoot(t)
	serve := func(create bool) *pgx.Conn { return root.serve(create, "main") }
	a := serve(true)
	b := serve(false)
	runScript(t, a, []step{
		{sql: "create schema billing"},
		{sql: "create table billing.invoices (id serial primary key, total int not null)"},
		{sql: "insert into billing.invoices (total) values (10)"},
	})
	runScript(t, b, []step{
		{sql: "insert into billing.invoices (total) values (20)"},
		{sql: "create schema billing", code: "42P06"},
	})
	runScript(t, a, []step{
		{sql: "select total from billing.invoices order by total", rows: "10;20"},
	})
	root.closeAll()
	c := serve(false)
	runScript(t, c, []step{
		{sql: "select total from billing.invoices order by total", rows: "10;20"},
		{sql: "select nspname from pg_namespace where nspname = 'billing'", rows: "billing"},
		{sql: "select pg_get_serial_sequence('billing.invoices', 'id')", rows: "billing.invoices_id_seq"},
		{sql: "insert into billing.invoices (total) values (30) returning total", rows: "30"},
		{sql: "select count(distinct id) from billing.invoices", rows: "3"},
	})
}

// TestCreatedSchemaPrivilegesDifferential runs
// testdata/roles/created_schemas.sql on PostgreSQL 15 and pgproxy:
// ownership of created schemas decides who creates in, drops, renames
// and gives them away.
func TestCreatedSchemaPrivilegesDifferential(t *testing.T) {
	roleScriptDiff(t, "cs_diff", "testdata/roles/created_schemas.sql", 20)
}
