package adapters

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/protocol"
	"github.com/pggraph/pggraph/recovery"
)

// readEverything opens every Lance version of every branch of every
// dataset in the root and reads all of its rows: it fails if any file a
// version references is missing. It returns the number of versions read.
func readEverything(t *testing.T, g *Graph) int {
	t.Helper()
	ctx := context.Background()
	store := g.Root.Store()
	roots, err := datasetRoots(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, root := range roots {
		ds, err := lance.Open(ctx, store, root, g.Root.DatasetOptions(root, "", 0))
		if lance.IsNotFound(err) {
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", root, err)
		}
		heads := []*lance.Dataset{ds}
		refs, err := ds.ListBranches(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range refs {
			b, err := lance.Open(ctx, store, root, g.Root.DatasetOptions(root, r.Name, 0))
			if err != nil {
				t.Fatalf("%s@%s: %v", root, r.Name, err)
			}
			heads = append(heads, b)
		}
		for _, h := range heads {
			vs, err := h.ListVersions(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range vs {
				vd, err := h.Checkout(ctx, v.Version)
				if err != nil {
					t.Fatalf("%s@%s v%d: %v", root, h.Branch(), v.Version, err)
				}
				if _, err := vd.Transaction(ctx, v.Version); err != nil {
					t.Fatalf("%s@%s v%d transaction: %v", root, h.Branch(), v.Version, err)
				}
				sc, err := vd.Scan(ctx, lance.ScanOptions{})
				if err != nil {
					t.Fatalf("%s@%s v%d: %v", root, h.Branch(), v.Version, err)
				}
				for {
					rec, err := sc.Next(ctx)
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						t.Fatalf("%s@%s v%d: %v", root, h.Branch(), v.Version, err)
					}
					rec.Release()
				}
				sc.Close()
				n++
			}
		}
	}
	return n
}

// garbageRoot builds a root with history on main and dev and leaves
// garbage of every kind Cleanup reclaims: staged files of an attempt
// that never committed, a data file of a lost __manifest publish, and a
// table dataset no manifest registers (a rolled-back CREATE TABLE).
func garbageRoot(t *testing.T) (*Graph, []string) {
	t.Helper()
	ctx := context.Background()
	g := mergeRoot(t)
	if err := insert(ctx, g, WriteOptions{Branch: "dev"}, map[string][]int64{"a": {2}}); err != nil {
		t.Fatal(err)
	}
	if err := update(t, g, "", "b", 100, 110); err != nil {
		t.Fatal(err)
	}
	store := g.Root.Store()
	// a metadata-only commit whose base the lost publish below reuses
	sn := head(t, g)
	if _, err := g.Root.Publish(ctx, sn, sn.State.Clone(), graph.Commit{ID: graph.NewID()}); err != nil {
		t.Fatal(err)
	}
	before := map[string]bool{}
	objs, _ := store.List(ctx, "")
	for _, o := range objs {
		before[o.Key] = true
	}
	// an attempt staged on a's main version and on dev's fork, never committed
	for _, br := range []string{"", "dev"} {
		bsn, _ := g.Head(ctx, br)
		e, _ := bsn.State.TableByName("a")
		ds, err := lance.Open(ctx, store, e.Location, g.Root.DatasetOptions(e.Location, e.Branch, e.Version))
		if err != nil {
			t.Fatal(err)
		}
		rdr, _ := rowsOf(77)(context.Background())
		if _, err := ds.StageAppend(ctx, rdr, lance.StageOptions{}); err != nil {
			t.Fatal(err)
		}
		rdr.Release()
	}
	// a lost publish: a staged __manifest overwrite that lost its slot
	stale := sn
	if _, err := g.Root.Publish(ctx, stale, stale.State.Clone(), graph.Commit{ID: graph.NewID()}); !lance.IsConflict(err) {
		t.Fatalf("stale publish: %v", err)
	}
	// a created dataset nobody registered
	orphan := graph.TableLocation(graph.TableKey{ID: 900, Incarnation: 901})
	rdr, _ := rowsOf(1)(context.Background())
	st, err := lance.New(store, orphan, g.Root.DatasetOptions(orphan, "", 0)).StageOverwrite(ctx, rdr, lance.StageOptions{})
	rdr.Release()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Commit(ctx, lance.CommitOptions{Mode: lance.CommitExact}); err != nil {
		t.Fatal(err)
	}
	objs, _ = store.List(ctx, "")
	var garbage []string
	for _, o := range objs {
		if !before[o.Key] && !strings.Contains(o.Key, "/_versions/") && !strings.HasPrefix(o.Key, graph.RecoveryDir) {
			garbage = append(garbage, o.Key)
		}
	}
	return g, garbage
}

func TestCleanupReclaimsGarbageAndNothingReachable(t *testing.T) {
	ctx := context.Background()
	g, garbage := garbageRoot(t)
	versions := readEverything(t, g)
	later := func() time.Time { return time.Now().Add(48 * time.Hour) }
	// within the grace period nothing goes
	rep, err := g.Cleanup(ctx, CleanupOptions{})
	if err != nil || len(rep.Deleted) != 0 || rep.KeptYoung == 0 {
		t.Fatalf("young cleanup: deleted %v, kept young %d, %v", rep.Deleted, rep.KeptYoung, err)
	}
	// a dry run reports without deleting
	dry, err := g.Cleanup(ctx, CleanupOptions{DryRun: true, Now: later})
	if err != nil {
		t.Fatal(err)
	}
	objs, _ := g.Root.Store().List(ctx, "")
	var progress []CleanupProgress
	rep, err = g.Cleanup(ctx, CleanupOptions{Now: later, Progress: func(p CleanupProgress) { progress = append(progress, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dry.Deleted, rep.Deleted) || len(objs) <= len(rep.Deleted) {
		t.Fatalf("dry run %v vs %v", dry.Deleted, rep.Deleted)
	}
	// every piece of garbage is gone, and only garbage
	slices.Sort(garbage)
	for _, k := range garbage {
		if _, err := g.Root.Store().Stat(ctx, k); !objstore.IsNotFound(err) {
			t.Errorf("garbage %s survived cleanup", k)
		}
	}
	for _, k := range rep.Deleted {
		if !slices.Contains(garbage, k) && !strings.HasPrefix(k, graph.TableLocation(graph.TableKey{ID: 900, Incarnation: 901})) {
			t.Errorf("cleanup deleted %s, which was not garbage", k)
		}
	}
	if len(rep.OrphanDatasets) != 1 || len(progress) != rep.Datasets || progress[len(progress)-1].Done != rep.Datasets {
		t.Fatalf("orphans %v, progress %d of %d datasets", rep.OrphanDatasets, len(progress), rep.Datasets)
	}
	// every version of every dataset still reads, every branch and every
	// graph commit still resolves, and writes go on
	if n := readEverything(t, g); n != versions-1 { // minus the orphan's one version
		t.Fatalf("read %d versions after cleanup, %d before", n, versions)
	}
	for _, br := range []string{"", "dev"} {
		h, err := g.Root.History(ctx, br)
		if err != nil {
			t.Fatal(err)
		}
		for _, sn := range h {
			for _, e := range sn.State.Tables {
				if e.State == graph.Live {
					readIDs(t, g, sn, e.Name)
				}
			}
		}
	}
	if got := branchIDs(t, g, "dev", "a"); !slices.Equal(got, []int64{1, 2}) {
		t.Fatalf("dev.a = %v", got)
	}
	if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {8}}); err != nil {
		t.Fatal(err)
	}
	if err := insert(ctx, g, WriteOptions{Branch: "dev"}, map[string][]int64{"a": {9}}); err != nil {
		t.Fatal(err)
	}
	// a second run finds nothing more
	again, err := g.Cleanup(ctx, CleanupOptions{Now: later})
	if err != nil || len(again.Deleted) != 0 {
		t.Fatalf("second cleanup: %v %v", again.Deleted, err)
	}
	t.Logf("cleanup: %d datasets, %d candidates, deleted %d files (%d bytes), %d orphan dataset(s); %d versions re-read",
		rep.Datasets, rep.FilesScanned, len(rep.Deleted), rep.DeletedBytes, len(rep.OrphanDatasets), versions)
}

// A dataset named by an intent whose owner may be alive is not touched;
// an unreadable intent refuses the cleanup.
func TestCleanupRespectsTheRecoveryBarrier(t *testing.T) {
	ctx := context.Background()
	g, _ := garbageRoot(t)
	later := func() time.Time { return time.Now().Add(48 * time.Hour) }
	sn := head(t, g)
	e, _ := sn.State.TableByName("a")
	pw := &protocol.PreparedWrite{OperationID: graph.NewID(), WriterKind: Mutation, Base: protocol.NewBaseView(sn),
		Lineage:  &protocol.LineageIntent{CommitID: graph.NewID(), RollbackCommitID: graph.NewID()},
		Recovery: protocol.RecoveryPlan{Strategy: protocol.RollBackArmedForwardConfirmed},
		Effects: []protocol.Effect{{Table: e.Key(), Location: e.Location, Kind: protocol.EffectStaged,
			ExpectedVersion: e.Version, TxnUUID: "00000000-0000-4000-8000-000000000001", Post: protocol.PostExact}}}
	sc := &recovery.Sidecar{FormatVersion: recovery.SidecarVersion, OperationID: pw.OperationID, WriterKind: Mutation,
		Branch: "main", Phase: recovery.Armed, CreatedAt: time.Now().UTC(), Write: pw,
		Owner: recovery.Owner{Host: "another-machine", BootID: "b", PID: 1, LeaseExpiry: time.Now().Add(time.Hour)}}
	b, _ := sc.Encode()
	if err := g.Root.Store().PutIfAbsent(ctx, recovery.Key(pw.OperationID), b); err != nil {
		t.Fatal(err)
	}
	rep, err := g.Cleanup(ctx, CleanupOptions{Now: later})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range rep.Deleted {
		if strings.HasPrefix(k, e.Location+"/") {
			t.Fatalf("deleted %s of a dataset a live intent names", k)
		}
	}
	if len(rep.Skipped) == 0 || !strings.Contains(strings.Join(rep.Skipped, " "), pw.OperationID) {
		t.Fatalf("skipped %v", rep.Skipped)
	}
	if err := g.Root.Store().Put(ctx, recovery.Key("01BADBADBADBADBADBADBADBAD"), []byte("{")); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Cleanup(ctx, CleanupOptions{Now: later}); !protocol.IsRecoveryRequired(err) {
		t.Fatalf("cleanup beside an unreadable intent: %v", err)
	}
}

// Cleanup running again and again beside writers on main and on a
// branch (a short grace, so old garbage really goes) never removes a
// file a committed version references: afterwards every version of
// every dataset reads, and every acknowledged row is there.
func TestCleanupBesideWriters(t *testing.T) {
	ctx := context.Background()
	g := mergeRoot(t)
	stop := make(chan struct{})
	branches := []string{"", "", "dev"} // two main writers contend: lost attempts leave garbage
	errs := make(chan error, len(branches)+1)
	acked := make([][]int64, len(branches))
	for w, br := range branches {
		go func() {
			for i := int64(0); ; i++ {
				select {
				case <-stop:
					errs <- nil
					return
				default:
				}
				id := 1000*int64(w+1) + i
				if err := insert(ctx, g, WriteOptions{Branch: br, MaxReprepare: 50}, map[string][]int64{"b": {id}}); err != nil {
					errs <- err
					return
				}
				acked[w] = append(acked[w], id)
			}
		}()
	}
	runs, deleted := 0, 0
	go func() {
		deadline := time.Now().Add(2 * time.Second)
		for time.Now().Before(deadline) {
			rep, err := g.Cleanup(ctx, CleanupOptions{Grace: 300 * time.Millisecond})
			if err != nil {
				errs <- err
				return
			}
			runs++
			deleted += len(rep.Deleted)
		}
		close(stop)
		errs <- nil
	}()
	for range len(branches) + 1 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	readEverything(t, g)
	for w, br := range branches {
		got := branchIDs(t, g, br, "b")
		for _, id := range acked[w] {
			if !slices.Contains(got, id) {
				t.Fatalf("acknowledged row %d missing on %q", id, br)
			}
		}
	}
	t.Logf("%d cleanup runs deleted %d files beside %d+%d+%d acknowledged writes (coordinator %+v)",
		runs, deleted, len(acked[0]), len(acked[1]), len(acked[2]), g.Stats())
}
