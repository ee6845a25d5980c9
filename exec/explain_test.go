package exec

import (
	"context"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite golden files under testdata/")

// TestExplainPlans compares EXPLAIN and EXPLAIN ANALYZE (times masked)
// of join shapes, lookups, recursion and aggregation with
// testdata/explain.golden: the operator names, the join method (the one
// predicted, and the one used under ANALYZE, also with each method
// disabled), indexes, estimated and actual rows and loops. Run with
// -update to rewrite the file after a deliberate change.
func TestExplainPlans(t *testing.T) {
	pcols := []ColumnDef{{Name: "id", Type: TInt8, NotNull: true}, {Name: "name", Type: TText}, {Name: "age", Type: TInt4}}
	prows := make([][]any, 3000)
	for i := range prows {
		prows[i] = []any{int64(i + 1), fmt.Sprintf("p%d", i+1), int64(18 + i%60)}
	}
	people, err := NewMemTable(pcols, prows)
	if err != nil {
		t.Fatal(err)
	}
	people.Keys = []int{0}
	ecols := []ColumnDef{{Name: "src", Type: TInt8, NotNull: true}, {Name: "dst", Type: TInt8, NotNull: true}, {Name: "w", Type: TInt4}}
	erows := make([][]any, 12000)
	for i := range erows {
		erows[i] = []any{int64(i%3000 + 1), int64((i*7)%3000 + 1), int64(i % 100)}
	}
	edges, err := NewMemTable(ecols, erows)
	if err != nil {
		t.Fatal(err)
	}
	edges.Keys = []int{0, 1}
	cat := NewMemCatalog()
	cat.Add(&TableDef{Name: "person", Columns: pcols, PrimaryKey: []int{0}, Source: people})
	cat.Add(&TableDef{Name: "knows", Columns: ecols, Kind: "edge", Adjacency: []int{0, 1}, Source: edges})
	eng := &Engine{Catalog: cat}
	queries := []string{
		"SELECT count(*) FROM knows e1 JOIN knows e2 ON e2.src = e1.dst WHERE e1.src = 1",
		"SELECT p.name, e.w FROM knows e JOIN person p ON p.id = e.dst WHERE e.src = 7 AND e.w > 10 ORDER BY e.w DESC LIMIT 2",
		"SELECT p.age, count(*) FROM person p JOIN knows e ON e.src = p.id GROUP BY p.age",
		"SELECT name FROM person p WHERE NOT EXISTS (SELECT 1 FROM knows e WHERE e.dst = p.id) AND p.id < 5",
		"SELECT p.name FROM person p LEFT JOIN knows e ON e.src = p.id AND e.w = 3 WHERE p.id IN (1, 2)",
		"WITH RECURSIVE r(n, d) AS (SELECT 1::int8, 0 UNION ALL SELECT e.dst, r.d + 1 FROM r JOIN knows e ON e.src = r.n WHERE r.d < 3) SELECT count(*) FROM r",
		"SELECT e.src, e.dst, p.name FROM knows e JOIN person p ON p.id = e.src ORDER BY e.src DESC, e.dst DESC LIMIT 2",
		"SELECT count(*) FROM knows e1 JOIN knows e2 ON e2.src = e1.dst WHERE e1.src BETWEEN 10 AND 12",
		// the left join is applied after the selective inner join
		// (join_order_outer.go): lookups into e, then q
		"SELECT p.name, q.name FROM knows e LEFT JOIN person q ON q.id = e.dst JOIN person p ON p.id = e.src WHERE p.id = 7",
	}
	checkExplainGolden(t, eng, queries, "testdata/explain.golden")
}

// checkExplainGolden compares EXPLAIN and EXPLAIN ANALYZE (times masked)
// of queries, each as planned by itself and with enable_hashjoin and
// enable_nestloop off, with the golden file.
func checkExplainGolden(t *testing.T, eng *Engine, queries []string, golden string) {
	t.Helper()
	settings := []map[string]string{nil, {"enable_hashjoin": "off"}, {"enable_nestloop": "off"}}
	times := regexp.MustCompile(`actual time=[0-9.]+\.\.[0-9.]+`)
	var out strings.Builder
	for _, sql := range queries {
		for _, set := range settings {
			sess := &Session{Setting: func(n string) (string, bool) { v, ok := set[n]; return v, ok }}
			for _, analyze := range []bool{false, true} {
				prep, err := eng.PrepareFor(sess, sql, nil)
				if err != nil {
					t.Fatalf("%s: %v", sql, err)
				}
				lines, err := prep.Explain(context.Background(), sess, nil, analyze)
				if err != nil {
					t.Fatalf("%s: %v", sql, err)
				}
				fmt.Fprintf(&out, "-- %s", sql)
				for k, v := range set {
					fmt.Fprintf(&out, " [%s=%s]", k, v)
				}
				if analyze {
					out.WriteString(" [ANALYZE]")
				}
				out.WriteString("\n")
				for _, l := range lines {
					if strings.HasPrefix(l, "Execution Time: ") {
						l = "Execution Time: (masked)"
					}
					out.WriteString(times.ReplaceAllString(l, "actual time=(masked)") + "\n")
				}
			}
		}
	}
	if *updateGolden {
		if err := os.WriteFile(golden, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != string(want) {
		t.Errorf("plans differ from %s (run with -update after a deliberate change):\n%s", golden, out.String())
	}
}

// TestExplainIndexRanges compares the plans of range and ordered
// lookups on text and varchar index columns, and of multi-column indexes
// used through their leading column, with
// testdata/explain_ranges.golden: each is an Index Scan (Backward for a
// descending walk) with its Index Cond, not a Seq Scan.
func TestExplainIndexRanges(t *testing.T) {
	ncols := []ColumnDef{{Name: "id", Type: TInt8, NotNull: true}, {Name: "name", Type: TText, NotNull: true}, {Name: "tag", Type: Type{OID: OIDVarchar, Mod: -1}}}
	nrows := make([][]any, 3000)
	for i := range nrows {
		var tag any = fmt.Sprintf("t%d", i%50)
		if i%7 == 0 {
			tag = nil
		}
		nrows[i] = []any{int64(i + 1), fmt.Sprintf("n%04d", i+1), tag}
	}
	nodes, err := NewMemTable(ncols, nrows)
	if err != nil {
		t.Fatal(err)
	}
	nodes.Keys = []int{0, 1, 2}
	ecols := []ColumnDef{{Name: "src", Type: TInt8, NotNull: true}, {Name: "dst", Type: TInt8, NotNull: true}, {Name: "label", Type: TText}, {Name: "w", Type: TInt4}}
	erows := make([][]any, 12000)
	for i := range erows {
		erows[i] = []any{int64(i%3000 + 1), int64((i*7)%3000 + 1), fmt.Sprintf("l%d", i%300), int64(i % 13)}
	}
	edges, err := NewMemTable(ecols, erows)
	if err != nil {
		t.Fatal(err)
	}
	edges.Keys = []int{0, 2}
	cat := NewMemCatalog()
	cat.Add(&TableDef{Name: "node", Columns: ncols, PrimaryKey: []int{0}, Source: nodes,
		Indexes: []IndexDef{{Name: "node_name", Columns: []int{1}}, {Name: "node_tag", Columns: []int{2}}}})
	cat.Add(&TableDef{Name: "edge", Columns: ecols, Source: edges,
		Indexes: []IndexDef{{Name: "edge_src_w", Columns: []int{0, 3}}, {Name: "edge_label_w", Columns: []int{2, 3}}}})
	queries := []string{
		"SELECT id FROM node WHERE name BETWEEN 'n0100' AND 'n0102'",
		"SELECT id FROM node WHERE name > 'n2990'",
		"SELECT id FROM node WHERE tag >= 't48' AND tag < 't49'",
		"SELECT id, name FROM node ORDER BY name DESC LIMIT 3",
		"SELECT id, tag FROM node WHERE tag > 't1' ORDER BY tag LIMIT 3",
		"SELECT n.name, e.dst FROM node n JOIN edge e ON e.src = n.id WHERE n.name < 'n0003'",
		"SELECT src, dst FROM edge WHERE label = 'l7' AND w > 10",
		"SELECT src, w FROM edge WHERE src = 7 ORDER BY w DESC LIMIT 2",
		"SELECT label, w FROM edge ORDER BY label, w LIMIT 2",
		"SELECT id FROM node WHERE name LIKE 'n010%'",
	}
	checkExplainGolden(t, &Engine{Catalog: cat}, queries, "testdata/explain_ranges.golden")
}
