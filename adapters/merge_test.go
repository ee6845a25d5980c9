package adapters

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/protocol"
)

// mergeRoot is a root with tables a, b, c (primary key id) holding the
// seed rows, nopk (no primary key) holding 1, and branch dev created
// from main after the seed.
func mergeRoot(t *testing.T) *Graph {
	t.Helper()
	ctx := context.Background()
	g := openGraph(t, objstore.NewMem(), true)
	t.Cleanup(g.Close)
	createTables(t, g, "a", "b", "c")
	if _, err := g.Write(ctx, WriteOptions{}, func(ctx context.Context, s *Stage) error {
		return s.CreateTable(TableSpec{Name: "nopk", Columns: testCols})
	}); err != nil {
		t.Fatal(err)
	}
	if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": seed["a"], "b": seed["b"], "c": seed["c"], "nopk": {1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.CreateBranch(ctx, "dev", ""); err != nil {
		t.Fatal(err)
	}
	return g
}

// branchIDs is readIDs at a branch head.
func branchIDs(t *testing.T, g *Graph, branch, table string) []int64 {
	t.Helper()
	sn, err := g.Head(context.Background(), branch)
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := readIDs(t, g, sn, table)
	return ids
}

// update replaces row old by row new in table on branch.
func update(t *testing.T, g *Graph, branch, table string, old, new int64) error {
	t.Helper()
	_, err := g.Write(context.Background(), WriteOptions{Branch: branch}, func(ctx context.Context, s *Stage) error {
		_, addrs := readIDs(t, g, s.Base(), table)
		a, ok := addrs[old]
		if !ok {
			t.Fatalf("%s has no row %d", table, old)
		}
		if err := s.Delete(table, []uint64{a}); err != nil {
			return err
		}
		return s.Insert(table, rowsOf(new))
	})
	return err
}

func deleteRow(t *testing.T, g *Graph, branch, table string, id int64) error {
	t.Helper()
	_, err := g.Write(context.Background(), WriteOptions{Branch: branch}, func(ctx context.Context, s *Stage) error {
		_, addrs := readIDs(t, g, s.Base(), table)
		return s.Delete(table, []uint64{addrs[id]})
	})
	return err
}

func TestMergeAdoptsSourceChangesAndMergesAgain(t *testing.T) {
	ctx := context.Background()
	g := mergeRoot(t)
	// dev: insert into a, delete from b, update c; a table created and
	// filled on dev; main meanwhile writes a table dev leaves alone
	if err := insert(ctx, g, WriteOptions{Branch: "dev"}, map[string][]int64{"a": {2}}); err != nil {
		t.Fatal(err)
	}
	if err := deleteRow(t, g, "dev", "b", 100); err != nil {
		t.Fatal(err)
	}
	if err := update(t, g, "dev", "c", 200, 202); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Write(ctx, WriteOptions{Branch: "dev"}, func(ctx context.Context, s *Stage) error {
		return s.CreateTable(TableSpec{Name: "d", Columns: testCols, PrimaryKey: []string{"id"}})
	}); err != nil {
		t.Fatal(err)
	}
	if err := insert(ctx, g, WriteOptions{Branch: "dev"}, map[string][]int64{"d": {40, 41}}); err != nil {
		t.Fatal(err)
	}
	if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"nopk": {2}}); err != nil {
		t.Fatal(err)
	}
	devHead, _ := g.Head(ctx, "dev")
	rc, err := g.Merge(ctx, "dev", "", "")
	if err != nil {
		t.Fatalf("merge: %v", err)
	}
	if rc.CommitID == "" || rc.Snapshot.Commit.WriterKind != string(BranchMerge) {
		t.Fatalf("receipt %+v", rc.Snapshot.Commit)
	}
	if mp := rc.Snapshot.Commit.MergedParent; mp != devHead.Commit.ID {
		t.Fatalf("merged parent %q, want the source head %s", mp, devHead.Commit.ID)
	}
	want := map[string][]int64{"a": {1, 2}, "b": {101}, "c": {202}, "d": {40, 41}, "nopk": {1, 2}}
	for tbl, ids := range want {
		if got := branchIDs(t, g, "", tbl); !slices.Equal(got, ids) {
			t.Fatalf("main.%s = %v, want %v", tbl, got, ids)
		}
	}
	// main keeps working on the merged tables, dev too
	if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {3}, "d": {42}}); err != nil {
		t.Fatalf("write on main after merge: %v", err)
	}
	if err := update(t, g, "dev", "a", 2, 20); err != nil {
		t.Fatal(err)
	}
	if err := insert(ctx, g, WriteOptions{Branch: "dev"}, map[string][]int64{"d": {43}}); err != nil {
		t.Fatal(err)
	}
	// the second merge starts from the first (found through the merge
	// commit's merged parent): only dev's new changes
	if _, err = g.Merge(ctx, "dev", "", ""); err != nil {
		t.Fatalf("second merge: %v", err)
	}
	want = map[string][]int64{"a": {1, 3, 20}, "b": {101}, "c": {202}, "d": {40, 41, 42, 43}, "nopk": {1, 2}}
	for tbl, ids := range want {
		if got := branchIDs(t, g, "", tbl); !slices.Equal(got, ids) {
			t.Fatalf("after the second merge main.%s = %v, want %v", tbl, got, ids)
		}
	}
	// nothing new on dev: already up to date
	rc, err = g.Merge(ctx, "dev", "", "")
	if err != nil || rc.CommitID != "" {
		t.Fatalf("up-to-date merge: %+v %v", rc, err)
	}
}

func TestMergeIntoABranchFirstTouches(t *testing.T) {
	ctx := context.Background()
	g := mergeRoot(t)
	if err := update(t, g, "", "b", 101, 111); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Merge(ctx, "", "dev", "bring main in"); err != nil {
		t.Fatalf("merge main into dev: %v", err)
	}
	if got := branchIDs(t, g, "dev", "b"); !slices.Equal(got, []int64{100, 111}) {
		t.Fatalf("dev.b = %v", got)
	}
	sn, _ := g.Head(ctx, "dev")
	if e, _ := sn.State.TableByName("b"); e.Branch != "dev" {
		t.Fatalf("b on dev pinned on Lance branch %q, want a dev fork", e.Branch)
	}
	if got := branchIDs(t, g, "", "b"); !slices.Equal(got, []int64{100, 111}) {
		t.Fatalf("main.b = %v", got)
	}
}

func TestMergeConflictsAreTypedAndWriteNothing(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name   string
		main   func(t *testing.T, g *Graph) error
		dev    func(t *testing.T, g *Graph) error
		tables []string
	}{
		// rows are identified by primary key: a key changed on both
		// sides to the same new key is that key inserted on both
		{"same row re-keyed to one key on both", func(t *testing.T, g *Graph) error { return update(t, g, "", "b", 100, 110) },
			func(t *testing.T, g *Graph) error { return update(t, g, "dev", "b", 100, 110) }, []string{"b"}},
		{"a key main updated to, inserted on dev", func(t *testing.T, g *Graph) error { return update(t, g, "", "c", 200, 210) },
			func(t *testing.T, g *Graph) error {
				return insert(ctx, g, WriteOptions{Branch: "dev"}, map[string][]int64{"c": {210}})
			}, []string{"c"}},
		{"same key inserted on both", func(t *testing.T, g *Graph) error {
			return insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {7}})
		}, func(t *testing.T, g *Graph) error {
			return insert(ctx, g, WriteOptions{Branch: "dev"}, map[string][]int64{"a": {7}})
		}, []string{"a"}},
		// a table without a primary key merges by value: one value
		// changed differently on both sides conflicts
		{"no primary key: a value added once and twice", func(t *testing.T, g *Graph) error {
			return insert(ctx, g, WriteOptions{}, map[string][]int64{"nopk": {5}})
		}, func(t *testing.T, g *Graph) error {
			return insert(ctx, g, WriteOptions{Branch: "dev"}, map[string][]int64{"nopk": {5, 5}})
		}, []string{"nopk"}},
		{"no primary key: a value deleted and added again", func(t *testing.T, g *Graph) error {
			return deleteRow(t, g, "", "nopk", 1)
		}, func(t *testing.T, g *Graph) error {
			return insert(ctx, g, WriteOptions{Branch: "dev"}, map[string][]int64{"nopk": {1}})
		}, []string{"nopk"}},
		{"two tables at once", func(t *testing.T, g *Graph) error {
			if err := update(t, g, "", "b", 100, 110); err != nil {
				return err
			}
			return insert(ctx, g, WriteOptions{}, map[string][]int64{"nopk": {5}})
		}, func(t *testing.T, g *Graph) error {
			if err := update(t, g, "dev", "b", 100, 110); err != nil {
				return err
			}
			return insert(ctx, g, WriteOptions{Branch: "dev"}, map[string][]int64{"nopk": {5, 5}, "a": {9}})
		}, []string{"b", "nopk"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := mergeRoot(t)
			if err := tc.main(t, g); err != nil {
				t.Fatal(err)
			}
			if err := tc.dev(t, g); err != nil {
				t.Fatal(err)
			}
			before, _ := g.Head(ctx, "")
			_, err := g.Merge(ctx, "dev", "", "")
			var ce *MergeConflictError
			if !errors.As(err, &ce) || !IsMergeConflict(err) || protocol.SQLState(err) != "40001" {
				t.Fatalf("want a typed merge conflict, got %v", err)
			}
			var names []string
			for _, c := range ce.Conflicts {
				names = append(names, c.Table)
			}
			if !slices.Equal(names, tc.tables) || !strings.Contains(err.Error(), tc.tables[0]) {
				t.Fatalf("conflicts %v, want %v (%v)", names, tc.tables, err)
			}
			after, _ := g.Head(ctx, "")
			if after.Version != before.Version {
				t.Fatalf("a refused merge published version %d", after.Version)
			}
		})
	}
}

// A row both sides deleted is no conflict (rows are identified by
// primary key): each side re-keyed row 100 to its own new key, so 100
// is gone on both and the two new keys merge.
func TestMergeRowDeletedOnBothSides(t *testing.T) {
	ctx := context.Background()
	g := mergeRoot(t)
	if err := update(t, g, "", "b", 100, 110); err != nil {
		t.Fatal(err)
	}
	if err := update(t, g, "dev", "b", 100, 120); err != nil {
		t.Fatal(err)
	}
	if err := deleteRow(t, g, "", "c", 200); err != nil {
		t.Fatal(err)
	}
	if err := deleteRow(t, g, "dev", "c", 200); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Merge(ctx, "dev", "", ""); err != nil {
		t.Fatalf("merge: %v", err)
	}
	if got := branchIDs(t, g, "", "b"); !slices.Equal(got, []int64{101, 110, 120}) {
		t.Fatalf("main.b = %v", got)
	}
	if got := branchIDs(t, g, "", "c"); len(got) != 0 {
		t.Fatalf("main.c = %v", got)
	}
}

func TestMergeDisjointChangesOnBothSides(t *testing.T) {
	ctx := context.Background()
	g := mergeRoot(t)
	// main inserts 5 and updates 101; dev inserts 6 and deletes 100
	if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"b": {5}}); err != nil {
		t.Fatal(err)
	}
	if err := update(t, g, "", "b", 101, 111); err != nil {
		t.Fatal(err)
	}
	if err := insert(ctx, g, WriteOptions{Branch: "dev"}, map[string][]int64{"b": {6}}); err != nil {
		t.Fatal(err)
	}
	if err := deleteRow(t, g, "dev", "b", 100); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Merge(ctx, "dev", "", ""); err != nil {
		t.Fatalf("merge: %v", err)
	}
	if got := branchIDs(t, g, "", "b"); !slices.Equal(got, []int64{5, 6, 111}) {
		t.Fatalf("main.b = %v", got)
	}
}

func TestMergeDroppedTableAndErrors(t *testing.T) {
	ctx := context.Background()
	g := mergeRoot(t)
	if _, err := g.Write(ctx, WriteOptions{Branch: "dev"}, func(ctx context.Context, s *Stage) error {
		return s.DropTable("c")
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Merge(ctx, "dev", "", ""); err != nil {
		t.Fatalf("merge: %v", err)
	}
	sn, _ := g.Head(ctx, "")
	if _, ok := sn.State.TableByName("c"); ok {
		t.Fatal("c still live on main after merging its drop")
	}
	if _, err := g.Merge(ctx, "nope", "", ""); !protocol.IsUnknownBranch(err) {
		t.Fatalf("unknown source: %v", err)
	}
	if _, err := g.Merge(ctx, "dev", "dev", ""); protocol.SQLState(err) != "22023" {
		t.Fatalf("self merge: %v", err)
	}
}

// A merge racing commits on its target re-prepares (recomputing the
// bases and the classification) instead of publishing a stale plan:
// every concurrent commit and the merge are all in the result.
func TestMergeRacingTargetWrites(t *testing.T) {
	ctx := context.Background()
	g := mergeRoot(t)
	if err := insert(ctx, g, WriteOptions{Branch: "dev"}, map[string][]int64{"a": {2}, "b": {102}}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		for i := int64(0); i < 4; i++ {
			if err := insert(ctx, g, WriteOptions{MaxReprepare: 50}, map[string][]int64{"c": {300 + i}, "b": {500 + i}}); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	merged := false
	for try := 0; try < 20 && !merged; try++ {
		_, err := g.Merge(ctx, "dev", "", "")
		switch {
		case err == nil:
			merged = true
		case protocol.IsReadSetChanged(err) && !IsMergeConflict(err):
			// the target kept moving past the re-prepare budget: run again
		default:
			t.Fatalf("merge: %v", err)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !merged {
		t.Fatal("merge never got through")
	}
	t.Logf("coordinator: %+v", g.Stats())
	want := map[string][]int64{"a": {1, 2}, "b": {100, 101, 102, 500, 501, 502, 503}, "c": {200, 300, 301, 302, 303}}
	for tbl, ids := range want {
		if got := branchIDs(t, g, "", tbl); !slices.Equal(got, ids) {
			t.Fatalf("main.%s = %v, want %v", tbl, got, ids)
		}
	}
}

// The catch-up round trip: main merged into dev, both sides go on
// (also on a table both touched), dev merged back. The second merge's
// base is the main commit dev took in, so main's changes are not seen
// twice.
func TestMergeRoundTrip(t *testing.T) {
	ctx := context.Background()
	g := mergeRoot(t)
	if err := update(t, g, "", "b", 101, 111); err != nil {
		t.Fatal(err)
	}
	if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"c": {300}}); err != nil {
		t.Fatal(err)
	}
	if err := insert(ctx, g, WriteOptions{Branch: "dev"}, map[string][]int64{"a": {2}}); err != nil {
		t.Fatal(err)
	}
	rc, err := g.Merge(ctx, "", "dev", "catch up")
	if err != nil || rc.Snapshot.Commit.MergedParent == "" {
		t.Fatalf("main into dev: %v", err)
	}
	want := map[string][]int64{"a": {1, 2}, "b": {100, 111}, "c": {200, 300}}
	for tbl, ids := range want {
		if got := branchIDs(t, g, "dev", tbl); !slices.Equal(got, ids) {
			t.Fatalf("dev.%s = %v, want %v", tbl, got, ids)
		}
	}
	if err := update(t, g, "dev", "b", 100, 120); err != nil {
		t.Fatal(err)
	}
	if err := insert(ctx, g, WriteOptions{Branch: "dev"}, map[string][]int64{"c": {301}}); err != nil {
		t.Fatal(err)
	}
	if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {5}}); err != nil {
		t.Fatal(err)
	}
	if _, err = g.Merge(ctx, "dev", "", ""); err != nil {
		t.Fatalf("dev into main: %v", err)
	}
	want = map[string][]int64{"a": {1, 2, 5}, "b": {111, 120}, "c": {200, 300, 301}}
	for tbl, ids := range want {
		if got := branchIDs(t, g, "", tbl); !slices.Equal(got, ids) {
			t.Fatalf("main.%s = %v, want %v", tbl, got, ids)
		}
	}
}

// Two sibling branches that both took in a table created on main merge
// without a conflict on it: both hold the identical registration.
func TestMergeSiblingsSharingAnAdoptedTable(t *testing.T) {
	ctx := context.Background()
	g := mergeRoot(t)
	if _, err := g.CreateBranch(ctx, "dev2", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Write(ctx, WriteOptions{}, func(ctx context.Context, s *Stage) error {
		if err := s.CreateTable(TableSpec{Name: "n", Columns: testCols, PrimaryKey: []string{"id"}}); err != nil {
			return err
		}
		return s.Insert("n", rowsOf(1, 2))
	}); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{"dev", "dev2"} {
		if _, err := g.Merge(ctx, "", b, ""); err != nil {
			t.Fatalf("main into %s: %v", b, err)
		}
	}
	if err := insert(ctx, g, WriteOptions{Branch: "dev"}, map[string][]int64{"a": {2}}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Merge(ctx, "dev", "dev2", ""); err != nil {
		t.Fatalf("dev into dev2: %v", err)
	}
	for tbl, ids := range map[string][]int64{"a": {1, 2}, "n": {1, 2}} {
		if got := branchIDs(t, g, "dev2", tbl); !slices.Equal(got, ids) {
			t.Fatalf("dev2.%s = %v, want %v", tbl, got, ids)
		}
	}
}

// Catalog changes on the source: a TRUNCATE (a new incarnation of the
// same table id, the old one tombstoned) and a rename merge into the
// target; a table created on both sides under one name conflicts.
func TestMergeCatalogChanges(t *testing.T) {
	ctx := context.Background()
	g := mergeRoot(t)
	if _, err := g.Write(ctx, WriteOptions{Branch: "dev"}, func(ctx context.Context, s *Stage) error {
		return s.Truncate("c")
	}); err != nil {
		t.Fatal(err)
	}
	if err := insert(ctx, g, WriteOptions{Branch: "dev"}, map[string][]int64{"c": {900}}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Write(ctx, WriteOptions{Branch: "dev"}, func(ctx context.Context, s *Stage) error {
		e, _ := s.Base().State.TableByName("a")
		return s.Redefine("a", "a2", e.Def)
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Merge(ctx, "dev", "", ""); err != nil {
		t.Fatalf("merge: %v", err)
	}
	if got := branchIDs(t, g, "", "c"); !slices.Equal(got, []int64{900}) {
		t.Fatalf("main.c = %v", got)
	}
	if got := branchIDs(t, g, "", "a2"); !slices.Equal(got, []int64{1}) {
		t.Fatalf("main.a2 = %v", got)
	}
	sn, _ := g.Head(ctx, "")
	if _, ok := sn.State.TableByName("a"); ok {
		t.Fatal("a still live on main after merging its rename")
	}
	// both sides create a table named z: different ids, one name
	for _, br := range []string{"", "dev"} {
		if _, err := g.Write(ctx, WriteOptions{Branch: br}, func(ctx context.Context, s *Stage) error {
			return s.CreateTable(TableSpec{Name: "z", Columns: testCols})
		}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := g.Merge(ctx, "dev", "", "")
	var ce *MergeConflictError
	if !errors.As(err, &ce) || len(ce.Conflicts) != 1 || ce.Conflicts[0].Table != "z" {
		t.Fatalf("create on both sides: %v", err)
	}
}

// A branch of a branch merges into main (its history continues into its
// parent's), bringing the parent's changes along as git does; main's
// later changes merge back into it.
func TestMergeBranchOfABranch(t *testing.T) {
	ctx := context.Background()
	g := mergeRoot(t)
	if err := insert(ctx, g, WriteOptions{Branch: "dev"}, map[string][]int64{"a": {2}}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.CreateBranch(ctx, "dev2", "dev"); err != nil {
		t.Fatal(err)
	}
	if err := update(t, g, "dev2", "b", 100, 120); err != nil {
		t.Fatal(err)
	}
	if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"c": {300}}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Merge(ctx, "dev2", "", ""); err != nil {
		t.Fatalf("dev2 into main: %v", err)
	}
	for tbl, ids := range map[string][]int64{"a": {1, 2}, "b": {101, 120}, "c": {200, 300}} {
		if got := branchIDs(t, g, "", tbl); !slices.Equal(got, ids) {
			t.Fatalf("main.%s = %v, want %v", tbl, got, ids)
		}
	}
	if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"c": {301}}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Merge(ctx, "", "dev2", ""); err != nil {
		t.Fatalf("main into dev2: %v", err)
	}
	for tbl, ids := range map[string][]int64{"a": {1, 2}, "b": {101, 120}, "c": {200, 300, 301}} {
		if got := branchIDs(t, g, "dev2", tbl); !slices.Equal(got, ids) {
			t.Fatalf("dev2.%s = %v, want %v", tbl, got, ids)
		}
	}
}

// A merge whose source changes are all on the target already publishes a
// merge commit anyway (docs/write-protocol.md §7.3), so the next merge
// starts from it; merging the same source head again publishes nothing.
func TestMergeWithoutTableChangesRecordsTheMerge(t *testing.T) {
	ctx := context.Background()
	g := mergeRoot(t)
	for _, b := range []string{"", "dev"} {
		if err := deleteRow(t, g, b, "c", 200); err != nil {
			t.Fatal(err)
		}
	}
	before, _ := g.Head(ctx, "")
	src, _ := g.Head(ctx, "dev")
	rc, err := g.Merge(ctx, "dev", "", "")
	if err != nil || rc.CommitID == "" {
		t.Fatalf("merge: %v %+v", err, rc)
	}
	after, _ := g.Head(ctx, "")
	if after.Version != before.Version+1 || after.Commit.MergedParent != src.Commit.ID {
		t.Fatalf("head v%d (was v%d), merged parent %q, want %q", after.Version, before.Version, after.Commit.MergedParent, src.Commit.ID)
	}
	if rc, err := g.Merge(ctx, "dev", "", ""); err != nil || rc.CommitID != "" {
		t.Fatalf("merging the merged head again: %v %+v", err, rc)
	}
}

// TestMergeKeylessByValue: a table without a primary key that both
// sides changed merges by value — each side's change to how many copies
// of a value it holds applies where the other left that value alone, the
// same change on both applies once.
func TestMergeKeylessByValue(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name      string
		main, dev func(t *testing.T, g *Graph) error
		want      []int64
	}{
		{"different values added on both", func(t *testing.T, g *Graph) error {
			return insert(ctx, g, WriteOptions{}, map[string][]int64{"nopk": {5}})
		}, func(t *testing.T, g *Graph) error {
			return insert(ctx, g, WriteOptions{Branch: "dev"}, map[string][]int64{"nopk": {6, 6}})
		}, []int64{1, 5, 6, 6}},
		{"the same value added on both", func(t *testing.T, g *Graph) error {
			return insert(ctx, g, WriteOptions{}, map[string][]int64{"nopk": {5}})
		}, func(t *testing.T, g *Graph) error {
			return insert(ctx, g, WriteOptions{Branch: "dev"}, map[string][]int64{"nopk": {5}})
		}, []int64{1, 5}},
		{"deleted on the source, added on the target", func(t *testing.T, g *Graph) error {
			return insert(ctx, g, WriteOptions{}, map[string][]int64{"nopk": {5}})
		}, func(t *testing.T, g *Graph) error { return deleteRow(t, g, "dev", "nopk", 1) }, []int64{5}},
		{"deleted on both", func(t *testing.T, g *Graph) error {
			if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"nopk": {7}}); err != nil {
				return err
			}
			return deleteRow(t, g, "", "nopk", 1)
		}, func(t *testing.T, g *Graph) error { return deleteRow(t, g, "dev", "nopk", 1) }, []int64{7}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := mergeRoot(t)
			if err := tc.main(t, g); err != nil {
				t.Fatal(err)
			}
			if err := tc.dev(t, g); err != nil {
				t.Fatal(err)
			}
			if _, err := g.Merge(ctx, "dev", "", ""); err != nil {
				t.Fatalf("merge: %v", err)
			}
			got := branchIDs(t, g, "", "nopk")
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("nopk = %v, want %v", got, tc.want)
			}
		})
	}
}
