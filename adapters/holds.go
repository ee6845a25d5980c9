package adapters

import (
	"context"
	"sync"
	"time"

	"github.com/pggraph/pggraph/graph"
)

// Background Optimize yields to open transactions. A compaction commit
// moves a table's pin and its rows' addresses; landing between a
// transaction's snapshot and its COMMIT it would fail that COMMIT with
// 40001 although no row changed. So the SQL layer holds its branch
// (HoldSnapshot) from before an explicit transaction takes its snapshot
// until the transaction ends, and the automatic Optimize publishes only
// while nothing is held: it waits for a moment without open
// transactions (bounded; it gives up and is retried by a later write),
// and transactions that start meanwhile wait for its commit. A user's
// own VACUUM FULL or graph.optimize() does not wait (it is the user's
// statement, not background work). Within one process only: another
// process's compaction can still fail a transaction here.
type snapshotHolds struct {
	mu   sync.Mutex
	held map[string]int  // open transactions by branch
	busy map[string]bool // a background Optimize is committing on the branch
}

// maxOptimizeWait bounds how long a background Optimize waits for a
// moment without open transactions before it gives up.
const maxOptimizeWait = 5 * time.Second

func holdKey(branch string) string {
	if branch == "" {
		return graph.MainBranch
	}
	return branch
}

// HoldSnapshot is called before an explicit transaction on branch takes
// its snapshot; the returned release (idempotent) when it ends. It waits
// while a background Optimize of the branch is committing.
func (g *Graph) HoldSnapshot(ctx context.Context, branch string) (release func(), err error) {
	h, k := &g.holds, holdKey(branch)
	for {
		h.mu.Lock()
		if !h.busy[k] {
			if h.held == nil {
				h.held = map[string]int{}
			}
			h.held[k]++
			h.mu.Unlock()
			break
		}
		h.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			h.held[k]--
			h.mu.Unlock()
		})
	}, nil
}

// quiet waits until no transaction holds branch and marks it busy; false
// after wait. done clears the mark.
func (h *snapshotHolds) quiet(branch string, wait time.Duration) (done func(), ok bool) {
	k := holdKey(branch)
	deadline := time.Now().Add(wait)
	for {
		h.mu.Lock()
		if h.held[k] == 0 && !h.busy[k] {
			if h.busy == nil {
				h.busy = map[string]bool{}
			}
			h.busy[k] = true
			h.mu.Unlock()
			return func() {
				h.mu.Lock()
				delete(h.busy, k)
				h.mu.Unlock()
			}, true
		}
		h.mu.Unlock()
		if time.Now().After(deadline) {
			return nil, false
		}
		time.Sleep(500 * time.Microsecond)
	}
}
