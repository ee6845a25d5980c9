package exec

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

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
			// several keys of an identity type: a key-only lookup gives the
			// keys without fetching them; others fetch the stored values
			{"SELECT k FROM t WHERE k IN (" + lit(1) + ", " + lit(2) + ") ORDER BY 1", fmt.Sprintf("%v,%v", tc.key(1), tc.key(2)), !skips},
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

// TestExactKeyConjunctLeavesFilter: `k = $1` on an identity-typed key
// with a parameter of the key's type is answered by the lookup alone (no
// filter above the scan); other conjuncts, and a key compared with a
// value of another type, stay in the filter. Answers are unchanged,
// NULL keys included.
func TestExactKeyConjunctLeavesFilter(t *testing.T) {
	cat, _ := peopleTable(t, 50)
	eng := &Engine{Catalog: cat}
	hasFilter := func(p plan) bool {
		for p != nil {
			switch x := p.(type) {
			case *filterNode:
				return true
			case *projectNode:
				p = x.input
			default:
				return false
			}
		}
		return false
	}
	cases := []struct {
		sql      string
		declared []uint32
		params   []any
		filtered bool
		want     string
	}{
		{"SELECT name FROM people WHERE id = $1", nil, []any{int64(7)}, false, "p7"},
		{"SELECT name FROM people WHERE id = $1", nil, []any{nil}, false, ""},
		{"SELECT name FROM people WHERE id = 7", nil, nil, false, "p7"},
		{"SELECT name FROM people WHERE id = $1 AND grp = 7", nil, []any{int64(7)}, true, "p7"},
		{"SELECT name FROM people WHERE id = $1 AND grp = 8", nil, []any{int64(7)}, true, ""},
		{"SELECT name FROM people WHERE id = $1", []uint32{OIDInt4}, []any{int64(9)}, false, "p9"},
		{"SELECT name FROM people WHERE name = $1", []uint32{OIDText}, []any{"p9"}, true, "p9"},
		{"SELECT name FROM people WHERE id IN (7, 8) ORDER BY 1", nil, nil, false, "p7,p8"},
	}
	for _, c := range cases {
		p, err := eng.Prepare(c.sql, c.declared)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		inner := p.plan
		if s, ok := inner.(*sortNode); ok {
			inner = s.input
		}
		if got := hasFilter(inner); got != c.filtered && !strings.Contains(c.sql, " IN ") {
			t.Errorf("%s (declared %v): filter above the scan = %v, want %v", c.sql, c.declared, got, c.filtered)
		}
		r, err := p.Execute(context.Background(), nil, c.params)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if got := oneText(t, r); got != c.want {
			t.Errorf("%s %v: got %q, want %q", c.sql, c.params, got, c.want)
		}
	}
}

// TestVarcharKeyComparedWithLongerText: a varchar(3) key compared with a
// longer text value matches nothing, though the value cast to the key's
// type would be an existing key ('abcdef' cut to 'abc').
func TestVarcharKeyComparedWithLongerText(t *testing.T) {
	vc3 := Type{OID: OIDVarchar, Mod: 3 + 4}
	cols := []ColumnDef{{Name: "k", Type: vc3, NotNull: true}, {Name: "v", Type: TText}}
	mt, err := NewMemTable(cols, [][]any{{"abc", "x"}, {"abd", "y"}})
	if err != nil {
		t.Fatal(err)
	}
	mt.Keys = []int{0}
	cat := NewMemCatalog()
	cat.Add(&TableDef{Name: "t", Columns: cols, PrimaryKey: []int{0}, Source: mt})
	eng := &Engine{Catalog: cat}
	for _, c := range []struct {
		sql    string
		params []any
		want   string
	}{
		{"SELECT v FROM t WHERE k = 'abcdef'", nil, ""},
		{"SELECT v FROM t WHERE k = $1::text", []any{"abcdef"}, ""},
		{"SELECT v FROM t WHERE k = $1", []any{"abd"}, "y"},
		{"SELECT v FROM t WHERE k = 'abc'", nil, "x"},
	} {
		r, err := eng.Query(context.Background(), nil, c.sql, c.params...)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if got := oneText(t, r); got != c.want {
			t.Errorf("%s %v: got %q, want %q", c.sql, c.params, got, c.want)
		}
	}
}
