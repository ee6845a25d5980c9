package adapters

// OptimizeGuard is asked before a background Optimize (auto-optimize)
// which of the tables it may compact now; frags lists, per table, the
// only fragments the run may rewrite (a table it does not list may be
// rewritten whole). release, when not nil, is called once the run
// ended. Compaction changes the addresses of the rows of the fragments
// it rewrites, so the SQL layer keeps it away from such rows that open
// transactions of this process have locked (letting them drain first,
// bounded), and holds locks of those rows off while it runs (planner's
// row locks); rows of other fragments stay lockable throughout.
type OptimizeGuard func(branch string, tables []string, frags map[string][]uint64) (allowed []string, release func())

// SetOptimizeGuard installs (nil: removes) the guard of background
// Optimize runs.
func (g *Graph) SetOptimizeGuard(f OptimizeGuard) {
	if f == nil {
		g.auto.guard.Store(nil)
		return
	}
	g.auto.guard.Store(&f)
}
