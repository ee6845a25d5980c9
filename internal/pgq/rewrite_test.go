package pgq

import (
	"strings"
	"testing"
)

// testGraph is person vertices and knows edges from person to person,
// whose endpoints are total or not.
func testGraph(total bool) *Graph {
	p := &ElementTable{Table: "person", Labels: []string{"person"}, Key: []string{"id"},
		Props: map[string]string{"id": "id", "name": "name"}, PropTypes: map[string]string{"id": "integer", "name": "text"}}
	k := &ElementTable{Table: "knows", Labels: []string{"knows"},
		Props: map[string]string{"src": "src", "dst": "dst"}, PropTypes: map[string]string{"src": "integer", "dst": "integer"},
		Src: &Endpoint{Columns: []string{"src"}, Vertex: p, Refs: []string{"id"}, Total: total},
		Dst: &Endpoint{Columns: []string{"dst"}, Vertex: p, Refs: []string{"id"}, Total: total}}
	return &Graph{Name: "graph", Vertices: []*ElementTable{p}, Edges: []*ElementTable{k}}
}

// TestRewriteElidesPassedVertices: a vertex the pattern only passes
// through is not joined when the edges guarantee it exists (the next edge
// joins the previous edge's column; a read of its key is that column),
// and is joined otherwise, or when the pattern reads another property of
// it, repeats it, needs it for a path mode or
// a quantified edge starts from it.
func TestRewriteElidesPassedVertices(t *testing.T) {
	for _, tc := range []struct {
		clause string
		total  bool
		joined []string // vertex aliases joined
	}{
		{"graph match (a where a.id = 1)-[is knows]->(b)-[is knows]->(c) columns (c.name)", true, []string{"c"}},
		{"graph match (a where a.id = 1)-[is knows]->(b)-[is knows]->(c) columns (c.name)", false, []string{"a", "b", "c"}},
		// reading only the key reads the edge's column
		{"graph match (a where a.id = 1)-[is knows]->()-[is knows]->()-[is knows]->(d) columns (d.id)", true, []string{}},
		{"graph match (a where a.id = 1)-[is knows]->(b)-[is knows]->(c) columns (b.name, c.name as c)", true, []string{"b", "c"}},
		{"graph match (a where a.id = 1)-[is knows]->(b where b.id > 2)-[is knows]->(c) columns (c.name)", true, []string{"c"}},
		{"graph match (a where a.id = 1)-[is knows]->(b where b.name > 'x')-[is knows]->(c) columns (c.id)", true, []string{"b"}},
		// the path's first vertex is read beyond its key: joined
		{"graph match (a where a.name = 'x')-[is knows]->(b)-[is knows]->(c) columns (c.id)", true, []string{"a"}},
		// a cycle back to a: a is joined, b is still only passed through
		{"graph match (a where a.id = 1)-[is knows]->(b)-[is knows]->(a) columns (a.name)", true, []string{"a"}},
		{"graph match acyclic (a where a.id = 1)-[is knows]->(b)-[is knows]->(c) columns (c.name)", true, []string{"a", "b", "c"}},
		// the walk's CTE is seeded from b's table first
		{"graph match (a where a.id = 1)-[is knows]->(b)-[is knows]->{1,2}(c) columns (c.name)", true, []string{"b", "b", "c"}},
	} {
		gt, err := Parse(tc.clause)
		if err != nil {
			t.Fatalf("%s: %v", tc.clause, err)
		}
		sql, err := Rewrite(gt, testGraph(tc.total))
		if err != nil {
			t.Fatalf("%s: %v", tc.clause, err)
		}
		var joined []string
		for _, part := range strings.Split(sql, `"person" AS "`)[1:] {
			joined = append(joined, part[:strings.IndexByte(part, '"')])
		}
		if strings.Join(joined, ",") != strings.Join(tc.joined, ",") {
			t.Errorf("%s (total %v): joins %v, want %v\n%s", tc.clause, tc.total, joined, tc.joined, sql)
		}
	}
}
