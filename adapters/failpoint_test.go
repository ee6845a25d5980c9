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

// TestPublisherArbitratesProbedMember: a table the write only probed
// changes between revalidation and the CAS (another writer commits it
// while our effects are applied). The publisher re-arbitrates every
// member on the CAS, so the stale plan is never published: the write is
// a recovery case, rolled back by the next barrier, and the other
// writer's commit stands. A disjoint concurrent commit does not fail it.
func TestPublisherArbitratesProbedMember(t *testing.T) {
	ctx := context.Background()
	for _, probe := range []bool{true, false} {
		t.Run(map[bool]string{true: "probed member changed", false: "disjoint commit"}[probe], func(t *testing.T) {
			defer failpoint.Reset()
			store := objstore.NewMem()
			g := openGraph(t, store, true)
			defer g.Close()
			createTables(t, g, "x", "p", "q")
			other := openGraph(t, store, false)
			defer other.Close()
			fired := false
			_ = failpoint.Enable(failpoint.ProtocolAfterEffects, func() error {
				if fired {
					return nil
				}
				fired = true
				return insert(ctx, other, WriteOptions{}, map[string][]int64{"p": {1}, "q": {1}})
			})
			_, err := g.Write(ctx, WriteOptions{}, func(ctx context.Context, s *Stage) error {
				if probe {
					if err := s.Probe("p"); err != nil {
						return err
					}
				}
				return s.Insert("x", rowsOf(7))
			})
			failpoint.Disable(failpoint.ProtocolAfterEffects)
			if !fired {
				t.Fatal("failpoint never fired")
			}
			if !probe {
				if err != nil {
					t.Fatalf("disjoint writers must both commit: %v", err)
				}
				if got, _ := readIDs(t, g, head(t, g), "x"); len(got) != 1 {
					t.Fatalf("x = %v", got)
				}
				return
			}
			if !protocol.IsRecoveryRequired(err) {
				t.Fatalf("stale plan: want 55000, got %v", err)
			}
			if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"q": {2}}); err != nil {
				t.Fatal(err)
			}
			sn := head(t, g)
			if got, _ := readIDs(t, g, sn, "x"); len(got) != 0 {
				t.Fatalf("the stale plan became visible: x = %v", got)
			}
			if got, _ := readIDs(t, g, sn, "p"); len(got) != 1 {
				t.Fatalf("the winner was lost: p = %v", got)
			}
		})
	}
}
