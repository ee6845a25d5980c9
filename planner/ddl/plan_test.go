package ddl

import (
	"errors"
	"fmt"
	"testing"

	q "github.com/pggraph/pggraph/internal/sqlparse"
)

func planOne(t *testing.T, cat Catalog, sql string) ([]Change, error) {
	t.Helper()
	tree, err := q.Parse(sql)
	if err != nil {
		t.Fatal(err)
	}
	return Plan(tree.Stmts[0].Stmt, cat)
}

func TestErrorPredicates(t *testing.T) {
	ov := planInto(t, `CREATE TABLE a (id int PRIMARY KEY)`, `CREATE TABLE b (id int, a_id int REFERENCES a)`)
	cases := []struct {
		sql  string
		pred func(error) bool
	}{
		{`DROP TABLE nope`, IsUndefinedTable},
		{`CREATE TABLE a (x int)`, IsDuplicateTable},
		{`CREATE VIEW v AS SELECT 1`, IsNotSupported},
		{`DROP TABLE a`, IsDependentObjects},
	}
	for _, c := range cases {
		_, err := planOne(t, ov, c.sql)
		if err == nil || !c.pred(err) {
			t.Errorf("%s: %v", c.sql, err)
		}
		// wrapping keeps the SQLSTATE visible
		if Code(fmt.Errorf("ctx: %w", err)) != Code(err) {
			t.Errorf("%s: code lost through wrapping", c.sql)
		}
	}
	if Code(errors.New("plain")) != "" || IsUndefinedTable(nil) {
		t.Error("plain errors carry no SQLSTATE")
	}
}

func TestIsDDL(t *testing.T) {
	for sql, want := range map[string]bool{
		`CREATE TABLE t (x int)`:           true,
		`ALTER TABLE t ADD COLUMN y int`:   true,
		`DROP INDEX i`:                     true,
		`TRUNCATE t`:                       true,
		`GRANT SELECT ON t TO u`:           true,
		`COMMENT ON TABLE t IS 'x'`:        true,
		`CREATE SEQUENCE s`:                true,
		`SELECT 1`:                         false,
		`INSERT INTO t VALUES (1)`:         false,
		`SET search_path TO public`:        false,
		`BEGIN`:                            false,
		`CREATE EXTENSION IF NOT EXISTS x`: true,
	} {
		tree, err := q.Parse(sql)
		if err != nil {
			t.Fatal(err)
		}
		if got := IsDDL(tree.Stmts[0].Stmt); got != want {
			t.Errorf("IsDDL(%s) = %v", sql, got)
		}
	}
	if IsDDL(nil) {
		t.Error("IsDDL(nil)")
	}
	if _, err := Plan(nil, memCatalog{}); Code(err) != CodeSyntaxError {
		t.Errorf("Plan(nil): %v", err)
	}
}

func TestRewriteSelect(t *testing.T) {
	ov := planInto(t, `CREATE TABLE "Order" (id int, "select" text)`)
	cs, err := planOne(t, ov, `ALTER TABLE "Order" ADD COLUMN n int DEFAULT 7`)
	if err != nil {
		t.Fatal(err)
	}
	at := cs[0].(*AlterTable)
	if got, want := at.Rewrite.Select(at.Name), `SELECT id, "select", CAST(7 AS integer) FROM "Order"`; got != want {
		t.Fatalf("select %q, want %q", got, want)
	}
	// the rewrite query parses
	if _, err := q.Parse(at.Rewrite.Select(at.Name)); err != nil {
		t.Fatal(err)
	}
}

func TestSerialSequence(t *testing.T) {
	ov := planInto(t, `CREATE TABLE "T" (id serial, n int GENERATED ALWAYS AS IDENTITY, x int)`)
	cases := []struct {
		table, col, want string
		ok               bool
		code             string
	}{
		{`"T"`, "id", `public."T_id_seq"`, true, ""},
		{`public."T"`, "N", `public."T_n_seq"`, true, ""},
		{`"T"`, "x", "", false, ""},
		{`"T"`, "nope", "", false, CodeUndefinedColumn},
		{`t`, "id", "", false, CodeUndefinedTable},
	}
	for _, c := range cases {
		got, ok, err := SerialSequence(ov, c.table, c.col)
		if got != c.want || ok != c.ok || Code(err) != c.code {
			t.Errorf("SerialSequence(%s, %s) = %q %v %v", c.table, c.col, got, ok, err)
		}
	}
}

func TestRekey(t *testing.T) {
	ov := planInto(t, `CREATE TABLE t (id serial)`, `CREATE SEQUENCE s`)
	n := 0
	p := Planner{NewKey: func() string { n++; return fmt.Sprintf("new%d", n) }}
	for _, name := range []string{"t_id_seq", "public.s"} {
		before, _, _ := LookupSequence(ov, name)
		s, cs, err := p.Rekey(ov, name)
		if err != nil || len(cs) != 1 || s.Key == before.Key || cs[0].Tag() != "SELECT" {
			t.Fatalf("%s: %+v %v %v", name, s, cs, err)
		}
		ov.Apply(cs...)
		after, _, _ := LookupSequence(ov, name)
		if after.Key != s.Key || after.Name != s.Name {
			t.Fatalf("%s: catalog has %+v, rekey returned %+v", name, after, s)
		}
	}
	if _, _, err := p.Rekey(ov, "nope"); !IsUndefinedTable(err) {
		t.Fatalf("missing: %v", err)
	}
}
