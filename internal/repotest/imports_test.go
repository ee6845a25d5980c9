package repotest

import (
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// modulePath is the module's import path (go.mod).
const modulePath = "github.com/pggraph/pggraph"

// A layer is a rank and the packages (module-relative import paths, a
// trailing "/..." for a subtree) it holds. A package may import a
// package of a lower rank, or one of its own family (same rank and same
// family name: lance and lance/file, planner and planner/ddl). This is
// docs/architecture.md's rule "no package imports a layer above it",
// with the layers of its diagram:
//
//	wire → planner → exec, protocol (+ adapters, recovery) → graph, access → lance → objstore
//
// and two kinds of package outside the chain: tools (binaries, benchmark
// and end-to-end drivers), which may import anything, and leaf helpers,
// which import nothing of the module but other leaf helpers.
type layer struct {
	rank     int
	family   string
	packages []string
}

const (
	rankTools = 100
	rankLeaf  = 10
)

var layers = []layer{
	{rankTools, "tools", []string{"cmd/...", "exec/cmd/...", "internal/graphbench", "internal/soak", "internal/regress", "internal/regress/...", "internal/e2e", "internal/repotest", "objstore/storetest", "internal/s3test/cmd/...", "pgerr/internal/gencodes"}},
	// the web console is a SQL client of the protocol server (over an
	// in-process connection), above it and importing none of it
	{95, "console", []string{"console"}},
	{90, "wire", []string{"wire"}},
	{80, "planner", []string{"planner", "planner/..."}},
	{70, "exec", []string{"exec", "exec/lancesrc"}},
	// the write path: adapters drive the coordinator and recovery,
	// recovery resolves the coordinator's intents
	{63, "adapters", []string{"adapters"}},
	{62, "recovery", []string{"recovery"}},
	{61, "protocol", []string{"protocol"}},
	{50, "graph", []string{"graph"}},
	{50, "access", []string{"access"}},
	// replication slots and publications kept in the root, and the
	// pgoutput messages the change feed is streamed as
	{50, "replication", []string{"replication"}},
	{40, "lance", []string{"lance", "lance/..."}},
	{30, "objstore", []string{"objstore"}},
	{rankLeaf, "leaf", []string{"pgerr", "observe", "internal/failpoint", "internal/sqllex", "internal/sqlparse", "internal/pgq", "internal/pgtest", "internal/oracle", "internal/s3test"}},
}

// knownUpwardImports are the imports that break the rule today, each
// with why; the test reports them and fails on any other, and on an
// entry that no longer occurs (remove it when the import goes). The
// planner packages import the protocol server for its error type and
// SQLSTATE codes (and planner for the Backend interface it implements
// and the result types it returns); a leaf package for PostgreSQL errors
// that wire converts to an ErrorResponse is the planned way out.
var knownUpwardImports = map[string]string{
	"planner -> wire":          "implements wire.Backend; errors (wire.Error, wire.Errorf, Code*), result and statement types",
	"planner/graphsql -> wire": "errors (wire.Error, wire.IsCode) and result types for the graph views",
}

func layerOf(pkg string) (layer, bool) {
	for _, l := range layers {
		for _, p := range l.packages {
			if p == pkg || (strings.HasSuffix(p, "/...") && strings.HasPrefix(pkg, strings.TrimSuffix(p, "..."))) {
				return l, true
			}
		}
	}
	return layer{}, false
}

// allowed reports whether a package of layer from may import one of
// layer to.
func allowed(from, to layer) bool {
	switch {
	case from.rank == rankTools:
		return true
	case from.family == to.family:
		return true
	case from.rank == rankLeaf:
		return false // a leaf imports only leaves, which share its family
	default:
		return to.rank < from.rank
	}
}

// moduleImports maps each of the module's packages (module-relative, by
// directory) to the module packages its non-test files import, whatever
// their build tags. Test files may reach across layers (an exec test
// serves its engine through wire to drive psql), so they are not read.
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	for _, file := range goFiles(t) {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		dir, _ := filepath.Rel(moduleRoot, filepath.Dir(file))
		pkg := filepath.ToSlash(dir)
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if rel, ok := strings.CutPrefix(p, modulePath+"/"); ok {
				out[pkg] = append(out[pkg], rel)
			}
		}
	}
	return out
}

// TestImportRules enforces the layering of docs/architecture.md
// ("Layers") on every package of the module.
func TestImportRules(t *testing.T) {
	imports := moduleImports(t)
	seen := map[string]bool{}
	var violations []string
	pkgs := make([]string, 0, len(imports))
	for pkg := range imports {
		pkgs = append(pkgs, pkg)
	}
	sort.Strings(pkgs)
	for _, pkg := range pkgs {
		imps := imports[pkg]
		from, ok := layerOf(pkg)
		if !ok {
			t.Errorf("package %s has no layer: add it to the layer table here and to docs/architecture.md, \"Layers\"", pkg)
			continue
		}
		for _, imp := range imps {
			to, ok := layerOf(imp)
			if !ok || allowed(from, to) {
				continue // an unlisted target is reported as that package's own missing layer
			}
			edge := pkg + " -> " + imp
			if seen[edge] {
				continue
			}
			seen[edge] = true
			if why, known := knownUpwardImports[edge]; known {
				t.Logf("known exception: %s (%s)", edge, why)
				continue
			}
			violations = append(violations, edge+" ("+from.family+" may not import "+to.family+")")
		}
	}
	sort.Strings(violations)
	for _, v := range violations {
		t.Errorf("import against the layering of docs/architecture.md: %s", v)
	}
	for edge := range knownUpwardImports {
		if !seen[edge] {
			t.Errorf("known exception %q no longer occurs: remove it from knownUpwardImports", edge)
		}
	}
}

// TestImportRuleCases: the rule as the table states it.
func TestImportRuleCases(t *testing.T) {
	cases := []struct {
		from, to string
		ok       bool
	}{
		{"planner", "exec", true},
		{"planner", "protocol", true},
		{"adapters", "recovery", true},
		{"recovery", "protocol", true},
		{"protocol", "recovery", false},
		{"lance", "lance/file", true},
		{"planner/ddl", "planner/seq", true},
		{"lance", "graph", false},
		{"objstore", "lance", false},
		{"exec", "planner", false},
		{"planner", "wire", false},
		{"graph", "access", false},
		{"wire", "internal/sqllex", true},
		{"internal/sqlparse", "internal/pgq", true},
		{"internal/pgtest", "objstore", false},
		{"cmd/pgproxy", "wire", true},
		{"exec/cmd/execbench", "planner", true},
	}
	for _, tc := range cases {
		from, ok1 := layerOf(tc.from)
		to, ok2 := layerOf(tc.to)
		if !ok1 || !ok2 {
			t.Fatalf("%s or %s has no layer", tc.from, tc.to)
		}
		if got := allowed(from, to); got != tc.ok {
			t.Errorf("%s -> %s allowed = %v, want %v", tc.from, tc.to, got, tc.ok)
		}
	}
}

// TestEveryDirectoryWithGoCodeIsSeen guards moduleImports: it found the
// packages the layer table names.
func TestEveryDirectoryWithGoCodeIsSeen(t *testing.T) {
	imports := moduleImports(t)
	for _, pkg := range []string{"wire", "planner", "exec", "protocol", "graph", "lance", "objstore", "cmd/pgproxy"} {
		if _, ok := imports[pkg]; !ok {
			t.Errorf("no .go files read for %s", pkg)
		}
	}
	if _, err := os.Stat(path.Join(moduleRoot, "go.mod")); err != nil {
		t.Fatalf("module root: %v", err)
	}
}
