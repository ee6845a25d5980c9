package planner

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestDomainsDurableAndShared: a domain is graph state. A second process
// on the same directory sees a domain the first created and enforces a
// constraint the first added; after both restart the domain and the rows
// are as committed; a branch made before ALTER DOMAIN keeps the old
// constraints, and main's time travel (graph.as_of) too. Values go
// through the extended protocol (pgx's prepared statements), where a
// violation is 23514 or 23502 as in PostgreSQL. A rolled-back ALTER
// DOMAIN leaves nothing behind.
func TestDomainsDurableAndShared(t *testing.T) {
	ctx := context.Background()
	root := newSharedRoot(t)
	serve := root.serve
	insert := func(c *pgx.Conn, id int, qty any) string {
		t.Helper()
		_, err := c.Exec(ctx, "insert into stock values ($1, $2)", id, qty)
		return enumState(err)
	}
	a := serve(true, "main")
	b := serve(false, "main")
	enumExec(t, a, "create domain qty as int not null check (value >= 0)",
		"create table stock (id int primary key, n qty)")
	if got := insert(b, 1, 5); got != "" {
		t.Fatalf("insert through the other process: %s", got)
	}
	if got := insert(b, 2, -1); got != "23514" {
		t.Fatalf("negative qty: %q, want 23514", got)
	}
	if got := insert(b, 2, nil); got != "23502" {
		t.Fatalf("NULL qty: %q, want 23502", got)
	}
	enumExec(t, a, "call graph.create_branch('before')")
	enumExec(t, b, "alter domain qty add constraint qty_small check (value < 100)")
	if got := insert(a, 3, 500); got != "23514" {
		t.Fatalf("the other process's new constraint: %q, want 23514", got)
	}
	if got := insert(a, 3, 50); got != "" {
		t.Fatalf("within both constraints: %s", got)
	}
	// a rolled-back ALTER DOMAIN leaves the domain as it was
	enumExec(t, a, "begin", "alter domain qty drop constraint qty_small", "rollback")
	if got := insert(a, 4, 500); got != "23514" {
		t.Fatalf("after a rolled-back DROP CONSTRAINT: %q, want 23514", got)
	}
	root.closeAll()
	c := serve(false, "main")
	if got := enumRows(t, c, "select id, n from stock order by id"); got != "1|5;3|50" {
		t.Fatalf("after restart: %s", got)
	}
	if got := enumRows(t, c, "select conname::text from pg_constraint where contypid = 'qty'::regtype order by 1"); got != "qty_check;qty_small" {
		t.Fatalf("constraints after restart: %s", got)
	}
	if got := insert(c, 5, 500); got != "23514" {
		t.Fatalf("after restart: %q, want 23514", got)
	}
	old := serve(false, "before")
	if got := insert(old, 6, 500); got != "" {
		t.Fatalf("branch made before ALTER DOMAIN: %q", got)
	}
	if got := enumRows(t, old, "select count(*) from pg_constraint where contypid = 'qty'::regtype"); got != "1" {
		t.Fatalf("branch's constraints: %s", got)
	}
	enumExec(t, c, "drop table stock", "drop domain qty")
	if got := enumRows(t, c, "select count(*) from pg_type where typname = 'qty'"); got != "0" {
		t.Fatalf("after DROP DOMAIN: %s", got)
	}
	if got := enumRows(t, old, "select count(*) from pg_type where typname = 'qty'"); got != "1" {
		t.Fatalf("the branch keeps its domain: %s", got)
	}
}

// TestDomainsUnsupported: what domains and composite types do not cover
// answers 0A000 naming the feature, never a silent success.
func TestDomainsUnsupported(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	enumExec(t, c, "create domain small as int check (value < 10)", "create table conv (x int, s small)")
	for _, tc := range []struct{ sql, want string }{
		{"create type pair as (a int, b text)", "composite types"},
		{"create domain dd as small", "domains over domains"},
		{"create domain dc as text collate \"C\"", "COLLATE in CREATE DOMAIN"},
		{"alter table conv alter column x type small", "to or from a domain"},
		{"alter table conv alter column s type int", "to or from a domain"},
		{"drop domain small cascade", "DROP DOMAIN … CASCADE"},
	} {
		_, err := c.Exec(context.Background(), tc.sql)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "0A000" || !strings.Contains(pe.Message, tc.want) {
			t.Errorf("%s: %v, want 0A000 naming %q", tc.sql, err, tc.want)
		}
	}
}

// TestDomainsCopyAndAddColumn: COPY checks domain columns as INSERT does;
// ALTER TABLE … ADD COLUMN of a domain fills existing rows with the
// domain's default, and fails as PostgreSQL when that violates it.
func TestDomainsCopyAndAddColumn(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	enumExec(t, c, "create domain pos as int not null check (value > 0)", "create table t (id int, p pos)")
	if _, err := c.CopyFrom(ctx, pgx.Identifier{"t"}, []string{"id", "p"}, pgx.CopyFromRows([][]any{{1, 1}, {2, -2}})); enumState(err) != "23514" {
		t.Fatalf("COPY of a violating value: %v, want 23514", err)
	}
	if _, err := c.CopyFrom(ctx, pgx.Identifier{"t"}, []string{"id"}, pgx.CopyFromRows([][]any{{3}})); enumState(err) != "23502" {
		t.Fatalf("COPY leaving a NOT NULL domain column NULL: %v, want 23502", err)
	}
	if _, err := c.CopyFrom(ctx, pgx.Identifier{"t"}, []string{"id", "p"}, pgx.CopyFromRows([][]any{{1, 1}, {2, 2}})); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "alter table t add column q pos"); enumState(err) != "23502" {
		t.Fatalf("ADD COLUMN of a NOT NULL domain without a default: %v, want 23502", err)
	}
	enumExec(t, c, "create domain pos7 as int not null default 7 check (value > 0)", "alter table t add column q pos7")
	if got := enumRows(t, c, "select id, p, q from t order by id"); got != "1|1|7;2|2|7" {
		t.Fatalf("rows after ADD COLUMN: %s", got)
	}
}
