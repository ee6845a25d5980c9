package regress

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestSplit cuts a script holding each boundary rule (quotes, nested
// comments, parentheses, BEGIN ATOMIC, meta-commands alone and ending a
// statement, COPY data) and compares the units with the golden file.
func TestSplit(t *testing.T) {
	src, err := os.ReadFile("testdata/script.sql")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, u := range Split(string(src)) {
		fmt.Fprintf(&b, "--- line %d meta=%v\n%s\n", u.Line, u.Meta, u.Text)
	}
	golden := "testdata/script.units"
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("units differ from %s:\n%s", golden, b.String())
	}
}

func TestCompare(t *testing.T) {
	units := []Unit{{Text: "\\set x 1", Meta: true}, {Text: "SELECT 1;"}, {Text: "SELECT 2;"}, {Text: "SELECT 3;"}}
	script := Script(units)
	if !strings.Contains(script, "SELECT 2;\n\\echo '@@regress-unit 2@@'\n") {
		t.Fatalf("script has no marker after unit 2:\n%s", script)
	}
	pg := "@@regress-unit 0@@\none\n@@regress-unit 1@@\ntwo\n@@regress-unit 2@@\nthree\n@@regress-unit 3@@\n"
	cases := []struct {
		name        string
		proxy       string
		same        int
		stopped     bool
		firstDiffAt string
	}{
		{"identical", pg, 3, false, ""},
		{"one differs", "@@regress-unit 0@@\none\n@@regress-unit 1@@\nTWO\n@@regress-unit 2@@\nthree\n@@regress-unit 3@@\n", 2, false, "SELECT 2;"},
		{"stopped", "@@regress-unit 0@@\none\n@@regress-unit 1@@\ntwo\n", 1, true, "SELECT 2;"},
		{"nothing printed", "", 0, true, "SELECT 1;"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Compare("x", units, pg, c.proxy)
			if r.Statements != 3 || r.Same != c.same || r.Stopped != c.stopped {
				t.Fatalf("got %d/%d stopped=%v, want %d/3 stopped=%v", r.Same, r.Statements, r.Stopped, c.same, c.stopped)
			}
			if c.firstDiffAt != "" && (len(r.Diffs) == 0 || r.Diffs[0].Unit.Text != c.firstDiffAt) {
				t.Fatalf("first difference %+v, want %q", r.Diffs, c.firstDiffAt)
			}
		})
	}
}
