package ddl

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pggraph/pggraph/graph"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/wire"
)

var update = flag.Bool("update", false, "rewrite golden files")

// memCatalog is an empty base catalog.
type memCatalog struct{}

func (memCatalog) Table(string) (graph.TableEntry, bool) { return graph.TableEntry{}, false }
func (memCatalog) Tables() []graph.TableEntry            { return nil }

// planScript plans every statement of a script in order against one
// overlay and renders each result: the changes as JSON, or the error's
// SQLSTATE and message.
func planScript(t *testing.T, script string) string {
	t.Helper()
	stmts, err := q.Split(script)
	if err != nil {
		t.Fatalf("split: %v", err)
	}
	n := 0
	p := Planner{NewKey: func() string { n++; return fmt.Sprintf("key-%d", n) }}
	ov := NewOverlay(memCatalog{})
	nextID := uint64(100)
	var out strings.Builder
	for _, s := range stmts {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		fmt.Fprintf(&out, "-- %s\n", strings.ReplaceAll(s, "\n", "\n-- "))
		tree, err := q.Parse(s)
		if err != nil {
			fmt.Fprintf(&out, "ERROR 42601: %v\n\n", err)
			continue
		}
		changes, err := p.Plan(tree.Stmts[0].Stmt, ov)
		if err != nil {
			out.WriteString(renderError(err))
			out.WriteString("\n")
			continue
		}
		ov.Apply(allocateIDs(changes, &nextID)...)
		for _, c := range changes {
			c = withoutExtra(t, c)
			enc := json.NewEncoder(&out)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(struct {
				Type   string `json:"type"`
				Tag    string `json:"tag"`
				Change Change `json:"change"`
			}{fmt.Sprintf("%T", c)[len("*ddl."):], c.Tag(), c}); err != nil {
				t.Fatal(err)
			}
			for _, nt := range c.Notices() {
				fmt.Fprintf(&out, "NOTICE %s: %s\n", nt.Code, nt.Message)
			}
		}
		out.WriteString("\n")
	}
	return out.String()
}

func renderError(err error) string {
	we, ok := err.(*wire.Error)
	if !ok {
		return fmt.Sprintf("ERROR (untyped): %v\n", err)
	}
	s := fmt.Sprintf("ERROR %s: %s\n", we.Code, we.Message)
	if we.Detail != "" {
		s += "DETAIL: " + we.Detail + "\n"
	}
	if we.Hint != "" {
		s += "HINT: " + we.Hint + "\n"
	}
	return s
}

// TestGolden plans each testdata/*.sql script and compares with the
// .golden file next to it (go test -update rewrites them).
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got := planScript(t, string(src))
			gf := strings.TrimSuffix(f, ".sql") + ".golden"
			if *update {
				if err := os.WriteFile(gf, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(gf)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from %s:\n%s", f, gf, firstDiff(string(want), got))
			}
		})
	}
}

func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\nwant: %s\n got: %s", i+1, w, g)
		}
	}
	return ""
}

// withoutExtra checks that a definition's Extra decodes to the change's
// Meta and drops it from the rendering (it would repeat Meta).
func withoutExtra(t *testing.T, c Change) Change {
	t.Helper()
	check := func(name string, def graph.TableDef, m TableMeta) graph.TableDef {
		got, err := DecodeMeta(name, def)
		if err != nil {
			t.Fatalf("%s: Extra does not decode: %v", name, err)
		}
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(m)
		if string(a) != string(b) {
			t.Fatalf("%s: Extra decodes to\n%s\nwant meta\n%s", name, a, b)
		}
		def.Extra = nil
		return def
	}
	switch x := c.(type) {
	case *CreateTable:
		cp := *x
		cp.Def = check(x.Name, x.Def, x.Meta)
		return &cp
	case *AlterTable:
		cp := *x
		name := x.Name
		if x.NewName != "" {
			name = x.NewName
		}
		cp.Def = check(name, x.Def, x.Meta)
		return &cp
	}
	return c
}

// allocateIDs plays the adapter: columns with id 0 get fresh ids, so
// later statements show which ids survive.
func allocateIDs(changes []Change, next *uint64) []Change {
	out := make([]Change, len(changes))
	fix := func(def graph.TableDef) graph.TableDef {
		def.Columns = append([]graph.ColumnDef(nil), def.Columns...)
		for i := range def.Columns {
			if def.Columns[i].ID == 0 {
				*next++
				def.Columns[i].ID = *next
			}
		}
		return def
	}
	for i, c := range changes {
		switch x := c.(type) {
		case *CreateTable:
			cp := *x
			cp.Def = fix(x.Def)
			out[i] = &cp
		case *AlterTable:
			cp := *x
			cp.Def = fix(x.Def)
			out[i] = &cp
		default:
			out[i] = c
		}
	}
	return out
}
