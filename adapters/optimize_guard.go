package adapters

// OptimizeGuard is asked before a background Optimize (auto-optimize)
// which of the tables it may compact now; release, when not nil, is
// called once the run ended. Compaction changes row addresses, so the
// SQL layer keeps it away from tables whose rows open transactions of
// this process have locked (letting them drain first, bounded), and
// holds those tables' row locks off while it runs (planner's row locks).
type OptimizeGuard func(branch string, tables []string) (allowed []string, release func())

// SetOptimizeGuard installs (nil: removes) the guard of background
// Optimize runs.
func (g *Graph) SetOptimizeGuard(f OptimizeGuard) {
	if f == nil {
		g.auto.guard.Store(nil)
		return
	}
	g.auto.guard.Store(&f)
}
