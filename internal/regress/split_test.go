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

// TestCompare: the setup unit and a silent meta-command are not
// counted, a meta-command that prints is; a run that stopped early
// differs from where it stopped.
func TestCompare(t *testing.T) {
	units := []Unit{{Text: "SELECT 0;"}, {Text: "\\set x 1", Meta: true}, {Text: "SELECT 1;"}, {Text: "SELECT 2;"}, {Text: "SELECT 3;"}, {Text: "\\d t", Meta: true}}
	script := Script(units)
	if !strings.Contains(script, "SELECT 2;\n\\echo '@@regress-unit 3@@'\n") {
		t.Fatalf("script has no marker after unit 3:\n%s", script)
	}
	out := func(outputs ...string) string {
		var b strings.Builder
		for i, o := range outputs {
			fmt.Fprintf(&b, "%s@@regress-unit %d@@\n", o, i)
		}
		return b.String()
	}
	pg := out("zero\n", "", "one\n", "two\n", "three\n", "table t\n")
	cases := []struct {
		name      string
		proxy     string
		same      int
		stopped   bool
		firstDiff string
	}{
		{"identical", pg, 4, false, ""},
		{"setup differs", out("ZERO\n", "", "one\n", "two\n", "three\n", "table t\n"), 4, false, ""},
		{"one differs", out("zero\n", "", "one\n", "TWO\n", "three\n", "table t\n"), 3, false, "SELECT 2;"},
		{"meta differs", out("zero\n", "", "one\n", "two\n", "three\n", "no t\n"), 3, false, "\\d t"},
		{"stopped", out("zero\n", "", "one\n"), 1, true, "SELECT 2;"},
		{"nothing printed", "", 0, true, "SELECT 1;"},
	}
	// a script that quits itself on PostgreSQL after SELECT 2: the units
	// it never reached are not counted, on either side
	quit := out("zero\n", "", "one\n", "two\n")
	if r := Compare("x", units, 1, quit, quit); r.Statements != 2 || r.Same != 2 || r.Stopped {
		t.Fatalf("quit script: got %d/%d stopped=%v, want 2/2", r.Same, r.Statements, r.Stopped)
	}
	// unit 3 in an inactive \if branch: psql printed no marker for it
	skipped := "zero\n@@regress-unit 0@@\n@@regress-unit 1@@\none\n@@regress-unit 2@@\nthree\n@@regress-unit 4@@\ntable t\n@@regress-unit 5@@\n"
	if r := Compare("x", units, 1, skipped, skipped); r.Statements != 3 || r.Same != 3 || r.Stopped {
		t.Fatalf("inactive branch: got %d/%d stopped=%v, want 3/3", r.Same, r.Statements, r.Stopped)
	}
	if r := Compare("x", units, 1, quit, out("zero\n")); r.Statements != 2 || r.Same != 0 || !r.Stopped {
		t.Fatalf("pgproxy stopped before PostgreSQL quit: got %d/%d stopped=%v, want 0/2", r.Same, r.Statements, r.Stopped)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Compare("x", units, 1, pg, c.proxy)
			if r.Statements != 4 || r.Same != c.same || r.Stopped != c.stopped {
				t.Fatalf("got %d/%d stopped=%v, want %d/4 stopped=%v", r.Same, r.Statements, r.Stopped, c.same, c.stopped)
			}
			if c.firstDiff != "" && (len(r.Diffs) == 0 || r.Diffs[0].Unit.Text != c.firstDiff) {
				t.Fatalf("first difference %+v, want %q", r.Diffs, c.firstDiff)
			}
		})
	}
}
