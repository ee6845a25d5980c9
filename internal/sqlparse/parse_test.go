package sqlparse

import (
	"container/list"
	"testing"
)

func TestParseCachesTrees(t *testing.T) {
	const q = "SELECT 1 AS one, 'x'::text"
	a, err := Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Fatal("second parse of the same text did not come from the cache")
	}
	sel := a.Stmts[0].Stmt.GetSelectStmt()
	if sel == nil || len(sel.TargetList) != 2 || sel.TargetList[0].GetResTarget().Name != "one" {
		t.Fatalf("unexpected tree: %v", a)
	}
}

func TestSyntaxErrorPosition(t *testing.T) {
	cases := []struct {
		sql string
		pos int
	}{
		{"SELECT FROM WHERE", 13},
		{"SELEC 1", 1},
	}
	for _, c := range cases {
		_, err := Parse(c.sql)
		if !IsSyntaxError(err) {
			t.Fatalf("%q: want syntax error, got %v", c.sql, err)
		}
		if got := err.(*SyntaxError).Position; got != c.pos {
			t.Errorf("%q: position %d, want %d", c.sql, got, c.pos)
		}
	}
}

func TestCacheIsBounded(t *testing.T) {
	c := &cache{max: 2, order: list.New(), items: map[string]*list.Element{}}
	for _, q := range []string{"SELECT 1", "SELECT 2", "SELECT 3"} {
		tree, err := Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		c.put(q, tree)
	}
	if c.order.Len() != 2 {
		t.Fatalf("cache holds %d trees, want 2", c.order.Len())
	}
	if _, ok := c.get("SELECT 1"); ok {
		t.Fatal("least recently used tree was not evicted")
	}
	if _, ok := c.get("SELECT 3"); !ok {
		t.Fatal("newest tree missing")
	}
}

func TestSplit(t *testing.T) {
	got, err := Split("SELECT 'a;b'; -- c;\nSELECT 2;")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != "SELECT 'a;b'" {
		t.Fatalf("got %q", got)
	}
}
