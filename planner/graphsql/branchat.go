package graphsql

import (
	"context"
	"fmt"
	"strings"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
)

// branchAtCreator is the write path's "create a branch at an older
// snapshot"; used when the build has it.
type branchAtCreator interface {
	CreateBranchAt(ctx context.Context, name string, at *graph.Snapshot) (*graph.Snapshot, error)
}

// createBranchAt forks graph branch name at snapshot at of from's
// history (graph.create_branch(name, from, at) naming an older commit).
// Until the write path offers it (branchAtCreator), this small adapter
// follows graph.Root.CreateBranch step for step with the fork version
// as the only difference: the recovery barrier on from; name validation
// and the path-prefix-disjointness check (a name left sealed by an
// interrupted delete is deleted first); stale table forks named name
// reclaimed; then a native ref on __manifest at at's version, on the
// branch whose chain holds at (Lance refuses a name that exists). A
// branch forked at version v inherits every table at the version v
// pins; its first write forks a table lazily from that pin, as for a
// branch forked at a head.
func createBranchAt(ctx context.Context, g *adapters.Graph, name, from string, at *graph.Snapshot) (*graph.Snapshot, error) {
	if bc, ok := any(g).(branchAtCreator); ok {
		return bc.CreateBranchAt(ctx, name, at)
	}
	if err := graph.ValidateBranch(name); err != nil {
		return nil, err
	}
	if err := g.Recovery.Barrier(ctx, from); err != nil {
		return nil, err
	}
	root := g.Root
	existing, err := g.Branches(ctx)
	if err != nil {
		return nil, err
	}
	for _, b := range existing {
		if b == name {
			if sn, err := root.Head(ctx, name); err == nil && sn.Sealed() {
				// an earlier delete stopped after its seal: finish it first
				if err := g.DeleteBranch(ctx, name); err != nil {
					return nil, err
				}
				return createBranchAt(ctx, g, name, from, at)
			}
			return nil, &graph.BranchError{Branch: name, Err: graph.ErrBranchExists}
		}
		if strings.HasPrefix(b, name+"/") || strings.HasPrefix(name, b+"/") {
			return nil, fmt.Errorf("%w: %q and existing branch %q nest", graph.ErrInvalidBranch, name, b)
		}
	}
	for _, e := range at.State.Tables {
		reclaimTableFork(ctx, root, e, name)
	}
	parent := at.Branch
	if parent == graph.MainBranch {
		parent = ""
	}
	ds, err := lance.Open(ctx, root.Store(), graph.ManifestRoot, root.DatasetOptions(graph.ManifestRoot, parent, at.Version))
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

// reclaimTableFork deletes table e's Lance branch name when one is left
// over from an earlier incarnation of the graph branch (best effort, as
// graph.Root.CreateBranch does: the first write must never meet a fork
// it does not own).
func reclaimTableFork(ctx context.Context, root *graph.Root, e graph.TableEntry, name string) {
	if _, err := lance.GetBranch(ctx, root.Store(), e.Location, name); err != nil {
		return
	}
	ds, err := lance.Open(ctx, root.Store(), e.Location, root.DatasetOptions(e.Location, "", 0))
	if err != nil {
		return
	}
	_ = ds.DeleteBranch(ctx, name)
}
