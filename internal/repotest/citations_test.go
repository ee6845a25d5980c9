package repotest

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// moduleRoot is the repository root, relative to this package's
// directory (go test runs a package in its source directory).
const moduleRoot = "../.."

// outsideCitations are references a reader of the repository cannot
// follow: files of the design workspace outside the repository and
// tracker issue numbers. What they cited is restated in docs/
// (docs/write-protocol.md for the write protocol, docs/architecture.md
// for the layout, errors and SQL surface).
var outsideCitations = []struct {
	name string
	re   *regexp.Regexp
}{
	{"a file outside the repository", regexp.MustCompile(`\.\./shared/|\bshared/(rfc|reference)/|\brfc/0\d+|\bDESIGN(\.md)?\s*§|\bDESIGN\.md\b`)},
	{"the write-protocol RFC instead of docs/write-protocol.md", regexp.MustCompile(`\bRFC[- ]?0*22\b|\bRFC §`)},
	{"a design-workspace reference document", regexp.MustCompile(`\breference §|\breference/[a-z-]+\.md`)},
	{"an issue number", regexp.MustCompile(`(?i)\bissues? #?\d+\b|\(#\d+\)`)},
}

// goFiles lists the module's .go files, skipping testdata and
// node_modules trees (fixtures and third-party code).
func goFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(moduleRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "testdata", "node_modules", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 100 {
		t.Fatalf("found only %d .go files under %s: not the module root?", len(files), moduleRoot)
	}
	return files
}

// findCitations returns "file:line: what" for every line of src that
// cites something outside the repository.
func findCitations(name string, src *bufio.Scanner) []string {
	var out []string
	for n := 1; src.Scan(); n++ {
		line := src.Text()
		for _, c := range outsideCitations {
			if c.re.MatchString(line) {
				out = append(out, name+":"+strconv.Itoa(n)+": cites "+c.name+": "+strings.TrimSpace(line))
			}
		}
	}
	return out
}

// TestCommentsCiteTheRepository: no .go file cites a file outside the
// repository or an issue number (this package's own examples aside).
func TestCommentsCiteTheRepository(t *testing.T) {
	for _, path := range goFiles(t) {
		if filepath.Base(filepath.Dir(path)) == "repotest" {
			continue
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64*1024), 4<<20)
		rel, _ := filepath.Rel(moduleRoot, path)
		for _, v := range findCitations(rel, sc) {
			t.Error(v)
		}
		if err := sc.Err(); err != nil {
			t.Errorf("%s: %v", rel, err)
		}
		f.Close()
	}
}

// TestCitationPatterns: the patterns catch what they are for and leave
// ordinary text alone (RFC 3339 timestamps, RFC 5802, "issue" as a verb).
func TestCitationPatterns(t *testing.T) {
	cases := []struct {
		line string
		bad  bool
	}{
		{"// Package protocol is the coordinator of RFC-022", true},
		{"// (../shared/rfc/0022-graph-write-protocol.md)", true},
		{"// Layout of a root (DESIGN.md §2.3).", true},
		{"// The graph settings (DESIGN §7).", true},
		{"// So RFC §4.5 holds", true},
		{"// (shapes from reference/pgwire.md)", true},
		{"// Lance 8's conflict rules (reference §3.2)", true},
		{"// the served point lookup of issue 6", true},
		{"// fixed in issue #296", true},
		{"// fixed (#296)", true},
		{"// (docs/write-protocol.md §4.3)", false},
		{"ts.Format(time.RFC3339Nano)", false},
		{"// scramKeys derives StoredKey and ServerKey (RFC 5802)", false},
		{"// we issue one request per table", false},
		{"// docs/architecture.md, \"Storage layout of a root\"", false},
	}
	for _, tc := range cases {
		got := findCitations("x.go", bufio.NewScanner(strings.NewReader(tc.line)))
		if (len(got) > 0) != tc.bad {
			t.Errorf("%q: flagged %v, want %v (%v)", tc.line, len(got) > 0, tc.bad, got)
		}
	}
}
