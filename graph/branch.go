package graph

import (
	"context"
	"fmt"
	"strings"

	"github.com/pggraph/pggraph/lance"
)

// Graph branches are native Lance branches of __manifest (control
// operations: no manifest version is created). A table is inherited by a
// new branch at the exact version its parent pins (entry.Branch names the
// Lance branch holding it); the first write to it on the branch forks the
// table dataset lazily (the adapters' first-touch effect).

// ValidateBranch checks a graph branch name: Lance's rules, and not
// reserved.
func ValidateBranch(name string) error {
	if name == MainBranch || name == "" {
		return fmt.Errorf("%w: %q is reserved", ErrInvalidBranch, name)
	}
	if strings.HasPrefix(name, "__") {
		return fmt.Errorf("%w: names starting with __ are reserved", ErrInvalidBranch)
	}
	if err := lance.ValidateBranchName(name); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidBranch, err)
	}
	return nil
}

// Branches lists the graph's branches (main first) from one listing of
// the refs, without reading them.
func (r *Root) Branches(ctx context.Context) ([]string, error) {
	ds, err := r.dataset(ctx, MainBranch)
	if err != nil {
		return nil, err
	}
	names, err := ds.ListBranchNames(ctx)
	if err != nil {
		return nil, err
	}
	return append([]string{MainBranch}, names...), nil
}

// CreateBranch creates graph branch name from the head of branch from.
// Names must be path-prefix-disjoint from every live branch (Lance nests
// "a/b" under "a"). Stale table forks named name (left by an earlier
// incarnation whose delete could not reclaim them) are reclaimed first,
// so a first touch never meets a ref it does not own. The caller holds
// the branch-control gate and has run the recovery barrier.
func (r *Root) CreateBranch(ctx context.Context, name, from string) (*Snapshot, error) {
	if err := ValidateBranch(name); err != nil {
		return nil, err
	}
	if from == "" {
		from = MainBranch
	}
	existing, err := r.Branches(ctx)
	if err != nil {
		return nil, err
	}
	for _, b := range existing {
		if b == name {
			if sn, err := r.head(ctx, name); err == nil && sn.Sealed() {
				// an earlier delete stopped after its seal: finish it
				if err := r.DeleteBranch(ctx, name); err != nil {
					return nil, err
				}
				return r.CreateBranch(ctx, name, from)
			}
			return nil, &BranchError{Branch: name, Err: ErrBranchExists}
		}
		if strings.HasPrefix(b, name+"/") || strings.HasPrefix(name, b+"/") {
			return nil, fmt.Errorf("%w: %q and existing branch %q nest", ErrInvalidBranch, name, b)
		}
	}
	src, err := r.Head(ctx, from)
	if err != nil {
		return nil, err
	}
	for _, e := range src.State.Tables {
		r.reclaimTableFork(ctx, e, name)
	}
	nds, err := src.ds.CreateBranch(ctx, name, src.Version)
	if err != nil {
		if lance.IsExists(err) {
			return nil, &BranchError{Branch: name, Err: ErrBranchExists}
		}
		return nil, err
	}
	r.mu.Lock()
	r.heads[name] = nds
	delete(r.incs, name)
	delete(r.decoded, name)
	r.mu.Unlock()
	return r.Head(ctx, name)
}

// DeleteBranch deletes graph branch name. Writers in other processes
// may be committing on it, and Lance has no compare-and-delete of a
// ref, so the delete first seals the branch (seal.go): it commits a
// terminal manifest version with the PutIfAbsent CAS every publisher
// uses, after which no write prepared on the branch can publish and Head
// reports the branch unknown. Then the delete guard (the recovery
// manager) waits for writers on the branch that may still be running;
// then the __manifest ref goes (from then on the branch does not exist),
// and, best effort, the table forks it owns. A branch others were
// created from is refused before anything is written. Deleting a branch
// whose earlier delete stopped after the seal completes it.
func (r *Root) DeleteBranch(ctx context.Context, name string) error {
	if err := ValidateBranch(name); err != nil {
		return err
	}
	head, err := r.head(ctx, name)
	if err != nil {
		return err
	}
	main, err := r.dataset(ctx, MainBranch)
	if err != nil {
		return err
	}
	refs, err := main.ListBranches(ctx)
	if err != nil {
		return err
	}
	for _, ref := range refs {
		if ref.Name != name && ref.ParentBranchName() == name {
			return fmt.Errorf("%w: branch %q was created from %q", ErrBranchInUse, ref.Name, name)
		}
	}
	if !head.Sealed() {
		if head, err = r.seal(ctx, head); err != nil {
			return err
		}
	}
	r.mu.Lock()
	guard := r.deleteGuard
	r.mu.Unlock()
	if guard != nil {
		if err := guard(ctx, name, head.Incarnation); err != nil {
			return err
		}
	}
	if err := main.DeleteBranch(ctx, name); err != nil {
		if lance.IsInUse(err) {
			return fmt.Errorf("%w: %v", ErrBranchInUse, err)
		}
		if lance.IsNotFound(err) {
			return &BranchError{Branch: name, Err: ErrUnknownBranch}
		}
		return err
	}
	r.mu.Lock()
	delete(r.heads, name)
	delete(r.incs, name)
	delete(r.decoded, name)
	r.mu.Unlock()
	for _, e := range head.State.Tables {
		r.reclaimTableFork(ctx, e, name)
	}
	return nil
}

// reclaimTableFork deletes the Lance branch name of a table dataset if it
// exists (best effort: a leftover fork is unreachable and reclaimed by
// the next create of that branch name).
//
// The ref is read first and the table opened only when it exists: a
// branch create or delete then costs one GET per table, not a whole
// open (hint, version probes, manifest) — requests on object storage.
func (r *Root) reclaimTableFork(ctx context.Context, e TableEntry, name string) {
	if _, err := lance.GetBranch(ctx, r.store, e.Location, name); err != nil {
		return
	}
	ds, err := lance.Open(ctx, r.store, e.Location, r.DatasetOptions(e.Location, "", 0))
	if err != nil {
		return
	}
	_ = ds.DeleteBranch(ctx, name)
}

// incarnation is a branch's identity: "main", or the newest id of its
// Lance ref (a deleted and re-created branch has a new one).
func (r *Root) incarnation(ctx context.Context, branch string) (string, error) {
	if branch == MainBranch {
		return MainBranch, nil
	}
	ref, err := lance.GetBranch(ctx, r.store, ManifestRoot, branch)
	if err != nil {
		if lance.IsNotFound(err) {
			return "", &BranchError{Branch: branch, Err: ErrUnknownBranch}
		}
		return "", err
	}
	return ref.ID(), nil
}
