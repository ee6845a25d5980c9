package recovery

import (
	"context"
	"time"

	"github.com/pggraph/pggraph/protocol"
)

// awaitBranchWriters is the root's branch-delete guard (graph.seal.go):
// it runs after the branch is sealed — no write prepared on it can
// publish any more — and waits until no pending intent on that branch
// incarnation has an owner that may still be running, so none of them
// commits to a table fork after the delete reclaims the forks. Writers
// reach that state quickly: their publish loses to the seal, they give
// the operation up (Abandon releases the lease). Intents of gone owners
// do not block; the barrier discards them as orphaned. A writer still
// running after BranchDeleteWait (a long load) answers 55P03; the branch
// stays sealed and the next delete completes it.
func (m *Manager) awaitBranchWriters(ctx context.Context, branch, incarnation string) error {
	deadline := m.opts.Now().Add(m.opts.BranchDeleteWait)
	for {
		busy, err := m.liveIntentOn(ctx, branch, incarnation)
		if err != nil || busy == "" {
			return err
		}
		if !m.opts.Now().Before(deadline) {
			e := protocol.Errorf(protocol.KindContention, nil,
				"branch %q is sealed (no write on it can commit any more) but a writer that may still be running (operation %s) has not finished; retry the delete", branch, busy)
			e.OperationID = busy
			return e
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// liveIntentOn returns the id of a pending intent on the branch
// incarnation whose owner may be alive ("" if none). Unreadable sidecars
// are left to the barrier.
func (m *Manager) liveIntentOn(ctx context.Context, branch, incarnation string) (string, error) {
	keys, err := m.list(ctx)
	if err != nil {
		return "", err
	}
	for _, k := range keys {
		sc, err := m.read(ctx, k)
		if err != nil || sc == nil || sc.Branch != branch {
			continue
		}
		if inc := sc.Write.Base.Incarnation; inc != "" && inc != incarnation {
			continue
		}
		if liveness(sc.Owner, sc.OperationID, m.opts.Now()) == OwnerAlive {
			return sc.OperationID, nil
		}
	}
	return "", nil
}
