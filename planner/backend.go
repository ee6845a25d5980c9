package planner

import (
	"context"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/wire"
)

// Backend creates read-only SQL sessions over a graph root.
type Backend struct {
	Root *graph.Root
	// MemoryLimit bounds the bytes one query may buffer (0: unlimited).
	MemoryLimit int64
}

// NewBackend returns a Backend serving root.
func NewBackend(root *graph.Root) *Backend { return &Backend{Root: root} }

// NewSession implements wire.Backend.
func (b *Backend) NewSession(_ context.Context, info wire.SessionInfo) (wire.Session, error) {
	return &session{root: b.Root, info: info, memLimit: b.MemoryLimit, cats: map[catKey]*catalog{}}, nil
}
