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
		{`SELECT "Found" , found, t.* FROM t`, "Found@7-14 found@17-22 t.*@24-27"},
		{`SELECT * FROM t`, ""},
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

// FuzzParsePLpgSQL: any text sent as a DO statement compiles or fails
// with an error; the PL/pgSQL grammar never takes the process down.
func FuzzParsePLpgSQL(f *testing.F) {
	for _, s := range []string{
		`DO $$ BEGIN NULL; END $$`,
		`DO 'BEGIN CREATE TYPE x AS ENUM(''a''); EXCEPTION WHEN duplicate_object THEN null; END'`,
		`DO $$ DECLARE r record; BEGIN FOR r IN SELECT 1 LOOP EXECUTE 'x' || r.a; END LOOP; END $$`,
		`DO $$ BEGIN IF (SELECT 1) THEN RAISE NOTICE '% %', 1, 2; ELSIF 2 THEN PERFORM 1; END IF; END $$`,
		`DO $$ <<l>> DECLARE x int := 1; BEGIN WHILE x < 3 LOOP x := x + 1; EXIT l WHEN x > 5; END LOOP; END $$`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		_, _ = ParsePLpgSQL(sql)
		_, _ = Words(sql)
		_, _ = ColumnRefs(sql)
	})
}
