package exec

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"
)

// deepWideShapes generate statements that are deep (nesting, long
// operator chains, stacked subqueries and CTEs) or wide (IN lists, UNION
// arms, VALUES rows, CASE arms, select lists, long identifiers) with n
// levels or items; term is spliced in where a leaf value goes.
var deepWideShapes = []struct {
	name string
	gen  func(n int, term string) string
}{
	{"operator chain", func(n int, x string) string { return "SELECT " + repeatSep(x, "+", n) }},
	{"parentheses", func(n int, x string) string {
		return "SELECT " + strings.Repeat("(", n) + x + strings.Repeat(")", n)
	}},
	{"nested subqueries", func(n int, x string) string {
		return "SELECT " + strings.Repeat("(SELECT ", n) + x + strings.Repeat(")", n)
	}},
	{"nested function calls", func(n int, x string) string {
		return "SELECT " + strings.Repeat("abs(", n) + x + strings.Repeat(")", n)
	}},
	{"nested CASE", func(n int, x string) string {
		return "SELECT " + strings.Repeat("CASE WHEN true THEN ", n) + x + strings.Repeat(" END", n)
	}},
	{"stacked CTEs", func(n int, x string) string {
		var b strings.Builder
		b.WriteString("WITH c0 AS (SELECT " + x + " AS v)")
		for i := 1; i < n; i++ {
			b.WriteString(", c" + strconv.Itoa(i) + " AS (SELECT v FROM c" + strconv.Itoa(i-1) + ")")
		}
		return b.String() + " SELECT * FROM c" + strconv.Itoa(n-1)
	}},
	{"IN list", func(n int, x string) string { return "SELECT " + x + " IN (" + repeatSep(x, ",", n) + ")" }},
	{"UNION arms", func(n int, x string) string { return repeatSep("SELECT "+x, " UNION ", n) }},
	{"UNION ALL arms", func(n int, x string) string {
		return "SELECT count(*) FROM (" + repeatSep("SELECT "+x, " UNION ALL ", n) + ") s"
	}},
	{"VALUES rows", func(n int, x string) string {
		return "SELECT count(*) FROM (VALUES " + repeatSep("("+x+")", ",", n) + ") v"
	}},
	{"CASE arms", func(n int, x string) string {
		return "SELECT CASE " + strings.Repeat("WHEN "+x+" = 0 THEN 1 ", n) + "ELSE 2 END"
	}},
	{"OR chain", func(n int, x string) string { return "SELECT " + repeatSep(x+" = 1", " OR ", n) }},
	{"select list", func(n int, x string) string { return "SELECT " + repeatSep(x, ", ", n) }},
	{"long identifier", func(n int, x string) string {
		return "SELECT " + x + " AS " + strings.Repeat("a", n) + ", \"" + strings.Repeat("b", n) + "\""
	}},
	{"nested array literal", func(n int, x string) string {
		return "SELECT '" + strings.Repeat("{", n) + x + strings.Repeat("}", n) + "'::int[]"
	}},
	{"nested jsonb literal", func(n int, x string) string {
		return "SELECT '" + strings.Repeat("[", n) + x + strings.Repeat("]", n) + "'::jsonb"
	}},
	{"cross join of series", func(n int, x string) string {
		return "SELECT count(*) FROM " + repeatSep("generate_series(1, 2)", ", ", n%12+1) + " WHERE " + x + " IS NOT NULL"
	}},
}

func repeatSep(term, sep string, n int) string {
	n = max(n, 1)
	var b strings.Builder
	b.Grow(n * (len(term) + len(sep)))
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(term)
	}
	return b.String()
}

// runHostile runs sql and reports a failure that must not happen: a
// panic (recovered as XX000), an error without a SQLSTATE, or a hang.
func runHostile(t *testing.T, eng *Engine, name, sql string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := eng.Query(ctx, nil, sql)
	code := Code(err)
	switch {
	case err == nil:
	case code == CodeInternalError:
		t.Fatalf("%s (%d bytes): internal error: %v", name, len(sql), err)
	case code == "" && !strings.Contains(err.Error(), "context"):
		t.Fatalf("%s (%d bytes): error without SQLSTATE: %v", name, len(sql), err)
	}
	return code
}

// TestDeepAndWideStatements: every shape at depths and widths around and
// past the limits answers (a result, 54001 for what is too deep, or
// another SQLSTATE) and never panics; the deepest ones answer 54001.
func TestDeepAndWideStatements(t *testing.T) {
	eng := &Engine{Catalog: NewMemCatalog(), MemoryLimit: 256 << 20, RecursionLimit: 100}
	deep := map[string]bool{"operator chain": true, "parentheses": true, "nested subqueries": true,
		"nested function calls": true, "nested CASE": true, "UNION arms": true, "UNION ALL arms": true,
		"nested jsonb literal": true}
	// PostgreSQL 15's answer past its limits where it is not 54001: an
	// array literal of more than six dimensions is 54000 however deep
	limited := map[string]string{"nested array literal": CodeProgramLimitExceeded}
	for _, s := range deepWideShapes {
		// (wide shapes stop at 5,000 items: each item costs binding time,
		// and past the bound nothing new happens to them)
		for _, n := range []int{1, 1000, 5000, 20000} {
			if n == 20000 && !deep[s.name] {
				continue
			}
			code := runHostile(t, eng, s.name, s.gen(n, "1"))
			if n == 20000 && code != CodeStackDepthExceeded {
				t.Errorf("%s, %d levels: got %q, want 54001", s.name, n, code)
			}
			if want, ok := limited[s.name]; ok && n >= 1000 && code != want {
				t.Errorf("%s, %d levels: got %q, want %s", s.name, n, code, want)
			}
		}
	}
}

// FuzzDeepWideStatements: generated deep and wide statements of any
// shape, size and leaf text never panic the engine.
func FuzzDeepWideStatements(f *testing.F) {
	for i := range deepWideShapes {
		f.Add(uint8(i), uint16(3000), "1")
		f.Add(uint8(i), uint16(7000), "'x'")
	}
	f.Add(uint8(0), uint16(65535), "(1)")
	eng := &Engine{Catalog: NewMemCatalog(), MemoryLimit: 64 << 20, RecursionLimit: 100}
	f.Fuzz(func(t *testing.T, shape uint8, n uint16, term string) {
		if len(term) > 64 {
			return
		}
		s := deepWideShapes[int(shape)%len(deepWideShapes)]
		runHostile(t, eng, s.name, s.gen(int(n), term))
	})
}
