package adapters

import (
	"context"
	"errors"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/protocol"
)

// CreateBranch creates graph branch name from the head of from (a
// control operation: a native ref on __manifest, no graph commit). It
// runs the recovery barrier first and holds the branch-control gate, so
// no in-process write on the branch overlaps it.
func (g *Graph) CreateBranch(ctx context.Context, name, from string) (*graph.Snapshot, error) {
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
	sn, err := g.Root.CreateBranch(ctx, name, from)
	return sn, branchErr(name, err)
}

// DeleteBranch deletes graph branch name and, best effort, its table
// forks. Pending intents on the branch are resolved first (barrier).
func (g *Graph) DeleteBranch(ctx context.Context, name string) error {
	if err := g.Recovery.Barrier(ctx, name); err != nil {
		return err
	}
	release, err := g.coord.Gates.Acquire(ctx, []protocol.GateKey{protocol.BranchGate(name)})
	if err != nil {
		return err
	}
	defer release()
	return branchErr(name, g.Root.DeleteBranch(ctx, name))
}

// Branches lists the graph branches.
func (g *Graph) Branches(ctx context.Context) ([]string, error) { return g.Root.Branches(ctx) }

func branchErr(name string, err error) error {
	switch {
	case err == nil:
		return nil
	case graph.IsUnknownBranch(err):
		return protocol.Errorf(protocol.KindUnknownBranch, err, "branch %q does not exist", name)
	case errors.Is(err, graph.ErrBranchExists):
		return protocol.Errorf(protocol.KindInvalid, err, "branch %q already exists", name)
	case errors.Is(err, graph.ErrInvalidBranch), errors.Is(err, graph.ErrBranchInUse):
		return protocol.Errorf(protocol.KindInvalid, err, "%v", err)
	}
	return err
}
