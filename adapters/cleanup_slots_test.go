package adapters

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/pggraph/pggraph/replication"
)

// Manifest retention keeps every version a replication slot may still
// stream (from the commit before its first unconfirmed one), on its
// branch and, for a branch slot starting before its fork, on the parent;
// without slots the same versions are pruned.
func TestCleanupManifestKeepsSlotVersions(t *testing.T) {
	for _, tc := range []struct {
		name   string
		branch string // the slot's branch ("" none)
	}{{"no slot", ""}, {"slot on main", "main"}, {"slot on dev before its fork", "dev"}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			g := mergeRoot(t) // main v1..v4, dev forked at v4
			for i := int64(0); i < 3; i++ {
				if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"c": {300 + i}}); err != nil {
					t.Fatal(err)
				}
			}
			mid, _ := g.Head(ctx, "")
			for i := int64(0); i < 3; i++ {
				if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"c": {400 + i}}); err != nil {
					t.Fatal(err)
				}
			}
			fork, err := g.Root.SnapshotAt(ctx, "", 4)
			if err != nil {
				t.Fatal(err)
			}
			// the slot confirmed everything up to mid (main) or up to
			// version 2, below dev's fork at 4
			keepFrom := mid.Version
			if tc.branch == "dev" {
				keepFrom = 2
			}
			if tc.branch != "" {
				st := replication.Open(g.Root.Store())
				sl := replication.Slot{Name: "s", Plugin: "pgoutput", Database: tc.branch, ConfirmedFlush: replication.StartAfter(keepFrom), Created: time.Now()}
				if err := st.CreateSlot(ctx, sl); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := g.Cleanup(ctx, CleanupOptions{Now: func() time.Time { return time.Now().Add(48 * time.Hour) }, KeepManifestVersions: 1}); err != nil {
				t.Fatal(err)
			}
			after, _ := g.Root.ManifestVersions(ctx, "")
			head, _ := g.Head(ctx, "")
			for v := keepFrom; v <= head.Version; v++ {
				// versions above a dev slot's fork are main's own: not needed
				needed := tc.branch == "main" || tc.branch == "dev" && v <= fork.Version
				if got := slices.Contains(after, v); needed && !got {
					t.Errorf("version %d pruned; kept %v", v, after)
				} else if tc.branch == "" && got && v != head.Version && v != fork.Version {
					t.Errorf("version %d kept without a slot: %v", v, after)
				}
			}
		})
	}
}
