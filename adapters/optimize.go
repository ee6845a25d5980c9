package adapters

import (
	"context"
	"errors"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/observe"
	"github.com/pggraph/pggraph/protocol"
)

// OptimizeOptions tune one Optimize (compaction) write.
type OptimizeOptions struct {
	Branch string
	// Tables to compact; nil = every live table of the branch.
	Tables []string
	// TargetRowsPerFragment: fragments with fewer rows (or with deleted
	// rows) are merged into fragments of up to this many rows
	// (0 = lance.DefaultMaxRowsPerFile).
	TargetRowsPerFragment uint64
	// MaterializeDeletions: a fragment of the target size is rewritten
	// only when this fraction of its rows is deleted (0 = any deleted
	// row: VACUUM FULL and graph.optimize() remove every deleted row).
	MaterializeDeletions float64
	// MinFragments: a table is compacted only when at least this many of
	// its fragments would be rewritten (default 2).
	MinFragments int
	// Actor, Application, Client: the commit's attribution (as
	// WriteOptions').
	Actor, Application, Client string
	// SmallFragmentRows, when not 0: a fragment of at least this many
	// rows is rewritten only for its deletions, not to merge it with
	// small ones (lance.CompactOptions.SmallBelow).
	SmallFragmentRows uint64
	// Fragments, per table, limits what a table's compaction may rewrite
	// to these fragments (a table without an entry: any fragment).
	// Background compaction sets it to the fragments whose rows it
	// reserved against row locks (OptimizeGuard).
	Fragments map[string][]uint64
}

// errNothingToOptimize ends an Optimize whose base has nothing to
// compact, before any effect.
var errNothingToOptimize = errors.New("adapters: nothing to optimize")

// Optimize compacts the small fragments of tables on a branch ("" =
// main; no tables = all) in one graph commit.
func (g *Graph) Optimize(ctx context.Context, branch string, tables ...string) (*protocol.Receipt, error) {
	return g.OptimizeWith(ctx, OptimizeOptions{Branch: branch, Tables: tables})
}

// OptimizeWith runs the Optimize adapter: each chosen table whose pinned
// version has at least MinFragments fragments worth compacting gets one
// staged Lance Rewrite (live rows rewritten into fewer files, deletion
// vectors materialized away), and all of them are published as one graph
// commit through the same protocol as every other write (sidecar, exact
// commits at pin+1, manifest CAS). Rows are unchanged, so whichever way
// recovery resolves a crash (armed: restore the old layout; confirmed:
// publish the new one) the graph shows the same rows. A nil receipt and
// nil error mean there was nothing to compact.
func (g *Graph) OptimizeWith(ctx context.Context, o OptimizeOptions) (*protocol.Receipt, error) {
	if o.MinFragments < 2 {
		o.MinFragments = 2
	}
	p := observe.StartProgress(&observe.Progress{Command: "OPTIMIZE", Database: o.Branch, Relation: strings.Join(o.Tables, ",")})
	defer p.Done()
	copts := lance.CompactOptions{TargetRowsPerFragment: o.TargetRowsPerFragment, MaterializeDeletionsThreshold: o.MaterializeDeletions, SmallBelow: o.SmallFragmentRows}
	w := newMutationWriter(g.Root, func(ctx context.Context, s *Stage) error {
		names := o.Tables
		if names == nil {
			for _, e := range s.Base().State.Tables {
				if e.State == graph.Live {
					names = append(names, e.Name)
				}
			}
		}
		n := 0
		for _, name := range names {
			e, ok := s.Base().State.TableByName(name)
			if !ok {
				return protocol.Errorf(protocol.KindInvalid, nil, "relation %q does not exist", name)
			}
			ds, err := g.Root.OpenTable(ctx, e)
			if err != nil {
				return err
			}
			topts := copts
			if ids, ok := o.Fragments[name]; ok {
				topts.Fragments = make(map[uint64]bool, len(ids))
				for _, f := range ids {
					topts.Fragments[f] = true
				}
			}
			if ds.CompactionCandidates(topts) < o.MinFragments {
				continue
			}
			if err := s.compactTable(name, topts); err != nil {
				return err
			}
			n++
		}
		if n == 0 {
			return errNothingToOptimize
		}
		return nil
	})
	w.legacy = g.legacy
	rc, err := g.commit(ctx, w, g.attribute(protocol.CommitOptions{Branch: o.Branch, Message: "optimize"}, o.Actor, o.Application, o.Client))
	if errors.Is(err, errNothingToOptimize) {
		return nil, nil
	}
	return rc, err
}

// onlyCompactions reports whether the stage holds compactions and
// nothing else (the Optimize writer kind).
func (s *Stage) onlyCompactions() bool {
	if s.changesCatalog() || len(s.order) == 0 {
		return false
	}
	for _, k := range s.order {
		if s.ops[k].compact == nil {
			return false
		}
	}
	return true
}

// autoMaterializeDeletions is background compaction's deletion
// threshold (Lance's default): a large fragment whose rows are updated
// one at a time is rewritten once a tenth of it is deleted, not by every
// run (each rewrite of it read and wrote the whole table, and row locks
// of the table wait for a compaction).
const autoMaterializeDeletions = 0.1

// autoSmallFragmentRows: background compaction merges fragments of
// fewer rows than this and leaves larger ones to their deletions, so a
// table whose rows are updated one at a time (each update appends a
// 1-row fragment) is not rewritten whole, every few seconds, to absorb
// them — and the row locks of its large fragment never wait for it.
const autoSmallFragmentRows = 1 << 14

// autoOptimizer runs Optimize in the background when a write leaves a
// table with too many fragments: at most one run per branch at a time
// (a crossing seen while one runs is picked up by the next write).
type autoOptimizer struct {
	threshold int
	wg        sync.WaitGroup
	mu        sync.Mutex
	running   map[string]bool
	runs      atomic.Int64
	failures  atomic.Int64
	lastErr   atomic.Value // error of the latest failed run
	guard     atomic.Pointer[OptimizeGuard]
}

// AutoOptimizeStats reports the background Optimize runs started and
// how many of them failed (a failed run changes nothing visible: its
// intent is resolved by recovery like any write's).
func (g *Graph) AutoOptimizeStats() (runs, failures int64) {
	return g.auto.runs.Load(), g.auto.failures.Load()
}

// maybeOptimize starts a background Optimize of the tables the
// acknowledged write left with at least the threshold's fragments.
func (g *Graph) maybeOptimize(rc *protocol.Receipt, w *mutationWriter) {
	a := &g.auto
	if a.threshold <= 0 || rc == nil || rc.Snapshot == nil {
		return
	}
	w.mu.Lock()
	var tables []string
	for k, n := range w.fragments {
		if n < a.threshold {
			continue
		}
		if e, ok := rc.Snapshot.State.Table(k); ok && e.State == graph.Live {
			tables = append(tables, e.Name)
		}
	}
	w.mu.Unlock()
	if len(tables) == 0 {
		return
	}
	sort.Strings(tables)
	branch := rc.Snapshot.Branch
	a.mu.Lock()
	if a.running[branch] {
		a.mu.Unlock()
		return
	}
	a.running[branch] = true
	a.wg.Add(1)
	a.mu.Unlock()
	a.runs.Add(1)
	go func() {
		defer a.wg.Done()
		defer func() {
			a.mu.Lock()
			delete(a.running, branch)
			a.mu.Unlock()
		}()
		// open transactions are not waited for: a compaction moves rows
		// without changing them, and the SQL layer rebases a
		// transaction's addresses across it (planner rebase.go); only
		// the row locks of this process name rows by address, so the
		// guard lets the locks of the rows it moves drain first
		// (bounded) and skips a table whose do not. The run rewrites
		// only the fragments it reserved (those worth compacting in the
		// commit that triggered it): rows of other fragments, such as a
		// large one whose rows transactions keep locking, stay lockable.
		// derived work outlives the caller's request context
		ctx := context.Background()
		o := OptimizeOptions{Branch: branch, Actor: "auto-optimize", MaterializeDeletions: autoMaterializeDeletions,
			SmallFragmentRows: autoSmallFragmentRows, Fragments: map[string][]uint64{}}
		copts := lance.CompactOptions{MaterializeDeletionsThreshold: autoMaterializeDeletions, SmallBelow: autoSmallFragmentRows}
		for _, name := range tables {
			if e, ok := rc.Snapshot.State.TableByName(name); ok {
				if ds, err := g.Root.OpenTable(ctx, e); err == nil {
					ids := ds.CompactionFragments(copts)
					if len(ids) < 2 {
						continue // nothing worth a run (OptimizeWith's MinFragments)
					}
					o.Fragments[name] = ids
				}
				// else: the run reports the error, unlimited
			}
			o.Tables = append(o.Tables, name)
		}
		if len(o.Tables) == 0 {
			return
		}
		if gf := a.guard.Load(); gf != nil {
			var release func()
			if o.Tables, release = (*gf)(branch, o.Tables, o.Fragments); release != nil {
				defer release()
			}
			if len(o.Tables) == 0 {
				return
			}
		}
		if _, err := g.OptimizeWith(ctx, o); err != nil {
			a.failures.Add(1)
			a.lastErr.Store(err)
		}
	}()
}
