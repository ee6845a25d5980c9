package failpoint

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// moduleRoot finds the directory holding go.mod above this package.
func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found")
		}
		dir = parent
	}
}

// badCallSites returns "file:line" for every failpoint call whose point
// argument is not a declared constant: a string literal, or a conversion
// such as failpoint.Point("x").
func badCallSites(t *testing.T, fset *token.FileSet, f *ast.File) []string {
	local := ""
	for _, imp := range f.Imports {
		if strings.Trim(imp.Path.Value, `"`) == "github.com/pggraph/pggraph/internal/failpoint" {
			local = "failpoint"
			if imp.Name != nil {
				local = imp.Name.Name
			}
		}
	}
	inPackage := f.Name.Name == "failpoint"
	if local == "" && !inPackage {
		return nil
	}
	var bad []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		name := ""
		switch fn := call.Fun.(type) {
		case *ast.SelectorExpr:
			if id, ok := fn.X.(*ast.Ident); ok && id.Name == local {
				name = fn.Sel.Name
			}
		case *ast.Ident:
			if inPackage {
				name = fn.Name
			}
		}
		switch name {
		case "Inject", "Enable", "Disable":
		default:
			return true
		}
		if !isConstantRef(call.Args[0], local, inPackage) {
			bad = append(bad, fset.Position(call.Pos()).String())
		}
		return true
	})
	return bad
}

// isConstantRef accepts an identifier or pkg.Identifier (a declared
// constant, or a loop variable over All); anything else — literals,
// conversions, concatenations — is rejected.
func isConstantRef(e ast.Expr, local string, inPackage bool) bool {
	switch v := e.(type) {
	case *ast.Ident:
		return true
	case *ast.SelectorExpr:
		id, ok := v.X.(*ast.Ident)
		return ok && (id.Name == local || !inPackage)
	}
	return false
}

func TestCallSitesUseConstants(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	var bad []string
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		bad = append(bad, badCallSites(t, fset, f)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 10 {
		t.Fatalf("walked only %d files; the walk is broken", files)
	}
	if len(bad) > 0 {
		t.Fatalf("failpoint calls must name a declared Point constant, not a literal:\n%s", strings.Join(bad, "\n"))
	}
}

// The checker itself must catch literals and conversions.
func TestCallSiteCheckerCatchesLiterals(t *testing.T) {
	src := `package x
import fp "github.com/pggraph/pggraph/internal/failpoint"
func f() {
	_ = fp.Inject(fp.ServeBeforeListen)
	_ = fp.Inject("typo/point")
	_ = fp.Inject(fp.Point("made/up"))
	fp.Disable("x" + "y")
}`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := badCallSites(t, fset, f); len(got) != 3 {
		t.Fatalf("checker flagged %v, want the 3 non-constant call sites", got)
	}
}
