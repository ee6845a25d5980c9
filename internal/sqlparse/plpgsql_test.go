package sqlparse

import (
	"fmt"
	"strings"
	"testing"
)

// TestColumnRefs: only the grammar's column references are listed, with
// spans covering their qualified names.
func TestColumnRefs(t *testing.T) {
	cases := []struct{ sql, want string }{
		{"SELECT x + 1", "x@7-8"},
		{"INSERT INTO t (x) VALUES (x)", "x@26-27"},
		{"UPDATE t SET x = r.x WHERE t.y = y", "r.x@17-20 t.y@27-30 y@33-34"},
		{"SELECT f(x) AS x FROM x", "x@9-10"},
		{`SELECT "Found" , found, t.* FROM t`, "Found@7-14 found@17-22"},
		{"SELECT quote_ident(r . relname)", "r.relname@19-30"},
	}
	for _, tc := range cases {
		refs, err := ColumnRefs(tc.sql)
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		var got []string
		for _, r := range refs {
			got = append(got, fmt.Sprintf("%s@%d-%d", strings.Join(r.Names, "."), r.Start, r.End))
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%s: %s, want %s", tc.sql, g, tc.want)
		}
	}
}
