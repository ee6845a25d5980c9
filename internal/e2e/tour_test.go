package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeTour returns the psql session between the README's tour markers:
// the body of the one ```sql block there, verbatim.
func readmeTour(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	begin, end := strings.Index(s, "<!-- tour:begin -->"), strings.Index(s, "<!-- tour:end -->")
	if begin < 0 || end < begin {
		t.Fatal("README.md lacks the <!-- tour:begin --> … <!-- tour:end --> section")
	}
	m := regexp.MustCompile("(?s)```sql\n(.*?)```").FindAllStringSubmatch(s[begin:end], -1)
	if len(m) != 1 {
		t.Fatalf("the README tour has %d ```sql blocks, want exactly 1", len(m))
	}
	return m[0][1]
}

// TestReadmeTour pastes the README's five-minute tour into psql against a
// fresh pgproxy: every statement succeeds except the one the tour shows
// failing, and the transcript matches testdata/tour.out.
func TestReadmeTour(t *testing.T) {
	tour := readmeTour(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tour.sql"), []byte(tour), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startProxy(t)
	got := runPsql(t, p, dir, "tour.sql", "main")
	p.alive(t)
	// The tour shows exactly one error: the edge to a missing person.
	errs := regexp.MustCompile(`(?m)^psql:tour\.sql:\d+: (ERROR|error|FATAL).*$`).FindAllString(got, -1)
	if len(errs) != 1 || !strings.Contains(errs[0], "23503") {
		t.Fatalf("the tour's errors are %q, want exactly the 23503 of the missing person; transcript:\n%s", errs, got)
	}
	compareGolden(t, filepath.Join("testdata", "tour.out"), got)
}
