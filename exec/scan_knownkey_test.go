package exec

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// columnsSource records the columns each key lookup asks for.
type columnsSource struct {
	*MemTable
	asked [][]int
}

func (c *columnsSource) LookupKeys(ctx context.Context, col int, keys *Vec, req ScanRequest, emit func(arrow.RecordBatch, []uint64) error) error {
	c.asked = append(c.asked, slices.Clone(req.Columns))
	return c.MemTable.LookupKeys(ctx, col, keys, req, emit)
}

// TestLookupOfOneKeySkipsKeyColumn: a lookup of one key of an identity
// type (integers, text) does not fetch the key column and still answers
// as before; other key types and several keys fetch it.
func TestLookupOfOneKeySkipsKeyColumn(t *testing.T) {
	cases := []struct {
		keyType Type
		key     func(i int) any
		skips   bool // the key column is not fetched for one key
	}{
		{TInt4, func(i int) any { return int64(i) }, true},
		{TInt8, func(i int) any { return int64(i) }, true},
		{TText, func(i int) any { return fmt.Sprintf("k%d", i) }, true},
		{TNumeric, func(i int) any { return fmt.Sprintf("%d.0", i) }, false},
	}
	for _, tc := range cases {
		cols := []ColumnDef{{Name: "k", Type: tc.keyType, NotNull: true}, {Name: "v", Type: TText}}
		rows := make([][]any, 100)
		for i := range rows {
			rows[i] = []any{tc.key(i), fmt.Sprintf("v%d", i)}
		}
		mt, err := NewMemTable(cols, rows)
		if err != nil {
			t.Fatal(err)
		}
		mt.Keys = []int{0}
		src := &columnsSource{MemTable: mt}
		cat := NewMemCatalog()
		cat.Add(&TableDef{Name: "t", Columns: cols, PrimaryKey: []int{0}, Source: src})
		eng := &Engine{Catalog: cat}
		lit := func(i int) string {
			if tc.keyType.Kind() == KStr {
				return fmt.Sprintf("'%s'", tc.key(i))
			}
			return fmt.Sprint(tc.key(i))
		}
		skips := tc.skips
		steps := []struct {
			sql      string
			want     string
			keyFetch bool // the lookup fetches column k
		}{
			{"SELECT v FROM t WHERE k = " + lit(7), "v7", !skips},
			{"SELECT k, v FROM t WHERE k = " + lit(7), fmt.Sprintf("%v,v7", tc.key(7)), !skips},
			{"SELECT * FROM t WHERE k = " + lit(8) + " AND v = 'v8'", fmt.Sprintf("%v,v8", tc.key(8)), !skips},
			{"SELECT count(*) FROM t WHERE k = " + lit(9), "1", !skips},
			{"SELECT count(*) FROM t WHERE k = " + lit(9) + " AND v = 'x'", "0", !skips},
			{"SELECT k FROM t WHERE k IN (" + lit(1) + ", " + lit(2) + ") ORDER BY 1", fmt.Sprintf("%v,%v", tc.key(1), tc.key(2)), true},
		}
		for _, st := range steps {
			src.asked = nil
			r, err := eng.Query(context.Background(), nil, st.sql)
			if err != nil {
				t.Fatalf("%s: %v", st.sql, err)
			}
			if got := oneText(t, r); got != st.want {
				t.Errorf("%v %s: got %q, want %q", tc.keyType, st.sql, got, st.want)
			}
			if len(src.asked) != 1 {
				t.Fatalf("%v %s: %d lookups", tc.keyType, st.sql, len(src.asked))
			}
			if fetched := slices.Contains(src.asked[0], 0); fetched != st.keyFetch {
				t.Errorf("%v %s: lookup asked for columns %v (key fetched %v, want %v)", tc.keyType, st.sql, src.asked[0], fetched, st.keyFetch)
			}
		}
	}
}
