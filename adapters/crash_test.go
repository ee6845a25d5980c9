package adapters

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

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
	// scratch is the table the second-crash write inserts into (default
	// "c"; shapes that change c's schema or drop it use "a")
	scratch string
}

func (sh writeShape) scratchTable() string {
	if sh.scratch == "" {
		return "c"
	}
	return sh.scratch
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
		// group commit: three writers' inserts in one graph commit
		{name: "group-commit", run: func(ctx context.Context, t testing.TB, g *Graph) error {
			return groupOf(ctx, g, map[string][]int64{"a": {2}}, map[string][]int64{"b": {102}}, map[string][]int64{"a": {3}, "c": {201}})
		}, before: seed, after: map[string][]int64{"a": {1, 2, 3}, "b": {100, 101, 102}, "c": {200, 201}}},
		// group commit of an UPDATE (b: 100 → 103), an UPDATE (c: 200 →
		// 204) and an INSERT, each its own member
		{name: "group-commit-updates", run: func(ctx context.Context, t testing.TB, g *Graph) error {
			update := func(table string, from, to int64) StageFunc {
				return func(ctx context.Context, s *Stage) error {
					if err := del(t, g, s, table, from); err != nil {
						return err
					}
					return s.InsertBatches(table, testSchema, batchOf(to))
				}
			}
			return groupOfFns(ctx, g, update("b", 100, 103), update("c", 200, 204), insertFn(map[string][]int64{"a": {2}}))
		}, before: seed, after: map[string][]int64{"a": {1, 2}, "b": {101, 103}, "c": {204}}},
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
				// in-memory batches: a predicted create (commit path v2);
				// they outlive the write (the GC owns their memory)
				d, a := batchOf(1, 2), batchOf(2)
				if err := s.InsertBatches("d", testSchema, d); err != nil {
					return err
				}
				return s.InsertBatches("a", testSchema, a)
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

// widthOf reports the column count of table name in sn ("all" when it
// is want, "none" when it is 2, the seed width).
func widthOf(name string, want int) func(t testing.TB, g *Graph, sn *graph.Snapshot) string {
	return func(t testing.TB, g *Graph, sn *graph.Snapshot) string {
		e, ok := sn.State.TableByName(name)
		if !ok {
			return "table " + name + " missing"
		}
		ds, _, err := g.Table(context.Background(), sn, name)
		if err != nil {
			t.Fatal(err)
		}
		switch n := len(e.Def.Columns); {
		case n != ds.Schema().NumFields():
			return fmt.Sprintf("torn: definition has %d columns, dataset %d", n, ds.Schema().NumFields())
		case n == want:
			return "all"
		case n == 2:
			return "none"
		default:
			return fmt.Sprintf("torn: %d columns", n)
		}
	}
}

// viewPlaceholderDef is the stored definition of a SQL view as
// planner/ddl writes it (TableMeta version 2 in Extra).
func viewPlaceholderDef() *graph.TableDef {
	return &graph.TableDef{Columns: []graph.ColumnDef{{Name: "?view?", Type: "null", Nullable: true}},
		Extra: []byte(`{"v":2,"relkind":"view","columns":[{"name":"id","type":{"oid":20,"mod":-1}}],"graph":{"kind":"relation"},"view":{"query":"SELECT a.id AS id FROM public.a"}}`)}
}

// schemaShapes are the SchemaApply and Load writes of the crash sweep:
// each changes the catalog (or streams a load) and must be all-or-nothing
// like a Mutation.
func schemaShapes() []writeShape {
	replaceC := func(s *Stage) error {
		e, _ := s.Base().State.TableByName("c")
		return s.ReplaceTable("c", addColumnW(e), wideRowsOf(200))
	}
	load := func(branch string, perFile uint64, ids ...int64) func(ctx context.Context, t testing.TB, g *Graph) error {
		return func(ctx context.Context, t testing.TB, g *Graph) error {
			_, err := g.Load(ctx, WriteOptions{Branch: branch, MaxRowsPerFile: perFile}, "a", rowsOf(ids...), nil)
			return err
		}
	}
	stage := func(branch string, fn func(s *Stage) error) func(ctx context.Context, t testing.TB, g *Graph) error {
		return func(ctx context.Context, t testing.TB, g *Graph) error {
			_, err := g.Write(ctx, WriteOptions{Branch: branch}, func(ctx context.Context, s *Stage) error { return fn(s) })
			return err
		}
	}
	return []writeShape{
		{name: "alter-rewrite", scratch: "a", run: stage("", replaceC),
			before: seed, after: seed, layout: widthOf("c", 3)},
		{name: "alter-catalog-only", scratch: "a", run: stage("", func(s *Stage) error {
			e, _ := s.Base().State.TableByName("c")
			e.Def.Extra = []byte(`{"comment":"renamed"}`)
			return s.Redefine("c", "cc", e.Def)
		}), before: seed, after: map[string][]int64{"a": {1}, "b": {100, 101}, "cc": {200}}},
		{name: "drop", scratch: "a", run: stage("", func(s *Stage) error { return s.DropTable("c") }),
			before: seed, after: map[string][]int64{"a": {1}, "b": {100, 101}}},
		{name: "truncate", scratch: "a", run: stage("", func(s *Stage) error {
			if err := s.Truncate("c"); err != nil {
				return err
			}
			return s.Insert("c", rowsOf(201))
		}), before: seed, after: map[string][]int64{"a": {1}, "b": {100, 101}, "c": {201}}},
		{name: "drop-create-same-name", scratch: "a", run: stage("", func(s *Stage) error {
			if err := s.DropTable("c"); err != nil {
				return err
			}
			if err := s.CreateTable(TableSpec{Name: "c", Def: &graph.TableDef{Columns: []graph.ColumnDef{
				{Name: "id", Type: "int64"}, {Name: "v", Type: "string", Nullable: true}, {Name: "w", Type: "int64", Nullable: true}}}}); err != nil {
				return err
			}
			return s.Insert("c", wideRowsOf(300))
		}), before: seed, after: map[string][]int64{"a": {1}, "b": {100, 101}, "c": {300}}},
		{name: "alter-on-branch", branch: "dev", scratch: "a", run: stage("dev", func(s *Stage) error {
			if err := replaceC(s); err != nil {
				return err
			}
			return s.Insert("a", rowsOf(2)) // first touch in the same commit
		}), before: seed, after: map[string][]int64{"a": {1, 2}, "b": {100, 101}, "c": {200}}, layout: widthOf("c", 3)},
		// A SQL view (planner/ddl) is a catalog entry whose definition
		// stores no columns (one placeholder of type null): CREATE VIEW
		// in a transaction with a write, and with a DROP of another table
		// (DROP … CASCADE's shape), is one commit like any other DDL.
		{name: "create-view", scratch: "a", run: stage("", func(s *Stage) error {
			if err := s.CreateTable(TableSpec{Name: "v", Def: viewPlaceholderDef()}); err != nil {
				return err
			}
			return s.Insert("a", rowsOf(2))
		}), before: seed, after: map[string][]int64{"a": {1, 2}, "b": {100, 101}, "c": {200}, "v": {}}},
		{name: "create-view-drop-table", scratch: "a", run: stage("", func(s *Stage) error {
			if err := s.DropTable("c"); err != nil {
				return err
			}
			if err := s.CreateTable(TableSpec{Name: "v", Def: viewPlaceholderDef()}); err != nil {
				return err
			}
			e, _ := s.Base().State.TableByName("b")
			e.Def.Extra = []byte(`{"comment":"view reads b"}`)
			return s.Redefine("b", "", e.Def)
		}), before: seed, after: map[string][]int64{"a": {1}, "b": {100, 101}, "v": {}}},
		{name: "load", run: load("", 2, 2, 3, 4, 5, 6, 7),
			before: seed, after: map[string][]int64{"a": {1, 2, 3, 4, 5, 6, 7}, "b": {100, 101}, "c": {200}}},
		{name: "load-on-branch", branch: "dev", run: load("dev", 1, 2, 3, 4),
			before: seed, after: map[string][]int64{"a": {1, 2, 3, 4}, "b": {100, 101}, "c": {200}}},
	}
}

// backend makes fresh stores of one kind.
type backend struct {
	name string
	make func(t testing.TB) objstore.Store
	// seed, when set, returns a fresh store holding the seeded root
	seed func(t testing.TB) objstore.Store
}

// memSeed is the seeded in-memory root every in-memory cell starts from
// (cloned: seeding is most of a cell's cost otherwise).
var memSeed struct {
	sync.Mutex
	tmpl *objstore.Mem
}

// backends are the stores the sweeps run on. Every cell starts from
// the same seeded root, copied from one template per backend (seeding
// is most of a cell's cost otherwise): in-memory stores are cloned
// object by object (all durable); local ones copy the template
// directory with plain file copies — the local cells crash the process,
// they do not lose power, so the copies are as durable as seeding made
// the template.
func backends() []backend {
	bs := []backend{
		{name: "mem", make: func(testing.TB) objstore.Store { return objstore.NewMem() },
			seed: func(t testing.TB) objstore.Store { return seededMem(t) }},
		{name: "local", make: func(t testing.TB) objstore.Store {
			s, err := objstore.NewLocal(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			return s
		}, seed: seededLocal},
	}
	if testing.Short() {
		// make test-short: the local backend's cells wait on fsyncs; make
		// test runs both backends
		return bs[:1]
	}
	return bs
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

// localSeed is the seeded local root template (a temporary directory
// removed by TestMain).
var localSeed struct {
	sync.Mutex
	dir string
}

// seededLocal returns a fresh local store (under t's temporary
// directory) holding a copy of the seeded root.
func seededLocal(t testing.TB) objstore.Store {
	t.Helper()
	localSeed.Lock()
	if localSeed.dir == "" {
		dir, err := os.MkdirTemp("", "adapters-seed-")
		if err != nil {
			localSeed.Unlock()
			t.Fatal(err)
		}
		s, err := objstore.NewLocal(dir)
		if err != nil {
			localSeed.Unlock()
			t.Fatal(err)
		}
		seedRoot(t, s)
		localSeed.dir = dir
	}
	tmpl := localSeed.dir
	localSeed.Unlock()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(tmpl)); err != nil {
		t.Fatal(err)
	}
	s, err := objstore.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// removeSeedTemplates deletes the local template (TestMain).
func removeSeedTemplates() {
	localSeed.Lock()
	defer localSeed.Unlock()
	if localSeed.dir != "" {
		_ = os.RemoveAll(localSeed.dir)
		localSeed.dir = ""
	}
}

// seededMem returns a fresh in-memory store holding the seeded root (all
// of it durable).
func seededMem(t testing.TB) *objstore.Mem {
	t.Helper()
	ctx := context.Background()
	memSeed.Lock()
	if memSeed.tmpl == nil {
		m := objstore.NewMem()
		seedRoot(t, m)
		memSeed.tmpl = m
	}
	tmpl := memSeed.tmpl
	memSeed.Unlock()
	objs, err := tmpl.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	out := objstore.NewMem()
	for _, o := range objs {
		b, err := tmpl.Get(ctx, o.Key)
		if err == nil {
			err = out.Put(ctx, o.Key, b)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// seeded returns a fresh store of the backend holding the seeded root.
func seeded(t testing.TB, bk backend) objstore.Store {
	if bk.seed != nil {
		return bk.seed(t)
	}
	store := bk.make(t)
	seedRoot(t, store)
	return store
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
		if e.State == graph.Live && !slices.ContainsFunc(e.Def.Columns, func(c graph.ColumnDef) bool { return c.Name == "id" }) {
			content[e.Name] = []int64{} // a view: an entry without rows
			continue
		}
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
		byContent := outcome
		outcome = sh.layout(t, g, sn)
		switch {
		case outcome == "none" && acked:
			t.Fatalf("acknowledged write lost (layout)")
		case outcome != "all" && outcome != "none":
			t.Fatalf("torn write: %s", outcome)
		case !equalContent(sh.before, sh.after) && outcome != byContent:
			t.Fatalf("torn write: rows say %s, layout says %s", byContent, outcome)
		}
	}
	if objs, err := store.List(ctx, graph.RecoveryDir); err != nil || len(objs) != 0 {
		t.Fatalf("sidecars remain after the next write: %v %v", objs, err)
	}
	// a version published before it was written (commit path v2) is
	// materialized by its first reader or the next serve start (this
	// stands in for the latter); then every HEAD is its pin
	if err := MaterializeHeads(ctx, g.Root); err != nil {
		t.Fatalf("materializing the published versions: %v", err)
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
	store := seeded(t, bk)
	f := objstore.NewFaulty(store)
	f.SetRule(&objstore.FaultRule{Ops: objstore.MaskWrites, N: 1 << 40, Mode: objstore.FailOnce})
	g := openGraph(t, f, false)
	defer g.Close()
	if err := sh.run(context.Background(), t, g); err != nil {
		t.Fatal(err)
	}
	return f.Count()
}

// TestCrashSweep sweeps the Mutation and Optimize shapes: every crash
// ordinal on both backends, the fault and second-crash cells in
// full on the in-memory backend and sampled on the local one.
func TestCrashSweep(t *testing.T) {
	runSweep(t, "crash sweep", shapes(), true, []recovery.Decision{recovery.RolledForward, recovery.RolledBackDec, recovery.Converged})
}

// TestSchemaCrashSweep sweeps the SchemaApply (create, rewrite,
// catalog-only alter, drop, truncate, drop+create, alter on a branch,
// CREATE VIEW with a write and with a drop) and Load shapes: every cell on the in-memory backend, sampled cells on
// the local one (-crash.long: every cell).
func TestSchemaCrashSweep(t *testing.T) {
	runSweep(t, "schema/load crash sweep", schemaShapes(), false, []recovery.Decision{recovery.RolledForward, recovery.RolledBackDec, recovery.Converged, recovery.EmptyIntentDone})
}

// sweepSeed varies the sampled local cells between runs; a failure names
// it (rerun with -crash.seed).
var sweepSeed = flag.Uint64("crash.seed", 0, "seed of the sampled local-backend crash cells (0 = time-based; printed by the sweep)")

// sampleOrdinals picks k distinct ordinals of lo..hi (all of them when
// k covers the range), always including lo and hi.
func sampleOrdinals(r *rand.Rand, lo, hi int64, k int) []int64 {
	if hi < lo {
		return nil
	}
	if hi-lo+1 <= int64(k) {
		var out []int64
		for c := lo; c <= hi; c++ {
			out = append(out, c)
		}
		return out
	}
	set := map[int64]bool{lo: true, hi: true}
	for len(set) < k {
		set[lo+r.Int64N(hi-lo+1)] = true
	}
	out := make([]int64, 0, k)
	for c := range set {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// sweepRng draws the sampled cells of every sweep in this test binary
// from -crash.seed.
var sweepRng struct {
	sync.Mutex
	seed uint64
	r    *rand.Rand
}

// sweepRand returns the sampling source (safe: the sweeps run
// sequentially; the mutex guards its creation).
func sweepRand() *rand.Rand {
	sweepRng.Lock()
	defer sweepRng.Unlock()
	if sweepRng.r == nil {
		sweepRng.seed = *sweepSeed
		if sweepRng.seed == 0 {
			sweepRng.seed = uint64(time.Now().UnixNano())
		}
		sweepRng.r = rand.New(rand.NewPCG(sweepRng.seed, 22))
	}
	return sweepRng.r
}

func runSweep(t *testing.T, label string, shs []writeShape, localEveryCrash bool, want []recovery.Decision) {
	st := &sweepStats{outcomes: map[string]int{}, decisions: map[recovery.Decision]int{}, classes: map[recovery.Class]int{}}
	rng := sweepRand()
	seed := sweepRng.seed
	perShape := map[string]int{}
	for _, bk := range backends() {
		for _, sh := range shs {
			t.Run(bk.name+"/"+sh.name, func(t *testing.T) {
				before := st.count()
				defer func() { perShape[bk.name+"/"+sh.name] = st.count() - before }()
				n := countOps(t, bk, sh)
				if n < 1 {
					t.Fatalf("shape does no durable op")
				}
				full := bk.name == "mem" || *crashLong
				crashes := sampleOrdinals(rng, 0, n, 6)
				if full || localEveryCrash {
					crashes = sampleOrdinals(rng, 0, n, int(n)+1)
				}
				for _, c := range crashes {
					crashCell(t, bk, sh, c, st)
					if bk.name == "mem" {
						powerLossCell(t, sh, c, st)
					}
				}
				// the local backend repeats the in-memory fault cells at
				// fsync cost: a random sample by default, all with -crash.long
				faults := sampleOrdinals(rng, 1, n, 3)
				if full {
					faults = sampleOrdinals(rng, 1, n, int(n))
				}
				for _, c := range faults {
					failCell(t, bk, sh, c, objstore.FailOnce, st)
					failCell(t, bk, sh, c, objstore.FailPersistent, st)
				}
				var doubles []int64
				switch {
				case *crashLong:
					doubles = sampleOrdinals(rng, 1, n, int(n))
				case bk.name == "mem":
					for c := int64(1); c <= n; c += 3 {
						doubles = append(doubles, c)
					}
				default:
					doubles = sampleOrdinals(rng, 1, n, 1)
				}
				for _, c := range doubles {
					doubleCrashCells(t, bk, sh, c, st)
				}
				if t.Failed() {
					t.Logf("%s: crash cells %v, fault cells %v, second-crash cells %v (seed %d)", label, crashes, faults, doubles, seed)
				}
			})
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (seed %d): %d cells %s; outcomes %v; recovery decisions %s; classes %s",
		label, seed, st.cells, fmtCounts(perShape), st.outcomes, fmtCounts(st.decisions), fmtCounts(st.classes))
	t.Log(b.String())
	fmt.Println(b.String())
	for _, d := range want {
		if st.decisions[d] == 0 {
			t.Errorf("the sweep never reached recovery decision %s", d)
		}
	}
}

func (s *sweepStats) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cells
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
	store := seeded(t, bk)
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
	mem := seededMem(t)
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
	store := seeded(t, bk)
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
		store := seeded(t, bk)
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
	ks := sampleOrdinals(sweepRand(), 1, r, int(r))
	if bk.name != "mem" && !*crashLong {
		// local: a random sample of the recovering write's ordinals
		ks = sampleOrdinals(sweepRand(), 1, r, 4)
	}
	for _, k := range ks {
		store := prep()
		f := objstore.NewFaulty(store)
		f.SetRule(&objstore.FaultRule{Ops: objstore.MaskWrites, N: k, Mode: objstore.CrashAfter})
		g := openGraph(t, f, false)
		_ = insert(ctx, g, WriteOptions{}, map[string][]int64{sh.scratchTable(): {5000}})
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
	scratch := sh.scratchTable()
	if _, ok := sn.State.TableByName(scratch); !ok {
		return verify(t, store, sh, false, g)
	}
	if ids, addrs := readIDs(t, g, sn, scratch); slices.Contains(ids, 5000) {
		// remove the optional marker so the all-or-nothing check below
		// sees only the first write
		if _, err := g.Write(ctx, WriteOptions{}, func(ctx context.Context, s *Stage) error {
			return s.Delete(scratch, []uint64{addrs[5000]})
		}); err != nil {
			t.Fatalf("second crash at %d: cleanup write: %v", k, err)
		}
	}
	return verify(t, store, sh, false, g)
}
