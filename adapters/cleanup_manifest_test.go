package adapters

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/protocol"
	"github.com/pggraph/pggraph/recovery"
)

// Manifest retention prunes old __manifest versions but keeps the
// newest ones, fork points, branch starts, merge commits, what a branch
// merged in, and everything above a pending intent's base; afterwards
// every branch reads, time travel reaches every kept commit across the
// gaps, merges still find their base, and the pruned versions' files
// are reclaimed.
func TestCleanupManifestRetention(t *testing.T) {
	ctx := context.Background()
	g := mergeRoot(t) // main v1..v4 (init, create a-c, create nopk, seed), dev forked at v4
	fork, _ := g.Head(ctx, "")
	for i := int64(0); i < 6; i++ {
		if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"c": {300 + i}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := insert(ctx, g, WriteOptions{Branch: "dev"}, map[string][]int64{"a": {2}}); err != nil {
		t.Fatal(err)
	}
	mrc, err := g.Merge(ctx, "dev", "", "")
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(0); i < 6; i++ {
		if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"b": {500 + i}}); err != nil {
			t.Fatal(err)
		}
	}
	// a live writer's intent based two commits ago protects what is above
	head, _ := g.Head(ctx, "")
	base, err := g.Root.SnapshotAt(ctx, "", head.Version-2)
	if err != nil {
		t.Fatal(err)
	}
	pw := &protocol.PreparedWrite{OperationID: graph.NewID(), WriterKind: Mutation, Base: protocol.NewBaseView(base),
		Lineage:  &protocol.LineageIntent{CommitID: graph.NewID(), RollbackCommitID: graph.NewID()},
		Recovery: protocol.RecoveryPlan{Strategy: protocol.RollBackArmedForwardConfirmed}}
	sc := &recovery.Sidecar{FormatVersion: recovery.SidecarVersion, OperationID: pw.OperationID, WriterKind: Mutation,
		Branch: "main", Phase: recovery.Armed, CreatedAt: time.Now().UTC(), Write: pw,
		Owner: recovery.Owner{Host: "another-machine", BootID: "b", PID: 1, LeaseExpiry: time.Now().Add(time.Hour)}}
	b, _ := sc.Encode()
	if err := g.Root.Store().PutIfAbsent(ctx, recovery.Key(pw.OperationID), b); err != nil {
		t.Fatal(err)
	}
	before, _ := g.Root.ManifestVersions(ctx, "")
	rep, err := g.Cleanup(ctx, CleanupOptions{Now: func() time.Time { return time.Now().Add(48 * time.Hour) }, KeepManifestVersions: 1})
	if err != nil {
		t.Fatal(err)
	}
	after, _ := g.Root.ManifestVersions(ctx, "")
	if rep.ManifestVersionsDeleted == 0 || len(after) != len(before)-rep.ManifestVersionsDeleted {
		t.Fatalf("pruned %d: %v → %v", rep.ManifestVersionsDeleted, before, after)
	}
	for _, v := range []uint64{fork.Version, mrc.Snapshot.Version, head.Version - 1, head.Version} {
		if !slices.Contains(after, v) {
			t.Fatalf("version %d pruned; kept %v (fork %d, merge %d, intent base %d)", v, after, fork.Version, mrc.Snapshot.Version, base.Version)
		}
	}
	if slices.Contains(after, fork.Version+1) {
		t.Fatalf("an unprotected old version survived: %v", after)
	}
	if _, err := g.Root.SnapshotAt(ctx, "", fork.Version+1); err == nil {
		t.Fatal("a pruned version still resolves")
	}
	// time travel across the gaps, history, every file of what remains
	if sn, err := g.Root.SnapshotByCommit(ctx, "", fork.Commit.ID); err != nil || sn.Version != fork.Version {
		t.Fatalf("the fork commit across the gaps: %v %v", sn, err)
	}
	if h, err := g.Root.History(ctx, ""); err != nil || len(h) != len(after) {
		t.Fatalf("history: %d commits, %v", len(h), err)
	}
	readEverything(t, g)
	// the intent's owner is gone now: recovery finds what it needs
	objs, _ := g.Root.Store().List(ctx, graph.RecoveryDir)
	for _, o := range objs {
		rewriteOwnerExpired(t, g, o.Key)
	}
	if _, err := g.Recovery.Recover(ctx); err != nil {
		t.Fatalf("recovery after pruning: %v", err)
	}
	// the branches read and merge on
	if got := branchIDs(t, g, "", "c"); !slices.Equal(got, []int64{200, 300, 301, 302, 303, 304, 305}) {
		t.Fatalf("main.c = %v", got)
	}
	if err := insert(ctx, g, WriteOptions{Branch: "dev"}, map[string][]int64{"a": {3}}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Merge(ctx, "dev", "", ""); err != nil {
		t.Fatalf("merge after pruning: %v", err)
	}
	if got := branchIDs(t, g, "", "a"); !slices.Equal(got, []int64{1, 2, 3}) {
		t.Fatalf("main.a = %v", got)
	}
	t.Logf("pruned %d of %d main versions; kept %v; %d files reclaimed", rep.ManifestVersionsDeleted, len(before), after, len(rep.Deleted))
}

func rewriteOwnerExpired(t *testing.T, g *Graph, key string) {
	t.Helper()
	ctx := context.Background()
	b, err := g.Root.Store().Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := recovery.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	sc.Owner.LeaseExpiry = time.Now().Add(-time.Minute)
	nb, _ := sc.Encode()
	if err := g.Root.Store().Put(ctx, key, nb); err != nil {
		t.Fatal(err)
	}
}
