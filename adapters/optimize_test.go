package adapters

import (
	"context"
	"slices"
	"testing"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/protocol"
)

func fragmentCount(t *testing.T, g *Graph, sn *graph.Snapshot, table string) int {
	t.Helper()
	ds, _, err := g.Table(context.Background(), sn, table)
	if err != nil {
		t.Fatal(err)
	}
	return len(ds.Fragments())
}

// TestOptimizeCompactsInOneGraphCommit: one-row commits leave one
// fragment each; Optimize rewrites every table's fragments (deleted rows
// materialized away) in one graph commit of writer kind optimize, rows
// unchanged; a second Optimize finds nothing; writes continue with
// fresh row addresses; a branch compacts its first-touch fork only.
func TestOptimizeCompactsInOneGraphCommit(t *testing.T) {
	ctx := context.Background()
	g := openGraph(t, objstore.NewMem(), true)
	defer g.Close()
	createTables(t, g, "a", "b", "c")
	for i := int64(0); i < 6; i++ {
		if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {i}, "b": {100 + i}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"c": {200}}); err != nil {
		t.Fatal(err)
	}
	sn := head(t, g)
	_, addrs := readIDs(t, g, sn, "a")
	if _, err := g.Write(ctx, WriteOptions{}, func(ctx context.Context, s *Stage) error {
		return s.Delete("a", []uint64{addrs[2]})
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.CreateBranch(ctx, "dev", ""); err != nil {
		t.Fatal(err)
	}
	before := head(t, g)
	want := map[string][]int64{"a": {0, 1, 3, 4, 5}, "b": {100, 101, 102, 103, 104, 105}, "c": {200}}
	if n := fragmentCount(t, g, before, "a"); n != 5 {
		t.Fatalf("a has %d fragments before", n)
	}

	rc, err := g.Optimize(ctx, "")
	if err != nil || rc == nil {
		t.Fatalf("optimize: %v %v", rc, err)
	}
	after := rc.Snapshot
	if after.Version != before.Version+1 || after.Commit.WriterKind != string(Optimize) {
		t.Fatalf("optimize published v%d (%s) after v%d", after.Version, after.Commit.WriterKind, before.Version)
	}
	for tbl, ids := range want {
		if got, _ := readIDs(t, g, after, tbl); !slices.Equal(got, ids) {
			t.Errorf("%s = %v, want %v", tbl, got, ids)
		}
		if n := fragmentCount(t, g, after, tbl); n != 1 {
			t.Errorf("%s has %d fragments after optimize", tbl, n)
		}
	}
	// c had a single fragment without deletions: not rewritten
	ca, _ := after.State.TableByName("c")
	cb, _ := before.State.TableByName("c")
	if ca.Version != cb.Version {
		t.Errorf("c was rewritten: v%d → v%d", cb.Version, ca.Version)
	}
	if rc, err := g.Optimize(ctx, ""); err != nil || rc != nil {
		t.Fatalf("second optimize: %v %v", rc, err)
	}
	// the next write resolves row addresses in the compacted layout
	_, addrs = readIDs(t, g, after, "a")
	if _, err := g.Write(ctx, WriteOptions{}, func(ctx context.Context, s *Stage) error {
		if err := s.Delete("a", []uint64{addrs[4]}); err != nil {
			return err
		}
		return s.Insert("a", rowsOf(7))
	}); err != nil {
		t.Fatal(err)
	}
	if got, _ := readIDs(t, g, head(t, g), "a"); !slices.Equal(got, []int64{0, 1, 3, 5, 7}) {
		t.Fatalf("a after write = %v", got)
	}

	// the branch still has the old layout (inherited); optimizing it
	// forks a on first touch and leaves main alone
	dev, err := g.Head(ctx, "dev")
	if err != nil {
		t.Fatal(err)
	}
	if n := fragmentCount(t, g, dev, "a"); n != 5 {
		t.Fatalf("dev a has %d fragments", n)
	}
	rc, err = g.OptimizeWith(ctx, OptimizeOptions{Branch: "dev", Tables: []string{"a"}})
	if err != nil || rc == nil {
		t.Fatalf("optimize dev: %v %v", rc, err)
	}
	if got, _ := readIDs(t, g, rc.Snapshot, "a"); !slices.Equal(got, want["a"]) || fragmentCount(t, g, rc.Snapshot, "a") != 1 {
		t.Fatalf("dev a = %v", got)
	}
	if e, _ := rc.Snapshot.State.TableByName("a"); e.Branch != "dev" {
		t.Fatalf("dev a not forked: %+v", e)
	}
	if _, err := g.Optimize(ctx, "", "nope"); err == nil {
		t.Fatal("optimize of an unknown table succeeded")
	}
}

// TestAutoOptimizeAfterAcknowledgedWrites: with AutoOptimizeFragments
// set, writes that leave a table with that many fragments start a
// background Optimize; the foreground writes (racing it, re-prepared
// transparently when it publishes first) all succeed, no row is lost,
// and the table ends compacted.
func TestAutoOptimizeAfterAcknowledgedWrites(t *testing.T) {
	ctx := context.Background()
	store := objstore.NewMem()
	seed := openGraph(t, store, true)
	createTables(t, seed, "a")
	seed.Close()
	g, err := Open(ctx, store, Options{Actor: "test", Location: "/test-root", AutoOptimizeFragments: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	var want []int64
	for i := int64(0); i < 20; i++ {
		if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {i}}); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		want = append(want, i)
	}
	g.auto.wg.Wait()
	// nothing runs now, so this write's crossing (if any) is acted on
	if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {20}}); err != nil {
		t.Fatal(err)
	}
	want = append(want, 20)
	g.auto.wg.Wait()
	runs, failures := g.AutoOptimizeStats()
	// a run may yield to the foreground writers (it re-prepares, then
	// gives up with 40001 and changes nothing); a later crossing retries
	if runs == 0 || failures >= runs {
		t.Fatalf("auto optimize runs %d failures %d (%v)", runs, failures, g.auto.lastErr.Load())
	}
	if err, _ := g.auto.lastErr.Load().(error); err != nil && !protocol.IsReadSetChanged(err) {
		t.Fatalf("auto optimize failed: %v", err)
	}
	sn := head(t, g)
	if got, _ := readIDs(t, g, sn, "a"); !slices.Equal(got, want) {
		t.Fatalf("a = %v", got)
	}
	if n := fragmentCount(t, g, sn, "a"); n >= 4 {
		t.Fatalf("a has %d fragments after auto optimize", n)
	}
	var optimizes int
	cs, err := g.Commits(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.WriterKind == string(Optimize) {
			optimizes++
		}
	}
	if int64(optimizes) > runs || optimizes == 0 {
		t.Fatalf("%d optimize commits for %d runs", optimizes, runs)
	}
}

// TestAutoOptimizeRewritesWhatItReserved: a background Optimize asks
// its guard for the fragments it will rewrite and rewrites only those:
// a small fragment a write adds after that (here, while the guard runs)
// is left alone, so its rows keep the addresses row locks name.
func TestAutoOptimizeRewritesWhatItReserved(t *testing.T) {
	ctx := context.Background()
	g, err := Open(ctx, objstore.NewMem(), Options{Create: true, Actor: "test", Location: "/test-root", AutoOptimizeFragments: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	createTables(t, g, "a")
	var reserved []uint64
	var late uint64
	g.SetOptimizeGuard(func(branch string, tables []string, frags map[string][]uint64) ([]string, func()) {
		if reserved != nil {
			return nil, nil // one run
		}
		reserved = frags["a"]
		if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {99}}); err != nil {
			t.Error(err)
		}
		fs := fragmentIDs(t, g, head(t, g), "a")
		late = fs[len(fs)-1]
		return tables, nil
	})
	for i := int64(0); i < 4; i++ {
		if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {i}}); err != nil {
			t.Fatal(err)
		}
	}
	g.auto.wg.Wait()
	if len(reserved) < 2 {
		t.Fatalf("the guard was given fragments %v", reserved)
	}
	sn := head(t, g)
	after := fragmentIDs(t, g, sn, "a")
	if !slices.Contains(after, late) {
		t.Fatalf("the fragment written after the reservation (%d) was rewritten: fragments %v", late, after)
	}
	for _, f := range reserved {
		if slices.Contains(after, f) {
			t.Fatalf("reserved fragment %d was not rewritten: fragments %v", f, after)
		}
	}
	if got, _ := readIDs(t, g, sn, "a"); !slices.Equal(got, []int64{0, 1, 2, 3, 99}) {
		t.Fatalf("a = %v", got)
	}
}

func fragmentIDs(t *testing.T, g *Graph, sn *graph.Snapshot, table string) []uint64 {
	t.Helper()
	ds, _, err := g.Table(context.Background(), sn, table)
	if err != nil {
		t.Fatal(err)
	}
	var ids []uint64
	for _, f := range ds.Fragments() {
		ids = append(ids, f.ID)
	}
	return ids
}

// TestAutoOptimizeKeepsLargeFragments: background compaction merges the
// 1-row fragments single-row writes append to a table without rewriting
// the table's large fragment (its rows keep their addresses, so their
// row locks never wait for it); an explicit Optimize still merges all.
func TestAutoOptimizeKeepsLargeFragments(t *testing.T) {
	ctx := context.Background()
	g, err := Open(ctx, objstore.NewMem(), Options{Create: true, Actor: "test", Location: "/test-root", AutoOptimizeFragments: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	createTables(t, g, "a")
	var big []int64
	for i := range int64(autoSmallFragmentRows) {
		big = append(big, 1000+i)
	}
	if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": big}); err != nil {
		t.Fatal(err)
	}
	bigID := fragmentIDs(t, g, head(t, g), "a")[0]
	for i := int64(0); i < 4; i++ {
		if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {i}}); err != nil {
			t.Fatal(err)
		}
	}
	g.auto.wg.Wait()
	if runs, _ := g.AutoOptimizeStats(); runs == 0 {
		t.Fatal("no background optimize ran")
	}
	if got := fragmentIDs(t, g, head(t, g), "a"); len(got) >= 5 || got[0] != bigID {
		t.Fatalf("fragments after the background optimize %v, want the large one (%d) and fewer small ones", got, bigID)
	}
	if _, err := g.Optimize(ctx, "", "a"); err != nil {
		t.Fatal(err)
	}
	if got := fragmentIDs(t, g, head(t, g), "a"); len(got) != 1 {
		t.Fatalf("fragments after an explicit optimize %v, want one", got)
	}
}
