package sqlparse

import (
	"runtime"
	"strings"
	"testing"
	"time"
	"weak"
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
	c := newCache(2, maxCachedBytes)
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

// TestCacheBoundsTextBytes: large statements are not cached and the
// cached texts stay under the byte bound, so a few huge statements (whose
// trees weigh ~25 bytes per byte of text) cannot pin gigabytes.
func TestCacheBoundsTextBytes(t *testing.T) {
	big := "SELECT 1 IN (" + strings.Repeat("1,", maxCachedText/2) + "1)"
	tree, err := Parse(big)
	if err != nil {
		t.Fatal(err)
	}
	// the most recent large text is kept for the parses of one
	// statement, then dropped
	if again, ok := shared.get(big); !ok || again != tree {
		t.Fatal("the most recent large statement is not kept")
	}
	other := big + " "
	otherTree, err := Parse(other)
	if err != nil {
		t.Fatal(err)
	}
	// the dropped tree must become garbage (a timer holding it did not)
	gone := weak.Make(otherTree)
	otherTree = nil
	if _, ok := shared.get(big); ok {
		t.Fatal("two large statements are kept")
	}
	shared.mu.Lock()
	shared.largeTimer.Reset(time.Millisecond)
	shared.mu.Unlock()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		if _, ok := shared.get(other); !ok {
			runtime.GC()
			if gone.Value() != nil {
				t.Fatal("the dropped large tree is still reachable")
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the large statement is never dropped")
		}
		// get re-arms the timer for largeTTL: shorten it again
		shared.mu.Lock()
		shared.largeTimer.Reset(time.Millisecond)
		shared.mu.Unlock()
	}
	cases := []struct {
		name     string
		maxBytes int
		texts    []string
		kept     []string
		dropped  []string
	}{
		{"within the bound", 100, []string{"SELECT 1", "SELECT 2"}, []string{"SELECT 1", "SELECT 2"}, nil},
		{"oldest evicted past the bound", 20, []string{"SELECT 1", "SELECT 2", "SELECT 3"}, []string{"SELECT 2", "SELECT 3"}, []string{"SELECT 1"}},
		{"text larger than the bound is only the large slot's", 5, []string{"SELECT 1", "SELECT 2"}, []string{"SELECT 2"}, []string{"SELECT 1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCache(100, tc.maxBytes)
			for _, q := range tc.texts {
				c.put(q, tree)
			}
			for _, q := range tc.kept {
				if _, ok := c.get(q); !ok {
					t.Errorf("%q not cached", q)
				}
			}
			for _, q := range tc.dropped {
				if _, ok := c.get(q); ok {
					t.Errorf("%q still cached", q)
				}
			}
			if c.bytes > tc.maxBytes || c.order.Len() > len(tc.texts) {
				t.Errorf("cache holds %d bytes of text, bound %d", c.bytes, tc.maxBytes)
			}
		})
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
