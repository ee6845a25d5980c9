package planner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// enumRows runs sql and renders its rows as "a|b;c|d".
func enumRows(t *testing.T, c *pgx.Conn, sql string, args ...any) string {
	t.Helper()
	rows, err := c.Query(context.Background(), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	var out []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		var cells []string
		for _, v := range vals {
			cells = append(cells, fmt.Sprint(v))
		}
		out = append(out, strings.Join(cells, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return strings.Join(out, ";")
}

func enumExec(t *testing.T, c *pgx.Conn, sqls ...string) {
	t.Helper()
	for _, s := range sqls {
		if _, err := c.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func enumState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// TestEnumsDurableAndShared: an enum type is graph state. A second process
// on the same directory sees a type the first created and the first sees
// the label the second added; after both restart, the type, its labels'
// order and the rows are as committed; a branch made before ALTER TYPE
// keeps the old labels while main has the new one. Values go through the
// extended protocol (pgx's prepared statements) as parameters, where a
// bad label is 22P02 as in PostgreSQL.
func TestEnumsDurableAndShared(t *testing.T) {
	ctx := context.Background()
	root := newSharedRoot(t)
	serve := root.serve
	a := serve(true, "main")
	b := serve(false, "main")
	enumExec(t, a, "create type mood as enum ('sad', 'ok', 'happy')",
		"create table diary (id int primary key, m mood not null)")
	for i, m := range []string{"happy", "sad", "ok"} {
		if _, err := b.Exec(ctx, "insert into diary values ($1, $2)", i+1, m); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Exec(ctx, "insert into diary values ($1, $2)", 9, "angry"); enumState(err) != "22P02" {
		t.Fatalf("bad label as a parameter: %v, want 22P02", err)
	}
	if got := enumRows(t, a, "select m::text as label from diary order by m"); got != "sad;ok;happy" {
		t.Fatalf("order by declaration: %s", got)
	}
	enumExec(t, a, "call graph.create_branch('before')")
	enumExec(t, b, "alter type mood add value 'meh' before 'ok'")
	if _, err := a.Exec(ctx, "insert into diary values ($1, $2)", 4, "meh"); err != nil {
		t.Fatalf("the other process's new label: %v", err)
	}
	if got := enumRows(t, a, "select id from diary where m < $1::mood order by m", "ok"); got != "2;4" {
		t.Fatalf("compare with a parameter: %s", got)
	}
	root.closeAll()
	c := serve(false, "main")
	if got := enumRows(t, c, "select id, m::text as label from diary order by m, id"); got != "2|sad;4|meh;3|ok;1|happy" {
		t.Fatalf("after restart: %s", got)
	}
	if got := enumRows(t, c, "select enumlabel::text from pg_enum where enumtypid = 'mood'::regtype order by enumsortorder"); got != "sad;meh;ok;happy" {
		t.Fatalf("pg_enum after restart: %s", got)
	}
	old := serve(false, "before")
	if got := enumRows(t, old, "select enumlabel::text from pg_enum order by enumsortorder"); got != "sad;ok;happy" {
		t.Fatalf("branch made before ALTER TYPE: %s", got)
	}
	if _, err := old.Exec(ctx, "insert into diary values ($1, $2)", 5, "meh"); enumState(err) != "22P02" {
		t.Fatalf("main's new label on the older branch: %v, want 22P02", err)
	}
	// min and max would order enums as text: refused, not answered wrong
	if _, err := c.Exec(ctx, "select max(m) from diary"); enumState(err) != "0A000" {
		t.Fatalf("max over an enum: %v, want 0A000", err)
	}
}
