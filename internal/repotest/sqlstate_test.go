package repotest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// sqlstates are the SQLSTATE codes pgerr names (its generated
// pgerr/codes.go, PostgreSQL's errcodes.txt).
func sqlstates(t *testing.T) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(moduleRoot, "pgerr", "codes.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]bool{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, s := range gd.Specs {
			for _, v := range s.(*ast.ValueSpec).Values {
				if bl, ok := v.(*ast.BasicLit); ok && bl.Kind == token.STRING {
					c, _ := strconv.Unquote(bl.Value)
					codes[c] = true
				}
			}
		}
	}
	if len(codes) < 200 {
		t.Fatalf("read only %d SQLSTATEs from pgerr/codes.go", len(codes))
	}
	return codes
}

// sqlstateLiterals lists, as file:line, the string literals of src that
// are SQLSTATE codes.
func sqlstateLiterals(t *testing.T, fset *token.FileSet, file string, src any, codes map[string]bool) []string {
	t.Helper()
	f, err := parser.ParseFile(fset, file, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		if _, ok := n.(*ast.ImportSpec); ok {
			return false
		}
		bl, ok := n.(*ast.BasicLit)
		if !ok || bl.Kind != token.STRING {
			return true
		}
		if s, err := strconv.Unquote(bl.Value); err == nil && codes[s] {
			out = append(out, fset.Position(bl.Pos()).String()+": "+bl.Value)
		}
		return true
	})
	return out
}

// TestNoSQLSTATELiterals: code names a SQLSTATE by its pgerr constant
// (or a package's alias of one), never by its five characters, so every
// code the server can send is one searchable name (docs/architecture.md,
// "Layers"). Tests may spell codes out: they state what a client sees.
func TestNoSQLSTATELiterals(t *testing.T) {
	codes := sqlstates(t)
	fset := token.NewFileSet()
	for _, file := range goFiles(t) {
		rel, _ := filepath.Rel(moduleRoot, file)
		if strings.HasSuffix(file, "_test.go") || strings.HasPrefix(filepath.ToSlash(rel), "pgerr/") {
			continue
		}
		for _, lit := range sqlstateLiterals(t, fset, file, nil, codes) {
			t.Errorf("raw SQLSTATE literal %s: use the pgerr constant", lit)
		}
	}
}

// TestSQLSTATELiteralCases: the check finds a code in an expression and
// passes over comments, imports and other five-character strings.
func TestSQLSTATELiteralCases(t *testing.T) {
	codes := sqlstates(t)
	src := `package p

// "42P01" in a comment
import _ "fmt"

var a = f("42P01", "ERROR", "HELLO")
var b = map[string]bool{"23505": true}
`
	got := sqlstateLiterals(t, token.NewFileSet(), "p.go", src, codes)
	if len(got) != 2 || !strings.Contains(got[0], `"42P01"`) || !strings.Contains(got[1], `"23505"`) {
		t.Fatalf("found %q, want the 42P01 of a and the 23505 of b", got)
	}
}
