package planner

import (
	"context"
	"sync"

	"github.com/pggraph/pggraph/access"
	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/planner/seq"
	"github.com/pggraph/pggraph/replication"
	"github.com/pggraph/pggraph/wire"
)

// Backend creates SQL sessions over an open graph (reads through its
// root, writes through its write protocol).
type Backend struct {
	Graph *adapters.Graph
	// MemoryLimit bounds the bytes one query may buffer (0: unlimited).
	MemoryLimit int64
	// MaxReprepare bounds transparent re-prepares of an autocommit
	// statement whose read set changed before its effects (0: 64).
	MaxReprepare int
	// Analyze is called by ANALYZE and VACUUM ANALYZE with the tables
	// named (none: every table) — where a statistics collector plugs in.
	// nil answers ANALYZE with a NOTICE that no statistics are kept.
	Analyze AnalyzeFunc
	// Access is the root's role catalog (NewBackend opens it; share one
	// per root and process so role changes reach every session at once).
	Access *access.Store
	// Replication is the root's replication slots and publications
	// (opened on the first session unless set).
	Replication *replication.Store
	logins      loginCounts
	once        sync.Once
	locks       *exec.AdvisoryLocks
	seqs        *seq.Allocator
	tables      tableCache
	cats        catalogCache
	views       graphViewsCache
	// changes caches row-change summaries of published table versions
	// (writeset.go); rows holds the in-process row and key locks
	// (rowlocks.go).
	changes changeCache
	rows    rowLocks
}

// NewBackend returns a Backend serving g.
func NewBackend(g *adapters.Graph) *Backend {
	b := &Backend{Graph: g, Access: access.Open(g.Root.Store())}
	b.Access.SetResolver(graphResolver{g})
	return b
}

// NewSession implements wire.Backend.
func (b *Backend) NewSession(ctx context.Context, info wire.SessionInfo) (wire.Session, error) {
	b.once.Do(func() {
		if b.Access != nil {
			b.Access.SetResolver(graphResolver{b.Graph}) // roles_pending.go
		}
		if b.locks == nil {
			b.locks = exec.NewAdvisoryLocks()
		}
		b.seqs = seq.Open(b.Graph.Root.Store())
		if b.Replication == nil {
			b.Replication = replication.Open(b.Graph.Root.Store())
		}
		adapters.SetMergeCheck(b.Graph, b.checkMerge)
		adapters.SetMergeDefaults(b.Graph, b.mergeDefaults)
		b.Graph.SetOptimizeGuard(b.optimizeGuard)
	})
	release, err := b.admitLogin(ctx, info.User, info.Database)
	if err != nil {
		return nil, err
	}
	if err := b.checkReplicationRole(ctx, info); err != nil {
		if release != nil {
			release()
		}
		return nil, err
	}
	s := &session{g: b.Graph, root: b.Graph.Root, maxReprepare: b.MaxReprepare, analyze: b.Analyze, info: info, memLimit: b.MemoryLimit,
		cats: &b.cats, seqs: b.seqs, seqSess: seq.NewSession(), tables: &b.tables, views: &b.views,
		access: b.Access, backend: b, releaseLogin: release}
	s.advisory = s.newAdvisorySession(b.locks)
	return s, nil
}
