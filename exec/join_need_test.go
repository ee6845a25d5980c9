package exec

import (
	"context"
	"strings"
	"testing"
)

// joinNeeds lists the joins of p reached through the operators
// markJoinNeeds knows, preorder, each as the output columns it
// materializes ("all" for every column).
func joinNeeds(p plan) []string {
	var out []string
	var walk func(p plan)
	walk = func(p plan) {
		switch x := p.(type) {
		case *projectNode:
			walk(x.input)
		case *filterNode:
			walk(x.input)
		case *limitNode:
			walk(x.input)
		case *sortNode:
			walk(x.input)
		case *aggNode:
			walk(x.input)
		case *joinNode:
			if x.need == nil {
				out = append(out, "all")
			} else {
				var names []string
				for i, n := range x.need {
					if n {
						names = append(names, x.cols[i].name)
					}
				}
				out = append(out, strings.Join(names, ","))
			}
			walk(x.left)
			walk(x.right)
		}
	}
	walk(p)
	return out
}

// TestJoinNeeds: joins materialize only the columns the operators above
// read, and answer the same as when they materialize everything (the
// answers are PostgreSQL's); an expression markJoinNeeds cannot see into
// keeps every column below it.
func TestJoinNeeds(t *testing.T) {
	cat := NewMemCatalog()
	pt, err := NewMemTable([]ColumnDef{{Name: "id", Type: TInt8}, {Name: "name", Type: TText}, {Name: "age", Type: TInt4}},
		[][]any{{int64(1), "ann", int64(30)}, {int64(2), "bob", int64(50)}, {int64(3), "cy", int64(45)}, {int64(4), "di", nil}})
	if err != nil {
		t.Fatal(err)
	}
	pt.Keys = []int{0}
	cat.Add(&TableDef{Name: "p", Columns: pt.Cols, Source: pt, PrimaryKey: []int{0}})
	et, err := NewMemTable([]ColumnDef{{Name: "src", Type: TInt8}, {Name: "dst", Type: TInt8}, {Name: "since", Type: TInt4}, {Name: "w", Type: TInt4}},
		[][]any{{int64(1), int64(2), int64(2001), int64(5)}, {int64(1), int64(3), int64(2002), int64(7)}, {int64(2), int64(3), int64(2003), int64(1)},
			{int64(3), int64(1), int64(2004), int64(9)}, {int64(3), int64(4), int64(2005), nil}, {int64(2), int64(4), nil, int64(2)}})
	if err != nil {
		t.Fatal(err)
	}
	cat.Add(&TableDef{Name: "e", Columns: et.Cols, Source: et})
	eng := &Engine{Catalog: cat}
	for _, c := range []struct {
		sql   string
		needs string // per join, preorder
		want  string // rows, ";"-separated
	}{
		{"SELECT count(*), count(DISTINCT e3.dst) FROM e e1 JOIN e e2 ON e2.src = e1.dst JOIN e e3 ON e3.src = e2.dst WHERE e1.src = 1",
			"dst | dst", "4 4"},
		{"SELECT p.name FROM e JOIN p ON p.id = e.dst WHERE e.src = 1 ORDER BY p.name, e.since",
			"since,name", "bob;cy"},
		{"SELECT e1.src, p.age + 1 FROM e e1 JOIN p ON p.id = e1.dst WHERE e1.w > 4 ORDER BY 1, 2",
			"src,age", "1 46;1 51;3 31"},
		{"SELECT e2.dst, count(*) FROM e e1 JOIN e e2 ON e2.src = e1.dst WHERE e1.src = 1 AND e2.since > 2002 GROUP BY e2.dst ORDER BY 1",
			"dst", "1 1;3 1;4 1"},
		{"SELECT * FROM e e1 JOIN e e2 ON e2.src = e1.dst WHERE e1.src = 3 ORDER BY e2.dst",
			"src,dst,since,w,src,dst,since,w", "3 1 2004 9 1 2 2001 5;3 1 2004 9 1 3 2002 7"},
		// upper() is not a plain expression: the join keeps every column
		{"SELECT upper(p.name) FROM e JOIN p ON p.id = e.dst WHERE e.src = 2 ORDER BY 1",
			"all", "CY;DI"},
		{"SELECT e.src, p.name FROM e LEFT JOIN p ON p.id = e.dst AND p.age > 40 WHERE e.src = 2 ORDER BY 2",
			"src,name", "2 cy;2 NULL"},
	} {
		t.Run(c.sql, func(t *testing.T) {
			prep, err := eng.Prepare(c.sql, nil)
			if err != nil {
				t.Fatal(err)
			}
			needs := joinNeeds(prep.plan)
			if got := strings.Join(needs, " | "); got != c.needs {
				t.Errorf("joins materialize %q, want %q", got, c.needs)
			}
			res, err := eng.Query(context.Background(), nil, c.sql)
			if err != nil {
				t.Fatal(err)
			}
			var rows []string
			for _, row := range res.Rows() {
				var vals []string
				for _, v := range row {
					if v == nil {
						vals = append(vals, "NULL")
					} else {
						vals = append(vals, *v)
					}
				}
				rows = append(rows, strings.Join(vals, " "))
			}
			if got := strings.Join(rows, ";"); got != c.want {
				t.Errorf("answer %q, want %q", got, c.want)
			}
		})
	}
}
