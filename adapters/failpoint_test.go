//go:build failpoints

package adapters

import (
	"context"
	"errors"
	"testing"

	"github.com/pggraph/pggraph/internal/failpoint"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/protocol"
	"github.com/pggraph/pggraph/recovery"
)

// TestFailpointCrashes crashes at each protocol boundary by failpoint,
// including after the CAS but before the reply, and (for the rollback
// case) again inside recovery between restore and publish.
func TestFailpointCrashes(t *testing.T) {
	errCrash := errors.New("injected crash")
	cases := []struct {
		point    failpoint.Point
		outcome  string
		decision recovery.Decision
	}{
		{failpoint.ProtocolAfterArm, "none", recovery.EmptyIntentDone},
		{failpoint.ProtocolAfterEffects, "none", recovery.RolledBackDec},
		{failpoint.ProtocolAfterPublish, "all", recovery.Converged},
	}
	sh := shapes()[1] // three tables
	for _, c := range cases {
		t.Run(string(c.point), func(t *testing.T) {
			defer failpoint.Reset()
			store := objstore.NewMem()
			seedRoot(t, store)
			if err := failpoint.Enable(c.point, failpoint.Error(errCrash)); err != nil {
				t.Fatal(err)
			}
			g := openGraph(t, store, false)
			err := sh.run(context.Background(), t, g)
			g.Close()
			failpoint.Disable(c.point)
			if !protocol.IsRecoveryRequired(err) || !errors.Is(err, errCrash) {
				t.Fatalf("write at %s: %v", c.point, err)
			}
			out, rs := verify(t, store, sh, false, nil)
			if out != c.outcome || rs.Decisions[c.decision] != 1 {
				t.Fatalf("outcome %s decisions %v; want %s and %s", out, rs.Decisions, c.outcome, c.decision)
			}
		})
	}
	t.Run("second crash inside rollback", func(t *testing.T) {
		defer failpoint.Reset()
		store := objstore.NewMem()
		seedRoot(t, store)
		_ = failpoint.Enable(failpoint.ProtocolAfterEffects, failpoint.Error(errCrash))
		g := openGraph(t, store, false)
		_ = sh.run(context.Background(), t, g)
		g.Close()
		failpoint.Disable(failpoint.ProtocolAfterEffects)
		_ = failpoint.Enable(failpoint.RecoveryAfterRestore, failpoint.Error(errCrash))
		g = openGraph(t, store, false)
		if _, err := g.Recovery.Recover(context.Background()); !errors.Is(err, errCrash) {
			t.Fatalf("recovery did not hit the failpoint: %v", err)
		}
		g.Close()
		failpoint.Disable(failpoint.RecoveryAfterRestore)
		out, rs := verify(t, store, sh, false, nil)
		if out != "none" || rs.Classes[recovery.RolledBack] == 0 {
			t.Fatalf("outcome %s, stats %+v", out, rs)
		}
	})
}
