package adapters

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/graph"
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
		// a staged merge with a conflict resolved and published: x, forked
		// from main before b's second seed row, adds its own row 101 (a
		// conflict with main's, resolved by taking x's), a row to a and
		// deletes c's row (clean)
		{name: "publish-resolved-conflict", run: func(ctx context.Context, t testing.TB, g *Graph) error {
			head, err := g.Head(ctx, "")
			if err != nil {
				return err
			}
			at, err := g.Root.SnapshotAt(ctx, "", head.Version-1)
			if err != nil {
				return err
			}
			if _, err := g.CreateBranchAt(ctx, "x", at); err != nil {
				return err
			}
			if _, err := g.Write(ctx, WriteOptions{Branch: "x"}, func(ctx context.Context, s *Stage) error {
				if err := s.Insert("a", rowsOf(2)); err != nil {
					return err
				}
				if err := s.InsertBatches("b", testSchema, valueBatch(101, "x")); err != nil {
					return err
				}
				_, addrs := readIDs(t, g, s.Base(), "c")
				return s.Delete("c", []uint64{addrs[200]})
			}); err != nil {
				return err
			}
			return publishResolved(ctx, t, g, "x", "")
		}, before: seed, after: map[string][]int64{"a": {1, 2}, "b": {100, 101}, "c": {}}},
		// rows merged into a table the source re-columned: x, forked from
		// main before the seed rows, rewrites c with a new column (and
		// adds a row to a); main's own row of c (200) merges into x's
		// incarnation, so a merge published without it would show c empty
		{name: "merge-into-recolumned", run: func(ctx context.Context, t testing.TB, g *Graph) error {
			head, err := g.Head(ctx, "")
			if err != nil {
				return err
			}
			at, err := g.Root.SnapshotAt(ctx, "", head.Version-2)
			if err != nil {
				return err
			}
			if _, err := g.CreateBranchAt(ctx, "x", at); err != nil {
				return err
			}
			if _, err := g.Write(ctx, WriteOptions{Branch: "x"}, func(ctx context.Context, s *Stage) error {
				e, _ := s.Base().State.TableByName("c")
				if err := s.ReplaceTable("c", addColumnW(e), wideRowsOf()); err != nil {
					return err
				}
				return s.Insert("a", rowsOf(2))
			}); err != nil {
				return err
			}
			rc, err := g.Merge(ctx, "x", "", "")
			if err == nil && rc.CommitID == "" {
				t.Fatal("merge found nothing to do")
			}
			return err
		}, before: seed, after: map[string][]int64{"a": {1, 2}, "b": {100, 101}, "c": {200}}, scratch: "a"},
		// a staged merge of a table re-columned on both branches, its
		// conflict resolved: main and x each add column w to c and set
		// row 200's v differently (x also adds row 201 to c and a row to
		// a); staging
		// writes the merged incarnation (an unreferenced dataset until the
		// merge commit registers it), the resolution takes x's row
		{name: "publish-resolved-recolumned-both", run: func(ctx context.Context, t testing.TB, g *Graph) error {
			if _, err := g.CreateBranch(ctx, "x", ""); err != nil {
				return err
			}
			recolumn := func(branch, v string, ids ...int64) error {
				_, err := g.Write(ctx, WriteOptions{Branch: branch}, func(ctx context.Context, s *Stage) error {
					e, _ := s.Base().State.TableByName("c")
					if err := s.ReplaceTable("c", addColumnW(e), wideRow(v, ids...)); err != nil {
						return err
					}
					if branch == "x" {
						return s.Insert("a", rowsOf(2))
					}
					return nil
				})
				return err
			}
			if err := recolumn("", "m", 200); err != nil {
				return err
			}
			if err := recolumn("x", "x", 200, 201); err != nil {
				return err
			}
			return publishResolved(ctx, t, g, "x", "")
		}, before: seed, after: map[string][]int64{"a": {1, 2}, "b": {100, 101}, "c": {200, 201}}, scratch: "b"},
	}
}

// wideRow yields (id, v, id*10) rows in wideSchema.
func wideRow(v string, ids ...int64) Source {
	return func(ctx context.Context) (array.RecordReader, error) {
		b := array.NewRecordBuilder(memory.DefaultAllocator, wideSchema)
		defer b.Release()
		for _, id := range ids {
			b.Field(0).(*array.Int64Builder).Append(id)
			b.Field(1).(*array.StringBuilder).Append(v)
			b.Field(2).(*array.Int64Builder).Append(id * 10)
		}
		rec := b.NewRecordBatch()
		defer rec.Release()
		return array.NewRecordReader(wideSchema, []arrow.RecordBatch{rec})
	}
}

// valueBatch is one row (id, v) of the test schema.
func valueBatch(id int64, v string) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, testSchema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).Append(id)
	b.Field(1).(*array.StringBuilder).Append(v)
	return b.NewRecordBatch()
}

// publishResolved stages the merge of from into into, resolves every
// conflict by taking the source's row (the target's row deleted, the
// source's added, as a session's UPDATE would), and publishes.
func publishResolved(ctx context.Context, t testing.TB, g *Graph, from, into string) error {
	sm, err := g.StageMerge(ctx, MergeOptions{From: from, Into: into})
	if err != nil {
		return err
	}
	if len(sm.Conflicts) == 0 {
		t.Fatal("the staged merge has no conflict to resolve")
	}
	rows := map[graph.TableKey]*MergedRows{}
	for k, mr := range sm.Result.Rows {
		c := *mr
		rows[k] = &c
	}
	for _, rc := range sm.Conflicts {
		var key graph.TableKey
		for _, e := range sm.Result.Merged.State.Tables {
			if e.Name == rc.Table && e.State == graph.Live {
				key = e.Key()
			}
		}
		mr := rows[key]
		if mr == nil {
			mr = &MergedRows{}
			rows[key] = mr
		}
		if rc.Ours != nil {
			mr.Deleted = append(mr.Deleted, rc.OursAddr)
		}
		if rc.Theirs != nil {
			add := Batches(rc.Theirs.Schema(), rc.Theirs)
			if mr.Added != nil {
				add = concatSources(rc.Theirs.Schema(), mr.Added, add)
			}
			mr.Added = add
		}
	}
	rc, err := g.PublishMerge(ctx, sm, rows, MergeOptions{})
	if err == nil && rc.CommitID == "" {
		t.Fatal("staged merge found nothing to do")
	}
	return err
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
