package recovery_test

import (
	"context"
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
