package graphsql

import (
	"strings"
	"testing"
)

// FuzzCallArgs: the argument scanner never panics on any text, and every
// span it returns is a slice of the input at its offset.
func FuzzCallArgs(f *testing.F) {
	for _, s := range []string{
		"CALL graph.f('a', 'b')",
		"CALL graph.f(E'x\\'', $$y$$, $t$z$t$, \"q\"\"q\", /* c /* n */ */ 1 -- l\n)",
		"CALL graph.f(",
		"CALL graph.f('unterminated",
		"CALL graph.f($",
		"CALL graph.f([1,2)",
		"SELECT graph.f(a => 1, b := (2))",
	} {
		f.Add(s, 0)
		f.Add(s, strings.Index(s, "graph"))
	}
	f.Fuzz(func(t *testing.T, sql string, loc int) {
		args, ok := callArgs(sql, loc)
		if !ok {
			return
		}
		for _, a := range args {
			if a.offset < 0 || a.offset+len(a.text) > len(sql) || sql[a.offset:a.offset+len(a.text)] != a.text {
				t.Fatalf("span %+v is not in %q", a, sql)
			}
			n := stripArgName(a)
			if n.offset < a.offset || n.offset+len(n.text) > len(sql) || sql[n.offset:n.offset+len(n.text)] != n.text {
				t.Fatalf("named span %+v is not in %q", n, sql)
			}
		}
	})
}

// FuzzParse: recognizing a graph call in any statement text never
// panics; a recognized call's argument spans are slices of the text and
// an error is always a SQLSTATE-carrying *wire.Error.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"CALL graph.create_branch('x', 'main', now())",
		"SELECT graph.merge(from => 'a')",
		"SELECT * FROM graph.optimize('t') AS o(c)",
		"SELECT graph.nope(1, 'a'::text)",
		"SELECT graph.recover(), 1",
		"SELECT * FROM graph.cleanup() WITH ORDINALITY",
		"CALL graph.delete_branch($1)",
		"SELECT 1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		inv, err := Parse(sql)
		if err != nil {
			if asWire(err) == nil || len(asWire(err).Code) != 5 {
				t.Fatalf("error without SQLSTATE: %v", err)
			}
			return
		}
		if inv == nil {
			return
		}
		for _, a := range inv.args {
			if a != nil && (a.offset < 0 || a.offset+len(a.text) > len(sql) || sql[a.offset:a.offset+len(a.text)] != a.text) {
				t.Fatalf("span %+v is not in %q", a, sql)
			}
		}
	})
}
