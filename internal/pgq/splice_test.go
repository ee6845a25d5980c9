package pgq

import (
	"strings"
	"testing"
)

func TestSplice(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"select 1", "select 1"},
		{"select * from graph_table (g match (a) columns (a.x))",
			"select * from pg_catalog.pggraph_graph_table('g match (a) columns (a.x)')"},
		{"select * from GRAPH_TABLE(s.g MATCH (a WHERE a.n = 'it''s )') COLUMNS (a.n)) AS t (x)",
			"select * from pg_catalog.pggraph_graph_table('s.g MATCH (a WHERE a.n = ''it''''s )'') COLUMNS (a.n)') AS t (x)"},
		// strings, comments, dollar quotes and identifiers are not clauses
		{"select 'graph_table (g match (a) columns (a.x))'", "select 'graph_table (g match (a) columns (a.x))'"},
		{"select 1 -- graph_table (g match (a) columns (a.x))\n", "select 1 -- graph_table (g match (a) columns (a.x))\n"},
		{"select /* graph_table (g match /* nested */ (a) columns (a.x)) */ 1", "select /* graph_table (g match /* nested */ (a) columns (a.x)) */ 1"},
		{"select $q$ graph_table (g match (a) columns (a.x)) $q$", "select $q$ graph_table (g match (a) columns (a.x)) $q$"},
		{`select "graph_table" (g match (a) columns (a.x))`, `select "graph_table" (g match (a) columns (a.x))`},
		{"select graph_table(x) from t", "select graph_table(x) from t"},
		// two clauses
		{"select * from graph_table (g match (a) columns (a.x)) x, graph_table (g match (b) columns (b.y)) y",
			"select * from pg_catalog.pggraph_graph_table('g match (a) columns (a.x)') x, pg_catalog.pggraph_graph_table('g match (b) columns (b.y)') y"},
	} {
		got, err := Splice(tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		in, code, msg string
	}{
		{"g match (a) columns (a.x", CodeSyntaxError, "syntax error at end"},
		{"g match (a is) columns (a.x)", CodeSyntaxError, `at or near ")"`},
		{"g match (a)-[e]-> columns (a.x)", CodeSyntaxError, `at or near "columns"`},
		{"g match (a) columns ()", CodeSyntaxError, `at or near ")"`},
		{"g match (a)-[e]->{2,1}(b) columns (a.x)", CodeSyntaxError, "upper bound"},
		{"g match shortest 2 group (a)-[e]->+(b) columns (a.x)", CodeFeature, "GROUP"},
		{"g match shortest (a)-[e]->+(b) columns (a.x)", CodeSyntaxError, `at or near "("`},
		{"g match p = = (a) columns (a.x)", CodeSyntaxError, `at or near "="`},
		{"g match (a where a.x = 'open) columns (a.x)", CodeSyntaxError, "unterminated quoted string"},
	} {
		_, err := Parse(tc.in)
		pe, ok := err.(*Error)
		if !ok || pe.Code != tc.code || !strings.Contains(pe.Message, tc.msg) {
			t.Errorf("%s: got %v, want %s %q", tc.in, err, tc.code, tc.msg)
		}
	}
}

func TestParsePattern(t *testing.T) {
	gt, err := Parse(`g match (a is x|!y)-[e is k where e.w > 1]->(b), (b)<-(c)-(d)<-[f]->(a)-[:k]->{1,3}(e2) where a.n <> 'a)' columns (a.n, e.w as w)`)
	if err != nil {
		t.Fatal(err)
	}
	if len(gt.Paths) != 2 || len(gt.Paths[0].Elems) != 3 || len(gt.Paths[1].Elems) != 9 {
		t.Fatalf("paths: %+v", gt.Paths)
	}
	dirs := []Direction{Left, Any, Any, Right}
	for i, d := range dirs {
		if el := gt.Paths[1].Elems[2*i+1]; el.Dir != d || !el.Edge {
			t.Errorf("edge %d: dir %v, want %v", i, el.Dir, d)
		}
	}
	if q := gt.Paths[1].Elems[7].Quant; q == nil || q.Min != 1 || q.Max != 3 {
		t.Errorf("quantifier: %+v", q)
	}
	if got := gt.Where.Text(); got != "a.n <> 'a)'" {
		t.Errorf("where: %q", got)
	}
	if len(gt.Columns) != 2 || gt.Columns[1].Alias != "w" || gt.Columns[0].Expr.Text() != "a.n" {
		t.Errorf("columns: %+v", gt.Columns)
	}
	if l := gt.Paths[0].Elems[0].Label; l == nil || l.Op != "|" || l.Args[1].Op != "!" {
		t.Errorf("label: %+v", l)
	}
}

func TestParsePathPrefix(t *testing.T) {
	for _, tc := range []struct {
		in         string
		v, sel, md string
		k          int
	}{
		{"g match (a) columns (a.x)", "", "", "walk", 0},
		{"g match p = any shortest (a)-[e]->+(b) columns (a.x)", "p", "any shortest", "walk", 1},
		{"g match all shortest trail path (a)-[e]->+(b) columns (a.x)", "", "all shortest", "trail", 0},
		{"g match q = any 3 acyclic paths (a)-[e]->+(b) columns (a.x)", "q", "any", "acyclic", 3},
		{"g match shortest 2 simple (a)-[e]->+(b) columns (a.x)", "", "shortest", "simple", 2},
		{"g match all (a) columns (a.x)", "", "", "walk", 0},
		{"g match any (a)-[e]->+(b) columns (a.x)", "", "any", "walk", 1},
	} {
		gt, err := Parse(tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		p := gt.Paths[0]
		sel, k := "", 0
		if p.Selector != nil {
			sel, k = p.Selector.Kind, p.Selector.K
		}
		if p.Var != tc.v || sel != tc.sel || p.Mode != tc.md || k != tc.k {
			t.Errorf("%s: var %q selector %q/%d mode %q", tc.in, p.Var, sel, k, p.Mode)
		}
	}
}

// TestSpliceUnsupportedGraphStatements: PostgreSQL 19's other statements
// on property graphs answer 0A000 naming them (not the PostgreSQL 17
// grammar's syntax error); look-alikes pass through unchanged.
func TestSpliceUnsupportedGraphStatements(t *testing.T) {
	for _, tc := range []struct{ in, feature string }{
		{"comment on property graph g is 'x'", "COMMENT ON PROPERTY GRAPH"},
		{"COMMENT ON PROPERTY GRAPH s.g IS NULL", "COMMENT ON PROPERTY GRAPH"},
		{"grant select on property graph g to r", "GRANT on a property graph"},
		{"select 1; revoke all on property graph g from public", "REVOKE on a property graph"},
		{"security label on property graph g is 'x'", "SECURITY LABEL ON PROPERTY GRAPH"},
		{"grant select on property_graph to r", ""},
		{"comment on table t is 'comment on property graph'", ""},
		{"grant select on t to property", ""},
	} {
		out, err := Splice(tc.in)
		if tc.feature == "" {
			if err != nil || out != tc.in {
				t.Errorf("%s: got %q, %v; want it unchanged", tc.in, out, err)
			}
			continue
		}
		pe, ok := err.(*Error)
		if !ok || pe.Code != CodeFeature || !strings.Contains(pe.Message, tc.feature) {
			t.Errorf("%s: got %v; want 0A000 naming %s", tc.in, err, tc.feature)
		}
	}
}
