package adapters

import (
	"context"
	"strings"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
)

// MaterializeHeads materializes every pinned table version of every
// branch head that was published before it was written (commit path v2,
// docs/architecture.md): afterwards each table's Lance HEAD is at least
// its pin, so the official Lance and verify see every committed change.
// serve runs it before accepting connections and at a clean shutdown;
// cleanup runs it before deciding which files nothing references (a
// pending pin's staged files are referenced only by its commit record).
func MaterializeHeads(ctx context.Context, root *graph.Root) error {
	_, err := pendingPins(ctx, root, false)
	return err
}

// pendingPins walks every branch head's pins that carry a commit record;
// with dryRun it only reports the dataset locations whose pinned version
// does not exist yet, else it materializes them (and reports none).
func pendingPins(ctx context.Context, root *graph.Root, dryRun bool) (map[string]bool, error) {
	branches, err := root.Branches(ctx)
	if err != nil {
		return nil, err
	}
	pending := map[string]bool{}
	for _, b := range branches {
		sn, err := root.Head(ctx, b)
		if graph.IsUnknownBranch(err) {
			continue // deleted meanwhile, or sealed by a delete: nothing reads it
		}
		if err != nil {
			return nil, err
		}
		for _, e := range sn.State.Tables {
			if e.Txn == "" {
				continue
			}
			if !dryRun {
				if _, err := root.Materialize(ctx, e); err != nil {
					return nil, err
				}
				continue
			}
			if _, err := lance.Open(ctx, root.Store(), e.Location, root.DatasetOptions(e.Location, e.Branch, e.Version)); lance.IsNotFound(err) {
				pending[strings.TrimSuffix(e.Location, "/")] = true
			} else if err != nil {
				return nil, err
			}
		}
	}
	return pending, nil
}
