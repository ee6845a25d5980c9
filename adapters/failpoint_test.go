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
	v1, v2 := shapeNamed(t, "first-touch-on-branch"), shapeNamed(t, "three-tables") // a sidecar write; commit path v2
	cases := []struct {
		shape    writeShape
		point    failpoint.Point
		outcome  string
		code     string            // the failed write's SQLSTATE ("" = it succeeds: the point is not on its path)
		decision recovery.Decision // "" = recovery has nothing to do
	}{
		{v1, failpoint.ProtocolAfterArm, "none", "55000", recovery.EmptyIntentDone},
		{v1, failpoint.ProtocolAfterEffects, "none", "55000", recovery.RolledBackDec},
		{v1, failpoint.ProtocolAfterConfirm, "all", "55000", recovery.RolledForward},
		{v1, failpoint.ProtocolAfterPublish, "all", "55000", recovery.Converged},
		// commit path v2: no sidecar; before the CAS nothing is
		// referenced, after it the commit stands (its reply was lost)
		{v2, failpoint.ProtocolAfterArm, "all", "", ""},
		{v2, failpoint.ProtocolAfterEffects, "none", "XX000", ""},
		{v2, failpoint.ProtocolAfterConfirm, "all", "", ""},
		{v2, failpoint.ProtocolAfterPublish, "all", "08007", ""},
	}
	for _, c := range cases {
		t.Run(c.shape.name+"/"+string(c.point), func(t *testing.T) {
			defer failpoint.Reset()
			store := objstore.NewMem()
			seedRoot(t, store)
			if err := failpoint.Enable(c.point, failpoint.Error(errCrash)); err != nil {
				t.Fatal(err)
			}
			g := openGraph(t, store, false)
			err := c.shape.run(context.Background(), t, g)
			g.Close()
			failpoint.Disable(c.point)
			if c.code == "" && err != nil || c.code != "" && (protocol.SQLState(err) != c.code || !errors.Is(err, errCrash)) {
				t.Fatalf("write at %s: %v (SQLSTATE %s), want %q", c.point, err, protocol.SQLState(err), c.code)
			}
			out, rs := verify(t, store, c.shape, c.code == "", nil)
			decisions := 0
			for _, n := range rs.Decisions {
				decisions += n
			}
			if out != c.outcome || c.decision != "" && rs.Decisions[c.decision] != 1 || c.decision == "" && decisions != 0 {
				t.Fatalf("outcome %s decisions %v; want %s and %q", out, rs.Decisions, c.outcome, c.decision)
			}
		})
	}
	// A sidecar of the commit path before v2 (staged effects committed
	// before the CAS) is still rolled back by restores; a second crash
	// between the restores and the rollback commit is finished by the
	// next recoverer.
	t.Run("second crash inside rollback", func(t *testing.T) {
		defer failpoint.Reset()
		store := objstore.NewMem()
		seedRoot(t, store)
		_ = failpoint.Enable(failpoint.ProtocolAfterEffects, failpoint.Error(errCrash))
		g, err := Open(context.Background(), store, Options{Actor: "test", Location: "/test-root", SyncFinalize: true, LegacyCommitPath: true})
		if err != nil {
			t.Fatal(err)
		}
		_ = v2.run(context.Background(), t, g)
		g.Close()
		failpoint.Disable(failpoint.ProtocolAfterEffects)
		_ = failpoint.Enable(failpoint.RecoveryAfterRestore, failpoint.Error(errCrash))
		g = openGraph(t, store, false)
		if _, err := g.Recovery.Recover(context.Background()); !errors.Is(err, errCrash) {
			t.Fatalf("recovery did not hit the failpoint: %v", err)
		}
		g.Close()
		failpoint.Disable(failpoint.RecoveryAfterRestore)
		out, rs := verify(t, store, v2, false, nil)
		if out != "none" || rs.Classes[recovery.RolledBack] == 0 {
			t.Fatalf("outcome %s, stats %+v", out, rs)
		}
	})
}

// TestPublisherArbitratesProbedMember: a table the write only probed
// changes between revalidation and the CAS (another writer commits it
// while our effects are staged). The publisher re-arbitrates every
// member on the CAS, so the stale plan is never published: the write
// re-prepares from the new head (nothing of the stale plan is
// referenced: commit path v2), and the other writer's commit stands. A
// disjoint concurrent commit does not fail it.
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
			// commit path v2: the lost arbitration happens before anything
			// is referenced, so the autocommit write re-prepares against
			// the new head and commits once
			if err != nil || g.Stats().Reprepares == 0 {
				t.Fatalf("stale plan: want a re-prepare and a commit, got %v (stats %+v)", err, g.Stats())
			}
			sn := head(t, g)
			if got, _ := readIDs(t, g, sn, "x"); len(got) != 1 {
				t.Fatalf("x = %v, want the one row of the re-prepared write", got)
			}
			if got, _ := readIDs(t, g, sn, "p"); len(got) != 1 {
				t.Fatalf("the winner was lost: p = %v", got)
			}
		})
	}
}

// shapeNamed finds a crash-sweep shape by name.
func shapeNamed(t *testing.T, name string) writeShape {
	t.Helper()
	for _, s := range shapes() {
		if s.name == name {
			return s
		}
	}
	t.Fatalf("no write shape %q", name)
	return writeShape{}
}
