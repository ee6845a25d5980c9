package graph

import (
	"context"
	"fmt"
	"time"

	"github.com/pggraph/pggraph/lance"
)

// Branch delete versus writers in other processes. Lance refs offer no
// compare-and-delete, so removing a branch's ref cannot by itself fence
// a writer in another process that prepared on the branch: its
// PutIfAbsent of manifest version N+1 would land in the reclaimed tree
// and be acknowledged on a deleted branch (or, after a re-create, appear
// in the new incarnation's history). DeleteBranch therefore seals the
// branch first: it publishes version N+1 itself, through the same
// PutIfAbsent CAS every publisher uses, with a commit whose writer kind
// is SealWriterKind and whose state is unchanged.
//
//   - A writer whose publish won N+1 first committed before the delete
//     (a serial order: write, then delete); the seal retries on top.
//   - Otherwise every later publish on the branch loses its slot,
//     reloads the head, finds the seal and fails (Head reports
//     ErrBranchDeleting, an ErrUnknownBranch); its effects stay covered
//     by its sidecar, which recovery discards as an orphaned branch.
//   - The seal is not a graph commit: Head never returns it, and the
//     branch disappears right after. Between the seal and the ref
//     removal the delete guard (recovery) waits for writers on the branch
//     that may still be running, so none of them commits to a table fork
//     after the forks are reclaimed.
//   - A delete interrupted after its seal leaves a branch that reads as
//     unknown; the next DeleteBranch (or CreateBranch of the name)
//     completes it.

// SealWriterKind is the writer kind of a branch's terminal seal.
const SealWriterKind = "branch_delete_seal"

// BranchDeleteGuard runs after a branch is sealed and before its ref and
// table forks are removed: it returns once no writer that may still be
// running has an intent on the branch incarnation, or an error (the
// branch stays sealed; deleting again completes it).
type BranchDeleteGuard func(ctx context.Context, branch, incarnation string) error

// SetBranchDeleteGuard installs the guard (the recovery manager does).
func (r *Root) SetBranchDeleteGuard(g BranchDeleteGuard) {
	r.mu.Lock()
	r.deleteGuard = g
	r.mu.Unlock()
}

// Sealed reports whether the snapshot is a branch's delete seal.
func (sn *Snapshot) Sealed() bool { return sn.Commit.WriterKind == SealWriterKind }

// seal publishes the terminal version on top of head (retrying on top of
// any commit that wins the slot) and returns it.
func (r *Root) seal(ctx context.Context, head *Snapshot) (*Snapshot, error) {
	for i := 0; i < 64; i++ {
		c := Commit{ID: NewID(), Parent: head.Commit.ID, Actor: "pggraph:branch-delete",
			Message: "seal branch " + head.Branch + " for deletion", Time: time.Now().UTC(), WriterKind: SealWriterKind}
		sn, err := r.Publish(ctx, head, head.State.Clone(), c)
		if err == nil {
			return sn, nil
		}
		if !lance.IsConflict(err) {
			return nil, err
		}
		if head, err = r.head(ctx, head.Branch); err != nil {
			return nil, err
		}
		if head.Sealed() {
			return head, nil // a concurrent delete sealed it
		}
	}
	return nil, fmt.Errorf("graph: sealing branch %q kept losing the manifest slot", head.Branch)
}
