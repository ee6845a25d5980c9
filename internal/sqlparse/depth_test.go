package sqlparse

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/pggraph/pggraph/internal/sqllex"
)

// treeDepth is how deeply the protobuf form of a parse tree nests: what
// the C converter and the Go decoder recurse over.
func treeDepth(m protoreflect.Message) int {
	best := 0
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind {
			return true
		}
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				best = max(best, treeDepth(l.Get(i).Message()))
			}
			return true
		}
		best = max(best, treeDepth(v.Message()))
		return true
	})
	return best + 1
}

// parseDeep parses sql with no recursion limit on the Go side, to measure
// trees the decoder would refuse; the caller keeps sql small enough for
// the C side.
func parseDeep(t testing.TB, sql string) (*pg_query.ParseResult, bool) {
	t.Helper()
	if !utf8.ValidString(sql) {
		return nil, false // protobuf strings must be UTF-8; the server refuses such text earlier (22021)
	}
	raw, err := parser.ParseToProtobuf(sql)
	if err != nil {
		return nil, false
	}
	var tree pg_query.ParseResult
	if err := (proto.UnmarshalOptions{RecursionLimit: 1 << 20}).Unmarshal(raw, &tree); err != nil {
		t.Fatalf("decode %q: %v", sql, err)
	}
	return &tree, true
}

// protoLevelsPerBound is how many protobuf levels one unit of
// sqllex.NestingBound may stand for (an expression level is a Node and its
// payload; a group such as a function call or sublink adds a few more).
// The bound is safe only if every tree stays within it.
const protoLevelsPerBound, protoLevelsConst = 4, 24

func checkBound(t *testing.T, sql string) {
	t.Helper()
	tree, ok := parseDeep(t, sql)
	if !ok {
		return // the grammar refused it: no tree to walk
	}
	depth := treeDepth(tree.ProtoReflect())
	if bound := sqllex.NestingBound(sql); depth > protoLevelsPerBound*bound+protoLevelsConst {
		t.Errorf("NestingBound = %d but the tree nests %d protobuf levels: %.200q", bound, depth, sql)
	}
}

func TestNestingBoundCoversTrees(t *testing.T) {
	for _, sql := range nestingShapes(300) {
		checkBound(t, sql)
	}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 400; i++ {
		checkBound(t, randomStatement(r, 6))
	}
}

// TestNestingBoundStaysSmallForWideStatements: long but flat statements
// (bulk VALUES, IN lists, OR chains, CASE arms) must not be refused.
func TestNestingBoundStaysSmallForWideStatements(t *testing.T) {
	wide := map[string]string{
		"values":     "INSERT INTO t VALUES " + repeatJoin("(1, 'a+b', 2*3)", ",", 50000),
		"in list":    "SELECT 1 WHERE x IN (" + repeatJoin("1", ",", 100000) + ")",
		"or":         "SELECT 1 WHERE " + repeatJoin("x = 1", " OR ", 50000),
		"and/or":     "SELECT 1 WHERE " + repeatJoin("x = 1 AND y > 2", " OR ", 30000),
		"case":       "SELECT CASE " + strings.Repeat("WHEN x = 1 THEN 2 ", 30000) + "END",
		"between":    "SELECT 1 WHERE " + repeatJoin("x BETWEEN 1 AND 2", " AND ", 30000),
		"strings":    "SELECT '" + strings.Repeat("1+(", 50000) + "', $$" + strings.Repeat("+[", 50000) + "$$, E'\\'" + strings.Repeat("-", 50000) + "'",
		"comment":    "SELECT 1 /* " + strings.Repeat("+(", 50000) + " */ -- " + strings.Repeat("+", 50000),
		"ident":      "SELECT 1 AS \"" + strings.Repeat("a+", 50000) + "\"",
		"targets":    "SELECT " + repeatJoin("a+b*c", ", ", 50000),
		"stmts":      repeatJoin("SELECT 1+1+1", ";", 50000),
		"subscripts": "SELECT x" + strings.Repeat("[1]", 50000),
	}
	for name, sql := range wide {
		if b := sqllex.NestingBound(sql); b > 50 {
			t.Errorf("%s: NestingBound = %d for a flat statement", name, b)
		}
	}
}

// TestDeepStatementsAnswer54001: whatever the shape, a statement nested
// too deeply is refused with a *StackDepthError and the process lives
// (before the bound, 50,000 terms of 1+1+… killed it in the C parser).
func TestDeepStatementsAnswer54001(t *testing.T) {
	for _, sql := range nestingShapes(60000) {
		_, err := Parse(sql)
		if err == nil {
			t.Errorf("%.60q… parsed", sql)
			continue
		}
		if !IsStackDepthError(err) && !IsSyntaxError(err) {
			t.Errorf("%.60q…: %v", sql, err)
		}
	}
	// left-deep shapes the grammar builds without recursion are exactly
	// the ones the bound must catch
	for _, sql := range []string{chain("1", "+", 60000), chain("SELECT 1", " UNION ALL ", 60000), "SELECT 1 FROM t " + strings.Repeat("JOIN t ON true ", 60000)} {
		if _, err := Parse(sql); !IsStackDepthError(err) {
			t.Errorf("%.60q…: %v, want a stack depth error", sql, err)
		}
	}
}

// nestingShapes are deep statements of every shape that nests, n levels
// each.
func nestingShapes(n int) []string {
	return []string{
		"SELECT " + chain("1", "+", n),
		"SELECT " + chain("x", " || ", n),
		"SELECT " + chain("1", "+-", n),
		"SELECT 1" + strings.Repeat("::int", n),
		"SELECT " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n),
		"SELECT " + strings.Repeat("abs(", n) + "1" + strings.Repeat(")", n),
		"SELECT " + strings.Repeat("ARRAY[", n) + "1" + strings.Repeat("]", n),
		"SELECT " + strings.Repeat("(SELECT ", n) + "1" + strings.Repeat(")", n),
		"SELECT " + strings.Repeat("NOT ", n) + "true",
		"SELECT " + strings.Repeat("- ", n) + "1",
		"SELECT true" + strings.Repeat(" IS TRUE", n),
		"SELECT 1" + strings.Repeat(" BETWEEN 0 AND 5 IS TRUE", n),
		"SELECT " + strings.Repeat("CASE WHEN true THEN ", n) + "1" + strings.Repeat(" END", n),
		"SELECT CASE WHEN " + chain("1", "+", n/2) + " = 1 OR true THEN 1 END" + strings.Repeat("+1", n/2),
		"SELECT 'a'" + strings.Repeat(" COLLATE \"C\"", n),
		"SELECT now()" + strings.Repeat(" AT TIME ZONE 'UTC'", n),
		"SELECT " + chain("x", " OPERATOR(pg_catalog.+) ", n),
		"SELECT 'a'" + strings.Repeat(" LIKE 'a'", n),
		chain("SELECT 1", " UNION ALL ", n),
		chain("(SELECT 1)", " INTERSECT ", n),
		"SELECT 1 FROM t " + strings.Repeat("JOIN t ON true ", n),
		"SELECT 1 FROM " + strings.Repeat("(", n) + "t" + strings.Repeat(" JOIN t ON true)", n),
		"SELECT 1 WHERE " + strings.Repeat("x = 1 OR (", n) + "true" + strings.Repeat(")", n),
		"SELECT '{}'::jsonb" + strings.Repeat(" -> 'a'", n),
		"SELECT ROW(" + strings.Repeat("ROW(", n) + "1" + strings.Repeat(")", n+1),
	}
}

func chain(term, op string, n int) string { return repeatJoin(term, op, n) }

func repeatJoin(term, sep string, n int) string {
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

// randomStatement builds a random query mixing every nesting construct.
func randomStatement(r *rand.Rand, depth int) string {
	switch r.Intn(4) {
	case 0:
		return randomQuery(r, depth) + " UNION " + randomQuery(r, depth)
	case 1:
		return "INSERT INTO t VALUES (" + randomExpr(r, depth) + ", " + randomExpr(r, depth) + ")"
	default:
		return randomQuery(r, depth)
	}
}

func randomQuery(r *rand.Rand, depth int) string {
	from := "t"
	for i := r.Intn(3); i > 0; i-- {
		from += " JOIN u ON " + randomExpr(r, depth-1)
	}
	return fmt.Sprintf("SELECT %s FROM %s WHERE %s", randomExpr(r, depth), from, randomExpr(r, depth))
}

func randomExpr(r *rand.Rand, depth int) string {
	if depth <= 0 {
		return []string{"1", "x", "'a+('", "$$[$$", "E'\\''", "\"q+\"", "$1", "t.y"}[r.Intn(8)]
	}
	sub := func() string { return randomExpr(r, depth-1) }
	switch r.Intn(16) {
	case 0:
		return sub() + " + " + sub() + " * " + sub()
	case 1:
		return sub() + " AND " + sub() + " OR " + sub()
	case 2:
		return "NOT " + sub()
	case 3:
		return "(" + sub() + ")"
	case 4:
		return "abs(" + sub() + ", " + sub() + ")"
	case 5:
		return "CASE WHEN " + sub() + " THEN " + sub() + " ELSE " + sub() + " END"
	case 6:
		return sub() + " BETWEEN " + sub() + " AND " + sub()
	case 7:
		return sub() + "::int"
	case 8:
		return "ARRAY[" + sub() + ", " + sub() + "]"
	case 9:
		return "(SELECT " + sub() + " FROM t)"
	case 10:
		return sub() + " IS NOT NULL"
	case 11:
		return sub() + " IN (" + sub() + ", " + sub() + ")"
	case 12:
		return sub() + " COLLATE \"C\""
	case 13:
		return "EXISTS (" + randomQuery(r, depth-1) + ")"
	case 14:
		return sub() + " /* + ( */ - -- x\n" + sub()
	default:
		return sub() + " || " + sub()
	}
}

// FuzzParseSurvives: no text kills the process, and a tree the parser
// returns is never deeper than the bound allows.
func FuzzParseSurvives(f *testing.F) {
	for _, s := range nestingShapes(50) {
		f.Add(s)
	}
	f.Add("SELECT E'\\'' + 1")
	f.Add("SELECT $a$ ) $a$ + (1)")
	f.Fuzz(func(t *testing.T, sql string) {
		if len(sql) > 20000 {
			return
		}
		if _, err := Parse(sql); err != nil && !IsSyntaxError(err) && !IsStackDepthError(err) {
			t.Fatalf("%q: %T %v", sql, err, err)
		}
		checkBound(t, sql)
	})
}
