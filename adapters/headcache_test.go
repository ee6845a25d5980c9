package adapters

import (
	"context"
	"strings"
	"testing"

	"github.com/pggraph/pggraph/objstore"
)

// TestCommittedHeadIsNotReadBack: a write that pins the version this
// process's previous commit produced stages on that handle (no read of
// the table manifest), on the main Lance branch only; a graph branch's
// fork is always opened from storage. Rows stay exact either way.
func TestCommittedHeadIsNotReadBack(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name      string
		branch    string
		wantReads bool
	}{
		{"main reuses its committed handle", "", false},
		{"a branch fork is read from storage", "dev", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := objstore.NewTracing(objstore.NewMem())
			g := openGraph(t, tr, true)
			defer g.Close()
			// handle reuse is what is measured: stage D in its own round
			// (with the check overlapped with round 1 it may run before
			// the writer holds its staging handle and probe cold)
			g.coord.SequentialRevalidate = true
			createTables(t, g, "a")
			if c.branch != "" {
				if _, err := g.CreateBranch(ctx, c.branch, ""); err != nil {
					t.Fatal(err)
				}
			}
			o := WriteOptions{Branch: c.branch}
			for i := int64(1); i <= 2; i++ {
				if err := insert(ctx, g, o, map[string][]int64{"a": {i}}); err != nil {
					t.Fatal(err)
				}
			}
			tr.Reset()
			if err := insert(ctx, g, o, map[string][]int64{"a": {3}}); err != nil {
				t.Fatal(err)
			}
			reads := 0
			for _, l := range tr.Lines() {
				if strings.HasPrefix(l, "get tables/") && strings.Contains(l, "_versions/") {
					reads++
				}
			}
			if (reads > 0) != c.wantReads {
				t.Fatalf("%d table manifest reads in the third write, want reads %v:\n%s", reads, c.wantReads, tr.String())
			}
			sn, err := g.Head(ctx, c.branch)
			if err != nil {
				t.Fatal(err)
			}
			ids, _ := readIDs(t, g, sn, "a")
			if len(ids) != 3 {
				t.Fatalf("rows %v, want 1..3", ids)
			}
		})
	}
}
