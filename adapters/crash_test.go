package adapters

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/recovery"
)

// crashLong runs every second-crash cell on every backend (make bench /
// nightly); the default run strides them.
var crashLong = flag.Bool("crash.long", false, "run the full crash sweep: every second-crash ordinal, and every fault mode on the local backend too (nightly: go test -tags failpoints ./adapters -run TestCrashSweep -args -crash.long)")

// writeShape is one write under test: the full content of each table
// before and after it (nil = the table does not exist).
type writeShape struct {
	name          string
	branch        string // graph branch written ("" = main)
	run           func(ctx context.Context, t testing.TB, g *Graph) error
	before, after map[string][]int64
	// layout, for a content-preserving write (Optimize: before == after),
	// tells from the physical layout whether the write is visible
	// ("all"), not visible ("none") or torn (anything else)
	layout func(t testing.TB, g *Graph, sn *graph.Snapshot) string
}

var seed = map[string][]int64{"a": {1}, "b": {100, 101}, "c": {200}}

func shapes() []writeShape {
	del := func(t testing.TB, g *Graph, s *Stage, table string, ids ...int64) error {
		_, addrs := readIDs(t, g, s.Base(), table)
		var as []uint64
		for _, id := range ids {
			as = append(as, addrs[id])
		}
		return s.Delete(table, as)
	}
	return []writeShape{
		{name: "one-table", run: func(ctx context.Context, t testing.TB, g *Graph) error {
			return insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {2, 3}})
		}, before: seed, after: map[string][]int64{"a": {1, 2, 3}, "b": {100, 101}, "c": {200}}},
		{name: "three-tables", run: func(ctx context.Context, t testing.TB, g *Graph) error {
			return insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {2}, "b": {102}, "c": {201}})
		}, before: seed, after: map[string][]int64{"a": {1, 2}, "b": {100, 101, 102}, "c": {200, 201}}},
		{name: "inserts-deletes", run: func(ctx context.Context, t testing.TB, g *Graph) error {
			_, err := g.Write(ctx, WriteOptions{}, func(ctx context.Context, s *Stage) error {
				if err := s.Insert("a", rowsOf(2)); err != nil {
					return err
				}
				if err := del(t, g, s, "b", 100); err != nil {
					return err
				}
				if err := del(t, g, s, "c", 200); err != nil { // update 200 → 202
					return err
				}
				return s.Insert("c", rowsOf(202))
			})
			return err
		}, before: seed, after: map[string][]int64{"a": {1, 2}, "b": {101}, "c": {202}}},
		{name: "create-with-rows", run: func(ctx context.Context, t testing.TB, g *Graph) error {
			_, err := g.Write(ctx, WriteOptions{}, func(ctx context.Context, s *Stage) error {
				if err := s.CreateTable(TableSpec{Name: "d", Columns: testCols}); err != nil {
					return err
				}
				if err := s.Insert("d", rowsOf(1, 2)); err != nil {
					return err
				}
				return s.Insert("a", rowsOf(2))
			})
			return err
		}, before: seed, after: map[string][]int64{"a": {1, 2}, "b": {100, 101}, "c": {200}, "d": {1, 2}}},
		// Optimize compacts b's two one-row fragments (seedRoot) into
		// one; the next write adds one more fragment to b
		{name: "optimize", run: func(ctx context.Context, t testing.TB, g *Graph) error {
			rc, err := g.Optimize(ctx, "", "b")
			if err == nil && rc == nil {
				t.Fatal("optimize found nothing to compact")
			}
			return err
		}, before: seed, after: seed, layout: func(t testing.TB, g *Graph, sn *graph.Snapshot) string {
			ds, _, err := g.Table(context.Background(), sn, "b")
			if err != nil {
				t.Fatal(err)
			}
			switch len(ds.Fragments()) {
			case 2:
				return "all"
			case 3:
				return "none"
			}
			return fmt.Sprintf("torn layout: %d fragments", len(ds.Fragments()))
		}},
		{name: "first-touch-on-branch", branch: "dev", run: func(ctx context.Context, t testing.TB, g *Graph) error {
			_, err := g.Write(ctx, WriteOptions{Branch: "dev"}, func(ctx context.Context, s *Stage) error {
				if err := s.Insert("a", rowsOf(2)); err != nil {
					return err
				}
				return del(t, g, s, "c", 200)
			})
			return err
		}, before: seed, after: map[string][]int64{"a": {1, 2}, "b": {100, 101}, "c": {}}},
	}
}

// backend makes fresh stores of one kind.
type backend struct {
	name string
	make func(t testing.TB) objstore.Store
}

func backends() []backend {
	return []backend{
		{name: "mem", make: func(testing.TB) objstore.Store { return objstore.NewMem() }},
		{name: "local", make: func(t testing.TB) objstore.Store {
			s, err := objstore.NewLocal(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			return s
		}},
	}
}

// seedRoot creates tables a, b, c with the seed rows (acknowledged).
func seedRoot(t testing.TB, store objstore.Store) {
	g := openGraph(t, store, true)
	defer g.Close()
	createTables(t, g, "a", "b", "c")
	// b's rows land as two fragments (something for Optimize to compact)
	if err := insert(context.Background(), g, WriteOptions{}, map[string][]int64{"a": seed["a"], "b": seed["b"][:1], "c": seed["c"]}); err != nil {
		t.Fatal(err)
	}
	if err := insert(context.Background(), g, WriteOptions{}, map[string][]int64{"b": seed["b"][1:]}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.CreateBranch(context.Background(), "dev", ""); err != nil {
		t.Fatal(err)
	}
}

// sweepStats aggregates the sweep's outcome counts.
type sweepStats struct {
	mu        sync.Mutex
	cells     int
	outcomes  map[string]int
	decisions map[recovery.Decision]int
	classes   map[recovery.Class]int
}

func (s *sweepStats) add(outcome string, rs recovery.Stats) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cells++
	s.outcomes[outcome]++
	for k, v := range rs.Decisions {
		s.decisions[k] += v
	}
	for k, v := range rs.Classes {
		s.classes[k] += v
	}
}

// verify reopens the root as a new process would, checks
// all-or-nothing visibility (and that an acknowledged write is there),
// runs the next write, and checks that no sidecar remains and every pin
// equals its table HEAD.
func verify(t testing.TB, store objstore.Store, sh writeShape, acked bool, g *Graph) (string, recovery.Stats) {
	t.Helper()
	ctx := context.Background()
	if g == nil {
		g = openGraph(t, store, false)
		defer g.Close()
	}
	// the next write runs the barrier first; then the graph must show
	// all of the write or none of it
	if err := insert(ctx, g, WriteOptions{Branch: sh.branch}, map[string][]int64{"b": {9999}}); err != nil {
		t.Fatalf("next write failed: %v", err)
	}
	sn, err := g.Head(ctx, sh.branch)
	if err != nil {
		t.Fatal(err)
	}
	content := map[string][]int64{}
	for _, e := range sn.State.Tables {
		if e.State == graph.Live {
			ids, _ := readIDs(t, g, sn, e.Name)
			if e.Name == "b" {
				ids = slices.DeleteFunc(ids, func(v int64) bool { return v == 9999 })
			}
			content[e.Name] = ids
		}
	}
	outcome := ""
	switch {
	case equalContent(content, sh.after):
		outcome = "all"
	case equalContent(content, sh.before):
		outcome = "none"
		if acked {
			t.Fatalf("acknowledged write lost: %v", content)
		}
	default:
		t.Fatalf("torn write: graph shows %v; before %v, after %v", content, sh.before, sh.after)
	}
	if sh.layout != nil {
		outcome = sh.layout(t, g, sn)
		switch {
		case outcome == "none" && acked:
			t.Fatalf("acknowledged optimize lost")
		case outcome != "all" && outcome != "none":
			t.Fatalf("torn write: %s", outcome)
		}
	}
	if objs, err := store.List(ctx, graph.RecoveryDir); err != nil || len(objs) != 0 {
		t.Fatalf("sidecars remain after the next write: %v %v", objs, err)
	}
	for _, e := range sn.State.Tables {
		if e.Branch != sh.branch {
			continue // inherited from the parent at a version the parent may have moved past
		}
		ds, err := lance.Open(ctx, store, e.Location, g.Root.DatasetOptions(e.Location, e.Branch, 0))
		if err != nil {
			t.Fatalf("table %s: %v", e.Name, err)
		}
		if ds.Version() != e.Version {
			t.Fatalf("table %s HEAD %d != pin %d", e.Name, ds.Version(), e.Version)
		}
	}
	return outcome, g.Recovery.Stats()
}

func equalContent(a, b map[string][]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) && !(len(v) == 0 && len(b[k]) == 0) {
			return false
		}
	}
	return true
}

// countOps runs the shape once and returns its durable (write) op count.
func countOps(t testing.TB, bk backend, sh writeShape) int64 {
	store := bk.make(t)
	seedRoot(t, store)
	f := objstore.NewFaulty(store)
	f.SetRule(&objstore.FaultRule{Ops: objstore.MaskWrites, N: 1 << 40, Mode: objstore.FailOnce})
	g := openGraph(t, f, false)
	defer g.Close()
	if err := sh.run(context.Background(), t, g); err != nil {
		t.Fatal(err)
	}
	return f.Count()
}

func TestCrashSweep(t *testing.T) {
	st := &sweepStats{outcomes: map[string]int{}, decisions: map[recovery.Decision]int{}, classes: map[recovery.Class]int{}}
	for _, bk := range backends() {
		for _, sh := range shapes() {
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
				// the local backend runs the crash cells (real fsync, link,
				// rename); its fault and double-crash cells repeat the
				// in-memory ones at fsync cost, so they run with -crash.long
				if bk.name == "mem" || *crashLong {
					for c := int64(1); c <= n; c++ {
						failCell(t, bk, sh, c, objstore.FailOnce, st)
						failCell(t, bk, sh, c, objstore.FailPersistent, st)
					}
				}
				if bk.name == "mem" || *crashLong {
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
	fmt.Fprintf(&b, "crash sweep: %d cells; outcomes %v; recovery decisions %s; classes %s",
		st.cells, st.outcomes, fmtCounts(st.decisions), fmtCounts(st.classes))
	t.Log(b.String())
	fmt.Println(b.String())
	for _, d := range []recovery.Decision{recovery.RolledForward, recovery.RolledBackDec, recovery.Converged} {
		if st.decisions[d] == 0 {
			t.Errorf("the sweep never reached recovery decision %s", d)
		}
	}
}

func fmtCounts[K ~string](m map[K]int) string {
	var ks []string
	for k, v := range m {
		ks = append(ks, fmt.Sprintf("%s=%d", k, v))
	}
	sort.Strings(ks)
	return "{" + strings.Join(ks, " ") + "}"
}

// crashCell crashes right after durable op c (c = 0: before the first).
func crashCell(t *testing.T, bk backend, sh writeShape, c int64, st *sweepStats) {
	store := bk.make(t)
	seedRoot(t, store)
	f := objstore.NewFaulty(store)
	if c == 0 {
		f.SetRule(&objstore.FaultRule{Ops: objstore.MaskWrites, N: 1, Mode: objstore.Crash})
	} else {
		f.SetRule(&objstore.FaultRule{Ops: objstore.MaskWrites, N: c, Mode: objstore.CrashAfter})
	}
	g := openGraph(t, f, false)
	err := sh.run(context.Background(), t, g)
	g.Close() // the process is gone
	out, rs := verify(t, store, sh, err == nil, nil)
	st.add(out, rs)
}

// powerLossCell publishes op c's name but crashes before its directory
// fsync, then loses a random subset of the unsynced changes.
func powerLossCell(t *testing.T, sh writeShape, c int64, st *sweepStats) {
	mem := objstore.NewMem()
	seedRoot(t, mem)
	var mu sync.Mutex
	published, crashed := int64(0), false
	errCrash := errors.New("simulated power loss")
	mem.SetStepHook(func(op, key string, step objstore.Step) error {
		mu.Lock()
		defer mu.Unlock()
		if crashed {
			return errCrash
		}
		if step == objstore.StepPublish {
			published++
		}
		if step == objstore.StepSyncDir && published == c && c > 0 {
			crashed = true
			return errCrash
		}
		return nil
	})
	g := openGraph(t, mem, false)
	err := sh.run(context.Background(), t, g)
	g.Close()
	mem.SetStepHook(nil)
	mem.PowerLoss(rand.New(rand.NewPCG(uint64(c), 7)))
	out, rs := verify(t, mem, sh, err == nil, nil)
	st.add(out, rs)
}

// failCell fails op c once or persistently; the process lives on.
func failCell(t *testing.T, bk backend, sh writeShape, c int64, mode objstore.FaultMode, st *sweepStats) {
	store := bk.make(t)
	seedRoot(t, store)
	f := objstore.NewFaulty(store)
	f.SetRule(&objstore.FaultRule{Ops: objstore.MaskWrites, N: c, Mode: mode})
	g := openGraph(t, f, false)
	defer g.Close()
	err := sh.run(context.Background(), t, g)
	if mode == objstore.FailOnce {
		// same process, next write (its barrier resolves our own
		// abandoned intent)
		out, rs := verify(t, f, sh, err == nil, g)
		st.add(out, rs)
		return
	}
	g.Close()
	out, rs := verify(t, store, sh, err == nil, nil)
	st.add(out, rs)
}

// doubleCrashCells crashes at c, then crashes again at every ordinal of
// the recovering process's next write, then verifies with a third.
func doubleCrashCells(t *testing.T, bk backend, sh writeShape, c int64, st *sweepStats) {
	ctx := context.Background()
	prep := func() objstore.Store {
		store := bk.make(t)
		seedRoot(t, store)
		f := objstore.NewFaulty(store)
		f.SetRule(&objstore.FaultRule{Ops: objstore.MaskWrites, N: c, Mode: objstore.CrashAfter})
		g := openGraph(t, f, false)
		_ = sh.run(ctx, t, g)
		g.Close()
		return store
	}
	// count the recovering write's ops
	store := prep()
	f := objstore.NewFaulty(store)
	f.SetRule(&objstore.FaultRule{Ops: objstore.MaskWrites, N: 1 << 40, Mode: objstore.FailOnce})
	g := openGraph(t, f, false)
	if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {5000}}); err != nil {
		t.Fatalf("recovering write: %v", err)
	}
	g.Close()
	r := f.Count()
	for k := int64(1); k <= r; k++ {
		store := prep()
		f := objstore.NewFaulty(store)
		f.SetRule(&objstore.FaultRule{Ops: objstore.MaskWrites, N: k, Mode: objstore.CrashAfter})
		g := openGraph(t, f, false)
		_ = insert(ctx, g, WriteOptions{}, map[string][]int64{"c": {5000}})
		g.Close()
		out, rs := verifyLoose(t, store, sh, k)
		st.add(out, rs)
	}
}

// verifyLoose is verify for a root where a second, unacknowledged write
// inserting c=5000 may or may not be visible.
func verifyLoose(t testing.TB, store objstore.Store, sh writeShape, k int64) (string, recovery.Stats) {
	t.Helper()
	ctx := context.Background()
	g := openGraph(t, store, false)
	defer g.Close()
	if err := g.Recovery.Barrier(ctx, graph.MainBranch); err != nil {
		t.Fatalf("second crash at %d: barrier: %v", k, err)
	}
	sn := head(t, g)
	if ids, _ := readIDs(t, g, sn, "c"); slices.Contains(ids, 5000) {
		// remove the optional marker so the all-or-nothing check below
		// sees only the first write
		_, addrs := readIDs(t, g, sn, "c")
		if _, err := g.Write(ctx, WriteOptions{}, func(ctx context.Context, s *Stage) error {
			return s.Delete("c", []uint64{addrs[5000]})
		}); err != nil {
			t.Fatalf("second crash at %d: cleanup write: %v", k, err)
		}
	}
	return verify(t, store, sh, false, g)
}
