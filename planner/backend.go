package planner

import (
	"context"
	"sync"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/planner/seq"
	"github.com/pggraph/pggraph/wire"
)

// Backend creates SQL sessions over an open graph (reads through its
// root, writes through its write protocol).
type Backend struct {
	Graph *adapters.Graph
	// MemoryLimit bounds the bytes one query may buffer (0: unlimited).
	MemoryLimit int64
	// MaxReprepare bounds transparent re-prepares of an autocommit
	// statement whose read set changed before its effects (0: 5).
	MaxReprepare int
	once         sync.Once
	locks        *advisoryLocks
	seqs         *seq.Allocator
	tables       tableCache
}

// NewBackend returns a Backend serving g.
func NewBackend(g *adapters.Graph) *Backend { return &Backend{Graph: g} }

// NewSession implements wire.Backend.
func (b *Backend) NewSession(_ context.Context, info wire.SessionInfo) (wire.Session, error) {
	b.once.Do(func() {
		if b.locks == nil {
			b.locks = newAdvisoryLocks()
		}
		b.seqs = seq.Open(b.Graph.Root.Store())
	})
	return &session{g: b.Graph, root: b.Graph.Root, locks: b.locks, maxReprepare: b.MaxReprepare, info: info, memLimit: b.MemoryLimit,
		cats: map[catKey]*catalog{}, held: map[int64]int{}, seqs: b.seqs, seqSess: seq.NewSession(), tables: &b.tables}, nil
}
