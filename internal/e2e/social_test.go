package e2e

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// socialSchema is the social graph of testdata/sql/graph/social.psql, as
// the Go tests create it.
var socialSchema = []string{
	`CREATE TABLE people (id int8 PRIMARY KEY, name text NOT NULL, email text UNIQUE, age int4 CHECK (age >= 0))`,
	`CREATE TABLE companies (id int4 PRIMARY KEY, name text NOT NULL UNIQUE, founded date)`,
	`CREATE TABLE knows (src int8 NOT NULL REFERENCES people (id) ON DELETE CASCADE,
		dst int8 NOT NULL REFERENCES people (id) ON DELETE CASCADE, since int4, UNIQUE (src, dst)) WITH (graph.kind = edge)`,
	`CREATE TABLE works_at (src int8 NOT NULL REFERENCES people (id) ON DELETE CASCADE,
		dst int4 NOT NULL REFERENCES companies (id) ON DELETE RESTRICT, role text NOT NULL DEFAULT 'engineer') WITH (graph.kind = edge)`,
}

func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// mustState fails unless err carries SQLSTATE code.
func mustState(t *testing.T, err error, code, what string) {
	t.Helper()
	if got := sqlState(err); got != code {
		t.Fatalf("%s: got %v (SQLSTATE %q), want SQLSTATE %s", what, err, got, code)
	}
}

func mustExec(t *testing.T, ctx context.Context, conn *pgx.Conn, sql string, args ...any) pgconn.CommandTag {
	t.Helper()
	tag, err := conn.Exec(ctx, sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return tag
}

func queryInt(t *testing.T, ctx context.Context, conn *pgx.Conn, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := conn.QueryRow(ctx, sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// socialProxy starts a pgproxy, connects to main and loads the social
// graph; the connection closes when the test ends.
func socialProxy(t *testing.T, ctx context.Context) (*proxy, *pgx.Conn) {
	t.Helper()
	p := startProxy(t)
	conn, err := p.Connect(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	loadSocial(t, ctx, conn)
	return p, conn
}

// loadSocial creates the schema and loads it with binary COPY.
func loadSocial(t *testing.T, ctx context.Context, conn *pgx.Conn) {
	t.Helper()
	for _, s := range socialSchema {
		mustExec(t, ctx, conn, s)
	}
	people := [][]any{
		{int64(1), "Ada", "ada@example.com", int32(36)},
		{int64(2), "Grace", "grace@example.com", int32(45)},
		{int64(3), "Linus", "linus@example.com", nil},
		{int64(4), "Barbara", "barbara@example.com", int32(52)},
		{int64(5), "Ken", nil, int32(61)},
		{int64(6), "Edsger", "edsger@example.com", int32(70)},
	}
	copyRows(t, ctx, conn, "people", []string{"id", "name", "email", "age"}, people)
	copyRows(t, ctx, conn, "companies", []string{"id", "name", "founded"}, [][]any{
		{int32(1), "Analytical Engines", time.Date(1843, 9, 1, 0, 0, 0, 0, time.UTC)},
		{int32(2), "Compilers, Inc.", time.Date(1952, 5, 3, 0, 0, 0, 0, time.UTC)},
		{int32(3), "Kernel Co", nil},
	})
	copyRows(t, ctx, conn, "knows", []string{"src", "dst", "since"}, [][]any{
		{int64(1), int64(2), int32(1990)}, {int64(2), int64(1), int32(1990)}, {int64(1), int64(3), nil},
		{int64(2), int64(4), int32(2001)}, {int64(3), int64(5), int32(2011)}, {int64(4), int64(6), int32(1975)},
		{int64(5), int64(6), int32(1980)}, {int64(6), int64(1), int32(1968)},
	})
	copyRows(t, ctx, conn, "works_at", []string{"src", "dst", "role"}, [][]any{
		{int64(1), int32(1), "founder"}, {int64(2), int32(2), "admiral"}, {int64(3), int32(3), "maintainer"},
		{int64(4), int32(2), "engineer"}, {int64(5), int32(3), "engineer"}, {int64(6), int32(2), "professor"},
	})
}

func copyRows(t *testing.T, ctx context.Context, conn *pgx.Conn, table string, cols []string, rows [][]any) {
	t.Helper()
	n, err := conn.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows))
	if err != nil || n != int64(len(rows)) {
		t.Fatalf("COPY %s: %d rows, %v (want %d)", table, n, err, len(rows))
	}
}
