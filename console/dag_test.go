package console

import (
	"strings"
	"testing"
	"time"
)

func TestLayoutDAG(t *testing.T) {
	at := func(s int) time.Time { return time.Unix(1_700_000_000+int64(s), 0) }
	c := func(id, parent, merged string, s int) commit {
		return commit{ID: id, Parent: parent, MergedParent: merged, Time: at(s)}
	}
	for _, tc := range []struct {
		name     string
		commits  []commit
		branches []branch
		lanes    map[string]int // commit → lane
		edges    int
		merges   int
		missing  int
	}{
		{
			name:     "one branch is one straight lane",
			commits:  []commit{c("a", "", "", 1), c("b", "a", "", 2), c("c", "b", "", 3)},
			branches: []branch{{Name: "main", Head: "c"}},
			lanes:    map[string]int{"a": 0, "b": 0, "c": 0},
			edges:    2,
		},
		{
			name: "a merged branch forks off main and joins it through the merge",
			commits: []commit{c("a", "", "", 1), c("b", "a", "", 2), c("d1", "b", "", 3), c("m2", "b", "", 4),
				c("d2", "d1", "", 5), c("merge", "m2", "d2", 6)},
			branches: []branch{{Name: "main", Head: "merge"}, {Name: "dev", Head: "d2"}},
			lanes:    map[string]int{"a": 0, "b": 0, "m2": 0, "merge": 0, "d1": 1, "d2": 1},
			edges:    6, merges: 1,
		},
		{
			name:     "a deleted branch's merged commits get a lane of their own",
			commits:  []commit{c("a", "", "", 1), c("x", "a", "", 2), c("merge", "a", "x", 3)},
			branches: []branch{{Name: "main", Head: "merge"}},
			lanes:    map[string]int{"a": 0, "merge": 0, "x": 1},
			edges:    3, merges: 1,
		},
		{
			name:     "parents older than the commits read are stubs",
			commits:  []commit{c("y", "old", "", 10), c("z", "y", "", 11)},
			branches: []branch{{Name: "main", Head: "z"}},
			lanes:    map[string]int{"y": 0, "z": 0},
			edges:    1, missing: 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &history{Branches: tc.branches, Commits: map[string]commit{}}
			for _, cm := range tc.commits {
				h.Commits[cm.ID] = cm
			}
			l := layoutDAG(h)
			for i, n := range l.Nodes {
				if n.Row != i {
					t.Errorf("%s: row %d at index %d", n.ID, n.Row, i)
				}
				if i > 0 && n.Time.After(l.Nodes[i-1].Time) {
					t.Errorf("%s is newer than the row above it", n.ID)
				}
				if want, ok := tc.lanes[n.ID]; !ok || n.Lane != want {
					t.Errorf("%s: lane %d, want %d", n.ID, n.Lane, want)
				}
			}
			merges := 0
			for _, e := range l.Edges {
				if e.Merge {
					merges++
				}
				if l.Nodes[e.To].Row <= l.Nodes[e.From].Row {
					t.Errorf("edge %s → %s does not point to an older row", l.Nodes[e.From].ID, l.Nodes[e.To].ID)
				}
			}
			if len(l.Edges) != tc.edges || merges != tc.merges || len(l.Missing) != tc.missing {
				t.Errorf("edges %d (merges %d, missing %d), want %d (%d, %d)", len(l.Edges), merges, len(l.Missing), tc.edges, tc.merges, tc.missing)
			}
			svg := string(l.svg())
			if got := strings.Count(svg, "<circle"); got != len(tc.commits) {
				t.Errorf("svg draws %d commits, want %d", got, len(tc.commits))
			}
			if got := strings.Count(svg, `class="edge merge`); got != tc.merges {
				t.Errorf("svg draws %d merge edges, want %d", got, tc.merges)
			}
		})
	}
}

func TestReachableFollowsBothParents(t *testing.T) {
	parents := map[string][2]string{"m": {"a", "x"}, "x": {"a", ""}, "a": {"", ""}, "other": {"a", ""}}
	got := reachable("m", parents)
	if len(got) != 3 || !got["x"] || !got["a"] || got["other"] {
		t.Fatalf("reachable = %v", got)
	}
}

// Values from the graph reach the drawings escaped.
func TestDrawingsEscape(t *testing.T) {
	h := &history{Branches: []branch{{Name: "<b>", Head: "a"}}, Commits: map[string]commit{
		"a": {ID: "a", Message: `<script>alert("x")</script>`, Actor: "&", Time: time.Unix(0, 0)},
	}}
	svg := string(layoutDAG(h).svg())
	if strings.Contains(svg, "<script>") || strings.Contains(svg, "<b>") {
		t.Fatalf("unescaped graph values in the commit graph: %s", svg)
	}
	schema := string(schemaSVG([]tableInfo{{Name: "<n>", Kind: "node"}, {Name: "<e>", Kind: "edge", Source: "<n>", Target: "<n>"}}))
	if strings.Contains(schema, "<n>") || strings.Contains(schema, "<e>") || !strings.Contains(schema, "&lt;e&gt;") {
		t.Fatalf("unescaped table names in the schema picture: %s", schema)
	}
}
