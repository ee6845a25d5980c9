package adapters

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/recovery"
)

// mergeShapes are BranchMerge writes for the crash harness of
// crash_test.go (seedRoot: tables a, b, c with the seed rows; branch dev
// created from main after the seed). Each run first changes the source
// branch, then merges; a crash anywhere must leave the checked branch
// showing all of the merge or none of it.
func mergeShapes() []writeShape {
	devChanges := func(ctx context.Context, t testing.TB, g *Graph) error {
		_, err := g.Write(ctx, WriteOptions{Branch: "dev"}, func(ctx context.Context, s *Stage) error {
			if err := s.Insert("a", rowsOf(2)); err != nil {
				return err
			}
			if err := s.Insert("b", rowsOf(102)); err != nil {
				return err
			}
			_, addrs := readIDs(t, g, s.Base(), "c")
			return s.Delete("c", []uint64{addrs[200]})
		})
		return err
	}
	return []writeShape{
		// dev → main: three staged replays on main's own table refs
		{name: "merge-into-main", run: func(ctx context.Context, t testing.TB, g *Graph) error {
			if err := devChanges(ctx, t, g); err != nil {
				return err
			}
			rc, err := g.Merge(ctx, "dev", "", "")
			if err == nil && rc.CommitID == "" {
				t.Fatal("merge found nothing to do")
			}
			return err
		}, before: seed, after: map[string][]int64{"a": {1, 2}, "b": {100, 101, 102}, "c": {}}},
		// main → dev: first touches of the inherited tables on dev
		{name: "merge-into-branch", branch: "dev", run: func(ctx context.Context, t testing.TB, g *Graph) error {
			if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {3}, "c": {203}}); err != nil {
				return err
			}
			rc, err := g.Merge(ctx, "", "dev", "")
			if err == nil && rc.CommitID == "" {
				t.Fatal("merge found nothing to do")
			}
			return err
		}, before: seed, after: map[string][]int64{"a": {1, 3}, "b": {100, 101}, "c": {200, 203}}},
		// a staged merge (graph.merge strategy 'stop') published with its
		// staged rows: the same effects as a merge, one manifest commit;
		// staging itself writes nothing
		{name: "publish-staged-into-main", run: func(ctx context.Context, t testing.TB, g *Graph) error {
			if err := devChanges(ctx, t, g); err != nil {
				return err
			}
			return publishStaged(ctx, t, g, "dev", "")
		}, before: seed, after: map[string][]int64{"a": {1, 2}, "b": {100, 101, 102}, "c": {}}},
		{name: "publish-staged-into-branch", branch: "dev", run: func(ctx context.Context, t testing.TB, g *Graph) error {
			if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {3}, "c": {203}}); err != nil {
				return err
			}
			return publishStaged(ctx, t, g, "", "dev")
		}, before: seed, after: map[string][]int64{"a": {1, 3}, "b": {100, 101}, "c": {200, 203}}},
	}
}

// publishStaged stages the merge of from into into and publishes it
// with the staged rows.
func publishStaged(ctx context.Context, t testing.TB, g *Graph, from, into string) error {
	sm, err := g.StageMerge(ctx, MergeOptions{From: from, Into: into})
	if err != nil {
		return err
	}
	if len(sm.Conflicts) > 0 {
		t.Fatalf("unexpected conflicts %+v", sm.Conflicts)
	}
	rc, err := g.PublishMerge(ctx, sm, sm.Result.Rows, MergeOptions{})
	if err == nil && rc.CommitID == "" {
		t.Fatal("staged merge found nothing to do")
	}
	return err
}

// TestMergeCrashSweep runs the crash sweep of TestCrashSweep on the
// merge shapes: crash after every durable op (local and in-memory),
// power loss with unsynced writes dropped, each op failing once and
// persistently, and a second crash inside recovery.
func TestMergeCrashSweep(t *testing.T) {
	st := &sweepStats{outcomes: map[string]int{}, decisions: map[recovery.Decision]int{}, classes: map[recovery.Class]int{}}
	for _, bk := range backends() {
		for _, sh := range mergeShapes() {
			t.Run(bk.name+"/"+sh.name, func(t *testing.T) {
				n := countOps(t, bk, sh)
				if n < 4 {
					t.Fatalf("shape does only %d durable ops", n)
				}
				for c := int64(0); c <= n; c++ {
					crashCell(t, bk, sh, c, st)
					if bk.name == "mem" {
						powerLossCell(t, sh, c, st)
					}
				}
				if bk.name == "mem" || *crashLong {
					for c := int64(1); c <= n; c++ {
						failCell(t, bk, sh, c, objstore.FailOnce, st)
						failCell(t, bk, sh, c, objstore.FailPersistent, st)
					}
					stride := int64(3)
					if *crashLong {
						stride = 1
					}
					for c := int64(1); c <= n; c += stride {
						doubleCrashCells(t, bk, sh, c, st)
					}
				}
			})
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "merge crash sweep: %d cells; outcomes %v; recovery decisions %s; classes %s",
		st.cells, st.outcomes, fmtCounts(st.decisions), fmtCounts(st.classes))
	t.Log(b.String())
	fmt.Println(b.String())
	if st.outcomes["all"] == 0 || st.outcomes["none"] == 0 {
		t.Errorf("the sweep never saw both outcomes: %v", st.outcomes)
	}
	for _, d := range []recovery.Decision{recovery.RolledForward, recovery.RolledBackDec, recovery.Converged} {
		if st.decisions[d] == 0 {
			t.Errorf("the sweep never reached recovery decision %s", d)
		}
	}
}
