package access

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/pggraph/pggraph/objstore"
)

// fakeGraph stands for the graph root: which commits landed, and what
// recovery does with a gone owner's commit.
type fakeGraph struct {
	mu        sync.Mutex
	landed    map[string]bool
	rollFwd   map[string]bool // Recover lands these
	recovered int
}

func (g *fakeGraph) Landed(_ context.Context, p *Pending) (bool, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.landed[p.CommitID], nil
}

func (g *fakeGraph) Recover(context.Context, string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.recovered++
	for id := range g.rollFwd {
		g.landed[id] = true
	}
	return nil
}

func (g *fakeGraph) land(id string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.landed[id] = true
}

func addRole(name string) func(*Catalog) error {
	return func(c *Catalog) error { c.AddRole(NewRole(name)); return nil }
}

// pendingPair is a writer and a reader Store (two processes) over one
// root with a catalog holding role base, and the writer's pending
// version adding role x for commit c1.
func pendingPair(t *testing.T) (w, r *Store, g *fakeGraph) {
	t.Helper()
	ctx := context.Background()
	mem := objstore.NewMem()
	g = &fakeGraph{landed: map[string]bool{}, rollFwd: map[string]bool{}}
	w, r = Open(mem), Open(mem)
	w.SetResolver(g)
	r.SetResolver(g)
	if _, err := w.Update(ctx, nil, addRole("base")); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Stage(ctx, nil, addRole("x"), w.NewPending("main", "main", 1, "c1")); err != nil {
		t.Fatal(err)
	}
	return w, r, g
}

func roleNames(t *testing.T, s *Store) (names string, version uint64) {
	t.Helper()
	c, err := s.Current(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range c.Roles {
		names += r.Name + " "
	}
	return names, c.Version
}

// TestPendingRolesFollowTheirCommit: a pending version's roles are seen
// by every Store exactly when its graph commit has landed, and the
// writer's decision then publishes them unmarked; when the commit fails
// they are never seen.
func TestPendingRolesFollowTheirCommit(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		commits bool
		want    string
	}{
		{"commit lands", true, "base x "},
		{"commit fails", false, "base "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, r, g := pendingPair(t)
			for _, s := range []*Store{w, r} {
				if names, v := roleNames(t, s); names != "base " || v != 1 {
					t.Fatalf("before the commit: %q at %d, want base at 1", names, v)
				}
			}
			if tc.commits {
				g.land("c1")
				if names, v := roleNames(t, r); names != "base x " || v != 2 {
					t.Fatalf("after the commit landed: %q at %d, want base x at 2", names, v)
				}
			}
			if err := w.Settle(ctx, "c1", tc.commits); err != nil {
				t.Fatal(err)
			}
			for _, s := range []*Store{w, r, Open(w.store)} {
				s.SetResolver(g)
				c, err := s.Current(ctx)
				if err != nil {
					t.Fatal(err)
				}
				names, _ := roleNames(t, s)
				if names != tc.want || c.Version != 3 || c.Pending != nil {
					t.Fatalf("decided: %q at %d (pending %v), want %q at 3", names, c.Version, c.Pending, tc.want)
				}
			}
			if !tc.commits && g.recovered == 0 {
				t.Fatal("a failed commit was decided without the recovery barrier")
			}
		})
	}
}

// TestRoleChangeWaitsForAPendingOne: another role change waits for the
// pending version's decision and applies to its outcome; while the owner
// is live and undecided past the wait it gives up with ErrPendingBusy.
func TestRoleChangeWaitsForAPendingOne(t *testing.T) {
	ctx := context.Background()
	w, r, _ := pendingPair(t)
	done := make(chan error, 1)
	go func() {
		_, err := r.Update(ctx, nil, addRole("y"))
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("the change did not wait for the pending version: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	if err := w.Settle(ctx, "c1", true); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if names, v := roleNames(t, Open(w.store)); names != "base x y " || v != 4 {
		t.Fatalf("%q at %d, want base x y at 4", names, v)
	}

	w, r, _ = pendingPair(t)
	was := pendingWait
	pendingWait = 30 * time.Millisecond
	defer func() { pendingWait = was }()
	if _, err := r.Update(ctx, nil, addRole("y")); !errors.Is(err, ErrPendingBusy) {
		t.Fatalf("got %v, want ErrPendingBusy", err)
	}
	_ = w
}

// TestGoneOwnerIsDecidedByRecovery: the owner of a pending version ends
// before deciding it (a crash); the next reader runs the recovery
// barrier of the commit's branch and decides by the lineage: rolled
// forward, the roles stand; never made, they are dropped.
func TestGoneOwnerIsDecidedByRecovery(t *testing.T) {
	for _, rollFwd := range []bool{true, false} {
		w, r, g := pendingPair(t)
		if rollFwd {
			g.rollFwd["c1"] = true
		}
		forgetInstance(w.instance)
		c, err := r.Current(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		want := "base "
		if rollFwd {
			want = "base x "
		}
		names, _ := roleNames(t, r)
		if names != want || c.Pending != nil || c.Version != 3 || g.recovered != 1 {
			t.Fatalf("roll forward %v: %q at %d (pending %v, %d recoveries), want %q decided at 3",
				rollFwd, names, c.Version, c.Pending, g.recovered, want)
		}
	}
}
