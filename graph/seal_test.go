package graph

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/pggraph/pggraph/lance"
)

// While a delete holds the branch sealed, a publisher that prepared on
// the old head loses the CAS and then finds the branch unknown; an
// interrupted delete (guard error) leaves the branch sealed, and the next
// delete completes it.
func TestDeleteSealsTheBranchAgainstStalePublishers(t *testing.T) {
	ctx := context.Background()
	r := benchRoot(t, 2)
	stale, err := r.Head(ctx, "dev")
	if err != nil {
		t.Fatal(err)
	}
	errStop := errors.New("guard refused")
	var inGuard []string
	r.SetBranchDeleteGuard(func(ctx context.Context, branch, inc string) error {
		inGuard = append(inGuard, branch)
		if inc != stale.Incarnation {
			t.Errorf("guard got incarnation %s, want %s", inc, stale.Incarnation)
		}
		st := stale.State.Clone()
		st.Tables[0].RowCount = 5
		if _, err := r.Publish(ctx, stale, st, Commit{ID: NewID(), Parent: stale.Commit.ID, Time: time.Now().UTC()}); !lance.IsConflict(err) {
			t.Errorf("a stale publish on the sealed branch: %v", err)
		}
		if _, err := r.Head(ctx, branch); !errors.Is(err, ErrBranchDeleting) || !IsUnknownBranch(err) {
			t.Errorf("head of a sealed branch: %v", err)
		}
		if len(inGuard) == 1 {
			return errStop
		}
		return nil
	})
	if err := r.DeleteBranch(ctx, "dev"); !errors.Is(err, errStop) {
		t.Fatalf("first delete: %v", err)
	}
	if bs, _ := r.Branches(ctx); len(bs) != 2 {
		t.Fatalf("the interrupted delete removed the ref: %v", bs)
	}
	// the retry does not seal again: it completes
	sealed, _ := r.head(ctx, "dev")
	if err := r.DeleteBranch(ctx, "dev"); err != nil {
		t.Fatalf("second delete: %v", err)
	}
	if bs, _ := r.Branches(ctx); len(bs) != 1 || len(inGuard) != 2 {
		t.Fatalf("branches %v, guard calls %v", bs, inGuard)
	}
	if sealed.Version != stale.Version+1 || !sealed.Sealed() || sealed.Commit.Parent != stale.Commit.ID {
		t.Fatalf("seal %+v", sealed.Commit)
	}
	if _, err := r.Head(ctx, "dev"); !IsUnknownBranch(err) || errors.Is(err, ErrBranchDeleting) {
		t.Fatalf("head after delete: %v", err)
	}
}

// A branch with children is refused before anything is written.
func TestDeleteRefusesAParentBranchWithoutSealing(t *testing.T) {
	ctx := context.Background()
	r := benchRoot(t, 1)
	if _, err := r.CreateBranch(ctx, "kid", "dev"); err != nil {
		t.Fatal(err)
	}
	before, _ := r.Head(ctx, "dev")
	if err := r.DeleteBranch(ctx, "dev"); !errors.Is(err, ErrBranchInUse) {
		t.Fatalf("delete of a parent: %v", err)
	}
	after, err := r.Head(ctx, "dev")
	if err != nil || after.Version != before.Version {
		t.Fatalf("refused delete wrote: %v %v", after, err)
	}
}
