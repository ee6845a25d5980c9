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
		{"g match all shortest (a)-[e]->+(b) columns (a.x)", CodeFeature, "ALL SHORTEST"},
		{"g match p = (a) columns (a.x)", CodeFeature, "path variables"},
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
