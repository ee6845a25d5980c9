package exec

import (
	"context"
	"testing"
)

// TestCommaJoinOrder: FROM a, b, c WHERE a.id = c.id AND b.id = c.id
// joins c before b (a and b are unrelated): in FROM order the first join
// is a cross product whose pair buffers exceed the memory limit
// here. Each query's answer is PostgreSQL's, columns in FROM order.
func TestCommaJoinOrder(t *testing.T) {
	cat := NewMemCatalog()
	const n = 3000
	for _, name := range []string{"a", "b", "c"} {
		rows := make([][]any, n)
		for i := range rows {
			rows[i] = []any{int64(i), name}
		}
		mt, err := NewMemTable([]ColumnDef{{Name: "id", Type: TInt8}, {Name: "tag", Type: TText}}, rows)
		if err != nil {
			t.Fatal(err)
		}
		cat.Add(&TableDef{Name: name, Columns: mt.Cols, Source: mt})
	}
	eng := &Engine{Catalog: cat, MemoryLimit: 1 << 20}
	cases := []struct{ sql, want string }{
		{"SELECT count(*) FROM a, b, c WHERE a.id = c.id AND b.id = c.id", "3000"},
		{"SELECT * FROM a, b, c WHERE a.id = c.id AND b.id = c.id AND c.id = 7", "7 a 7 b 7 c"},
		{"SELECT b.tag, c.tag, a.* FROM a, b, c WHERE c.id = b.id + 1 AND a.id = c.id + 1 AND b.id = 5", "b c 7 a"},
		{"SELECT count(*) FROM a, b, c, a AS d WHERE a.id = c.id AND b.id = d.id AND c.id = d.id AND a.id < 10", "10"},
	}
	for _, c := range cases {
		res, err := eng.Query(context.Background(), nil, c.sql)
		if err != nil {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		got := ""
		for _, row := range res.Rows() {
			for i, v := range row {
				if i > 0 {
					got += " "
				}
				got += *v
			}
		}
		if got != c.want {
			t.Errorf("%s: got %q, want %q", c.sql, got, c.want)
		}
	}
}
