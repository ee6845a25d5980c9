package adapters

import (
	"context"
	"fmt"
	"strings"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/protocol"
)

// rootBranchAt is graph.Root's "fork at a snapshot" when the build has
// it (requested from the graph package); until then CreateBranchAt
// follows Root.CreateBranch's steps itself.
type rootBranchAt interface {
	CreateBranchAt(ctx context.Context, name string, at *graph.Snapshot) (*graph.Snapshot, error)
}

// CreateBranchAt creates graph branch name forked at snapshot at — an
// older commit of at.Branch (graph.create_branch(name, from, at)). Like
// CreateBranch it is a control operation (a native __manifest ref at
// at.Version, no graph commit) behind the recovery barrier of at.Branch
// and the exclusive branch gate of name. The new branch inherits every
// table at the version at pins; its first write forks a table lazily
// from that pin, as for a branch forked at a head.
func (g *Graph) CreateBranchAt(ctx context.Context, name string, at *graph.Snapshot) (*graph.Snapshot, error) {
	if at == nil {
		return nil, protocol.Errorf(protocol.KindInvalid, nil, "no snapshot to fork branch %q at", name)
	}
	from := at.Branch
	if from == "" {
		from = graph.MainBranch
	}
	if err := g.Recovery.Barrier(ctx, from); err != nil {
		return nil, err
	}
	release, err := g.coord.Gates.Acquire(ctx, []protocol.GateKey{protocol.BranchGate(name), protocol.BranchUseGate(from)})
	if err != nil {
		return nil, err
	}
	defer release()
	if r, ok := any(g.Root).(rootBranchAt); ok {
		sn, err := r.CreateBranchAt(ctx, name, at)
		return sn, branchErr(name, err)
	}
	sn, err := forkAt(ctx, g.Root, name, from, at)
	return sn, branchErr(name, err)
}

// forkAt is Root.CreateBranch with the fork version as the only
// difference: name checks (taken, nesting), an earlier delete that
// stopped after its seal completed, stale table forks named name
// reclaimed, then the ref on the Lance branch whose chain holds at.
func forkAt(ctx context.Context, root *graph.Root, name, from string, at *graph.Snapshot) (*graph.Snapshot, error) {
	if err := graph.ValidateBranch(name); err != nil {
		return nil, err
	}
	existing, err := root.Branches(ctx)
	if err != nil {
		return nil, err
	}
	for _, b := range existing {
		if b == name {
			if sn, err := root.Head(ctx, name); err == nil && sn.Sealed() {
				if err := root.DeleteBranch(ctx, name); err != nil {
					return nil, err
				}
				return forkAt(ctx, root, name, from, at)
			}
			return nil, &graph.BranchError{Branch: name, Err: graph.ErrBranchExists}
		}
		if strings.HasPrefix(b, name+"/") || strings.HasPrefix(name, b+"/") {
			return nil, fmt.Errorf("%w: %q and existing branch %q nest", graph.ErrInvalidBranch, name, b)
		}
	}
	for _, e := range at.State.Tables {
		reclaimStaleFork(ctx, root, e, name)
	}
	lb := from
	if lb == graph.MainBranch {
		lb = ""
	}
	ds, err := lance.Open(ctx, root.Store(), graph.ManifestRoot, root.DatasetOptions(graph.ManifestRoot, lb, at.Version))
	if err != nil {
		return nil, err
	}
	if _, err := ds.CreateBranch(ctx, name, at.Version); err != nil {
		if lance.IsExists(err) {
			return nil, &graph.BranchError{Branch: name, Err: graph.ErrBranchExists}
		}
		return nil, err
	}
	return root.Head(ctx, name)
}

// reclaimStaleFork deletes table e's Lance branch name left over from an
// earlier incarnation of the graph branch (best effort: the first write
// must never meet a fork it does not own).
func reclaimStaleFork(ctx context.Context, root *graph.Root, e graph.TableEntry, name string) {
	if _, err := lance.GetBranch(ctx, root.Store(), e.Location, name); err != nil {
		return
	}
	ds, err := lance.Open(ctx, root.Store(), e.Location, root.DatasetOptions(e.Location, "", 0))
	if err != nil {
		return
	}
	_ = ds.DeleteBranch(ctx, name)
}
