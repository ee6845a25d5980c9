package recovery_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/protocol"
	"github.com/pggraph/pggraph/recovery"
)

// A branch delete racing a write on that branch in another OS process:
// the delete seals the branch, waits for the writer (whose publish loses
// to the seal), then removes the branch. The write is never acknowledged
// on the deleted branch, a re-created branch of the same name starts
// from its parent with none of it, and nothing is left for recovery but
// an orphaned intent the next barrier discards.
func TestBranchDeleteFencesAWriterInAnotherProcess(t *testing.T) {
	dir, store := localRoot(t)
	ctx := context.Background()
	g := open(t, store, false, recovery.Options{})
	defer g.Close()
	if _, err := g.Write(ctx, adapters.WriteOptions{}, func(ctx context.Context, s *adapters.Stage) error {
		return s.Insert("a", rows(1))
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.CreateBranch(ctx, "dev", ""); err != nil {
		t.Fatal(err)
	}
	// the child's write on dev (a first touch of a) is slowed after its
	// sidecar is durable; the delete runs while it is in flight
	_, out, exited := startLeaseChild(t, dir, "PGGRAPH_LEASE_BRANCH=dev", "PGGRAPH_LEASE_LAX=1", "PGGRAPH_LEASE_DELAY=4s")
	waitSidecar(t, store)
	start := time.Now()
	if err := g.DeleteBranch(ctx, "dev"); err != nil {
		t.Fatalf("delete: %v", err)
	}
	waited := time.Since(start)
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("child did not finish")
	}
	if !strings.HasPrefix(out.String(), "failed") {
		t.Fatalf("a write was acknowledged on a deleted branch: %s", out)
	}
	if _, err := g.Head(ctx, "dev"); !protocol.IsUnknownBranch(err) && !graph.IsUnknownBranch(err) {
		t.Fatalf("dev after delete: %v", err)
	}
	// re-create: the new incarnation shows main's state, none of the
	// child's write, and takes writes
	dev, err := g.CreateBranch(ctx, "dev", "")
	if err != nil {
		t.Fatal(err)
	}
	main := head(t, g, "")
	if dev.Commit.ID != main.Commit.ID {
		t.Fatalf("re-created dev head %s, main %s", dev.Commit.ID, main.Commit.ID)
	}
	if _, err := g.Write(ctx, adapters.WriteOptions{Branch: "dev"}, func(ctx context.Context, s *adapters.Stage) error {
		return s.Insert("a", rows(7))
	}); err != nil {
		t.Fatalf("write on the re-created branch: %v", err)
	}
	if got := idsOn(t, g, "dev", "a"); !slices.Equal(got, []int64{1, 7}) {
		t.Fatalf("dev.a = %v", got)
	}
	if got := idsOn(t, g, "", "a"); !slices.Equal(got, []int64{1}) {
		t.Fatalf("main.a = %v", got)
	}
	if err := g.Recovery.Barrier(ctx, "dev"); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Pending(ctx); err != nil { // waits for post-ack sidecar deletes
		t.Fatal(err)
	}
	if objs, _ := store.List(ctx, "__recovery/"); len(objs) != 0 {
		t.Fatalf("sidecars remain: %v", objs)
	}
	sn := head(t, g, "dev")
	e, _ := sn.State.TableByName("a")
	ds, err := lance.Open(ctx, store, e.Location, g.Root.DatasetOptions(e.Location, e.Branch, 0))
	if err != nil || ds.Version() != e.Version {
		t.Fatalf("dev.a HEAD %v != pin %d (%v)", ds, e.Version, err)
	}
	t.Logf("delete waited %s for the in-flight writer; child: %s", waited.Round(time.Millisecond), strings.TrimSpace(out.String()))
}

// A delete interrupted after its seal: the branch reads as unknown,
// refuses writes, and the next delete (or a create of the name)
// completes it.
func TestSealedBranchIsDeletedOnRetry(t *testing.T) {
	_, store := localRoot(t)
	ctx := context.Background()
	g := open(t, store, false, recovery.Options{BranchDeleteWait: 50 * time.Millisecond})
	defer g.Close()
	for _, b := range []string{"x", "y"} {
		if _, err := g.CreateBranch(ctx, b, ""); err != nil {
			t.Fatal(err)
		}
	}
	// a live foreign writer's intent on x and y keeps the delete waiting
	fake := func(branch string) {
		sn := head(t, g, branch)
		pw := &protocol.PreparedWrite{OperationID: graph.NewID(), WriterKind: adapters.Mutation, Base: protocol.NewBaseView(sn),
			Lineage:  &protocol.LineageIntent{CommitID: graph.NewID(), RollbackCommitID: graph.NewID()},
			Recovery: protocol.RecoveryPlan{Strategy: protocol.RollBackArmedForwardConfirmed}}
		sc := &recovery.Sidecar{FormatVersion: recovery.SidecarVersion, OperationID: pw.OperationID, WriterKind: pw.WriterKind,
			Branch: branch, Phase: recovery.Armed, CreatedAt: time.Now().UTC(), Write: pw,
			Owner: recovery.Owner{Host: "another-machine", BootID: "b", PID: 1, LeaseExpiry: time.Now().Add(time.Hour)}}
		b, _ := sc.Encode()
		if err := store.PutIfAbsent(ctx, recovery.Key(pw.OperationID), b); err != nil {
			t.Fatal(err)
		}
	}
	fake("x")
	fake("y")
	for _, b := range []string{"x", "y"} {
		if err := g.DeleteBranch(ctx, b); !protocol.IsContention(err) {
			t.Fatalf("delete of %s beside a live writer: %v", b, err)
		}
		if _, err := g.Head(ctx, b); !protocol.IsUnknownBranch(err) {
			t.Fatalf("sealed %s head: %v", b, err)
		}
		err := g.Root.DeleteBranch(ctx, b)
		if !protocol.IsContention(err) {
			t.Fatalf("second delete of %s: %v", b, err)
		}
	}
	if _, err := g.Write(ctx, adapters.WriteOptions{Branch: "x"}, func(ctx context.Context, s *adapters.Stage) error {
		return s.Insert("a", rows(3))
	}); !protocol.IsUnknownBranch(err) {
		t.Fatalf("write on a sealed branch: %v", err)
	}
	// the foreign writer is gone (its lease released): delete completes
	// x; creating y again completes y's delete first
	objs, _ := store.List(ctx, "__recovery/")
	for _, o := range objs {
		rewriteOwner(t, store, o.Key, func(o *recovery.Owner) { o.LeaseExpiry = time.Now().Add(-time.Second) })
	}
	if err := g.DeleteBranch(ctx, "x"); err != nil {
		t.Fatalf("completing the delete of x: %v", err)
	}
	if bs, _ := g.Branches(ctx); slices.Contains(bs, "x") {
		t.Fatalf("x still listed: %v", bs)
	}
	y, err := g.CreateBranch(ctx, "y", "")
	if err != nil || y.Sealed() || y.Commit.ID != head(t, g, "").Commit.ID {
		t.Fatalf("re-create of y: %+v %v", y, err)
	}
}

func head(t *testing.T, g *adapters.Graph, branch string) *graph.Snapshot {
	t.Helper()
	sn, err := g.Head(context.Background(), branch)
	if err != nil {
		t.Fatal(err)
	}
	return sn
}

// idsOn returns the ids of a table at a branch head, sorted.
func idsOn(t *testing.T, g *adapters.Graph, branch, table string) []int64 {
	t.Helper()
	ctx := context.Background()
	ds, _, err := g.Table(ctx, head(t, g, branch), table)
	if err != nil {
		t.Fatal(err)
	}
	addrs := allAddrs(t, ds)
	if len(addrs) == 0 {
		return nil
	}
	rec, err := ds.Take(ctx, addrs, []string{"id"}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	var out []int64
	c := rec.Column(0).(*array.Int64)
	for i := 0; i < c.Len(); i++ {
		out = append(out, c.Value(i))
	}
	slices.Sort(out)
	return out
}
