package recovery_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/protocol"
	"github.com/pggraph/pggraph/recovery"
)

// The renewer keeps extending the lease of an armed operation, never
// reverts a confirmed sidecar to armed, stops at Finalize (the deleted
// sidecar is not resurrected) and, at Abandon, releases the lease.
func TestLeaseRenewalKeepsPhaseAndStops(t *testing.T) {
	ctx := context.Background()
	mem := setup(t)
	g := open(t, mem, false, recovery.Options{LeaseDuration: 400 * time.Millisecond})
	defer g.Close()
	sn, err := g.Head(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	newPW := func() *protocol.PreparedWrite {
		return &protocol.PreparedWrite{OperationID: graph.NewID(), WriterKind: adapters.Mutation, Base: protocol.NewBaseView(sn),
			Lineage:  &protocol.LineageIntent{CommitID: graph.NewID(), RollbackCommitID: graph.NewID()},
			Recovery: protocol.RecoveryPlan{Strategy: protocol.RollBackArmedForwardConfirmed}}
	}
	read := func(op string) *recovery.Sidecar { return readSidecar(t, mem, recovery.Key(op)) }
	pw := newPW()
	if err := g.Recovery.Arm(ctx, pw); err != nil {
		t.Fatal(err)
	}
	first := read(pw.OperationID).Owner.LeaseExpiry
	time.Sleep(500 * time.Millisecond)
	if sc := read(pw.OperationID); !sc.Owner.LeaseExpiry.After(first) || sc.Phase != recovery.Armed {
		t.Fatalf("armed lease not renewed: %s → %s (%s)", first, sc.Owner.LeaseExpiry, sc.Phase)
	}
	if err := g.Recovery.Confirm(ctx, pw); err != nil {
		t.Fatal(err)
	}
	confirmed := read(pw.OperationID).Owner.LeaseExpiry
	time.Sleep(500 * time.Millisecond)
	if sc := read(pw.OperationID); sc.Phase != recovery.EffectsConfirmed || !sc.Owner.LeaseExpiry.After(confirmed) {
		t.Fatalf("after confirm: phase %s, lease %s → %s", sc.Phase, confirmed, sc.Owner.LeaseExpiry)
	}
	g.Recovery.Finalize(ctx, pw)
	time.Sleep(500 * time.Millisecond)
	if sc := read(pw.OperationID); sc != nil {
		t.Fatalf("a renewal resurrected the finalized sidecar: %+v", sc.Owner)
	}
	// Abandon releases the lease: expired at once for other processes
	pw2 := newPW()
	if err := g.Recovery.Arm(ctx, pw2); err != nil {
		t.Fatal(err)
	}
	g.Recovery.Abandon(pw2)
	sc := read(pw2.OperationID)
	if sc == nil || sc.Owner.LeaseExpiry.After(time.Now()) {
		t.Fatalf("abandoned lease not released: %+v", sc)
	}
	renewed := g.Recovery.Stats().LeaseRenewals
	time.Sleep(500 * time.Millisecond)
	if s := g.Recovery.Stats(); s.LeaseRenewals != renewed || s.LeaseRenewals < 4 {
		t.Fatalf("renewals %d then %d", renewed, s.LeaseRenewals)
	}
}

// Confirm follows the renewer's rule: once the owner's own clock has
// passed its lease, a recoverer may have read the Armed sidecar and be
// rolling it back, so the owner confirms nothing more (ErrLeaseLost) and
// its write fails into recovery.
func TestConfirmRefusedAfterTheLease(t *testing.T) {
	ctx := context.Background()
	mem := setup(t)
	var mu sync.Mutex
	clock := time.Now()
	now := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return clock
	}
	advance := func(d time.Duration) {
		mu.Lock()
		clock = clock.Add(d)
		mu.Unlock()
	}
	g := open(t, mem, false, recovery.Options{LeaseDuration: time.Hour, Now: now})
	defer g.Close()
	sn, err := g.Head(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		after time.Duration
		lost  bool
	}{{30 * time.Minute, false}, {61 * time.Minute, true}} {
		pw := &protocol.PreparedWrite{OperationID: graph.NewID(), WriterKind: adapters.Mutation, Base: protocol.NewBaseView(sn),
			Lineage:  &protocol.LineageIntent{CommitID: graph.NewID(), RollbackCommitID: graph.NewID()},
			Recovery: protocol.RecoveryPlan{Strategy: protocol.RollBackArmedForwardConfirmed}}
		if err := g.Recovery.Arm(ctx, pw); err != nil {
			t.Fatal(err)
		}
		advance(c.after)
		err := g.Recovery.Confirm(ctx, pw)
		if recovery.IsLeaseLost(err) != c.lost || !c.lost && err != nil {
			t.Fatalf("confirm %s after arming: %v", c.after, err)
		}
		want := recovery.EffectsConfirmed
		if c.lost {
			want = recovery.Armed
		}
		if sc := readSidecar(t, mem, recovery.Key(pw.OperationID)); sc.Phase != want {
			t.Fatalf("confirm %s after arming: sidecar %s, want %s", c.after, sc.Phase, want)
		}
		g.Recovery.Abandon(pw)
	}
}
