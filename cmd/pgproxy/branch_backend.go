package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// branchBackend admits a session only when its database name is a graph
// branch of the root, as PostgreSQL admits only existing databases, and
// hands the session to inner.
type branchBackend struct {
	root  *graph.Root
	inner wire.Backend
}

// NewSession implements wire.Backend.
func (b branchBackend) NewSession(ctx context.Context, info wire.SessionInfo) (wire.Session, error) {
	branches, err := b.root.Branches(ctx)
	if err != nil {
		return nil, wire.Errorf(pgerr.IOError, "could not read the graph's branches").WithDetail("the __manifest dataset could not be read")
	}
	if !slices.Contains(branches, info.Database) {
		shown := branches
		if len(shown) > 10 {
			shown = append(shown[:10:10], "…")
		}
		return nil, wire.Errorf(pgerr.InvalidCatalogName, "database %q does not exist", info.Database).
			WithHint(fmt.Sprintf("the database name selects a graph branch; branches: %s", strings.Join(shown, ", ")))
	}
	return b.inner.NewSession(ctx, info)
}
