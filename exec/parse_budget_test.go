package exec

import (
	"context"
	"strings"
	"testing"
)

// TestParseChargesServerBudget: the parse of a large statement is charged
// to the server-wide account (53200 when it has no room, nothing held
// afterwards); small statements and an unlimited account are unaffected.
func TestParseChargesServerBudget(t *testing.T) {
	defer SetServerMemoryBudget(serverBudget.limit.Load())
	// (a long literal: cheap to parse and run, but charged by its length)
	big := "SELECT length('" + strings.Repeat("x", 1_200_000) + "') > 0"
	cases := []struct {
		name   string
		server int64
		sql    string
		code   string
	}{
		{"large statement, budget too small", 16 << 20, big, "53200"},
		{"large statement, budget enough", 1 << 30, big + " ", ""},
		{"large statement, no server limit", 0, big + "  ", ""},
		{"small statement, budget too small", 1, "SELECT 5 IN (1, 5)", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			SetServerMemoryBudget(tc.server)
			used, _ := ServerMemoryUsed()
			eng := &Engine{Catalog: NewMemCatalog()}
			p, err := eng.Prepare(tc.sql, nil)
			if err == nil {
				var res *Result
				res, err = p.Execute(context.Background(), nil, nil)
				if err == nil && oneText(t, res) != "t" {
					t.Fatal("wrong answer")
				}
			}
			code := ""
			if e, ok := err.(*Error); ok {
				code = e.Code
				if !strings.HasPrefix(e.Detail, "Parsing the statement needs about") {
					t.Errorf("detail %q", e.Detail)
				}
			} else if err != nil {
				t.Fatalf("untyped error %v", err)
			}
			if code != tc.code {
				t.Fatalf("got %v, want %q", err, tc.code)
			}
			if after, _ := ServerMemoryUsed(); after != used {
				t.Fatalf("server account holds %d bytes after the statement, %d before", after, used)
			}
		})
	}
}
