package planner

import (
	"context"
	"errors"

	"github.com/pggraph/pggraph/access"
	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/graph"
)

// graphResolver decides the role catalog's pending versions over the
// graph root (access/pending.go): a transaction's role changes take
// effect with its graph commit, found by the id minted for it.
type graphResolver struct{ g *adapters.Graph }

// Landed walks the branch back from its head to the manifest version the
// pending version was published at, looking for the commit.
func (r graphResolver) Landed(ctx context.Context, p *access.Pending) (bool, error) {
	head, err := r.g.Root.Head(ctx, p.Branch)
	if errors.Is(err, graph.ErrUnknownBranch) {
		return false, nil // gone with the branch
	} else if err != nil {
		return false, err
	}
	if p.Incarnation != "" && head.Incarnation != p.Incarnation {
		return false, nil
	}
	for v := head.Version; v > p.After; v-- {
		sn := head
		if v != head.Version {
			if sn, err = r.g.Root.SnapshotAt(ctx, p.Branch, v); err != nil {
				return false, err
			}
		}
		if sn.Commit.Names(p.CommitID) {
			return true, nil
		}
	}
	return false, nil
}

// Recover runs the write protocol's recovery barrier on the branch.
func (r graphResolver) Recover(ctx context.Context, branch string) error {
	err := r.g.Recovery.Barrier(ctx, branch)
	if errors.Is(err, graph.ErrUnknownBranch) {
		return nil
	}
	return err
}
