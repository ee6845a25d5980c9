package planner

import (
	"context"

	"github.com/pggraph/pggraph/exec"
)

// A READ COMMITTED INSERT whose key a committed row holds, while
// another transaction of the process deletes that row or moves it to
// another key (it holds the row's lock, rowlocks.go), waits for that
// transaction as PostgreSQL's unique check waits for the row's deleter:
// when it committed, the statement runs again on a new snapshot and
// inserts; when it rolled back, the 23505 stands (docs/architecture.md,
// "Isolation and row-level concurrency"). checkRows reports such a
// duplicate as a dupHeld when the statement runs under lockedWrite
// (dupWaitKey in its context); lockedWrite waits and never lets it out.

type dupWaitKey struct{}

// withDupWait marks ctx: a duplicate key of a committed row is reported
// with the row locks to wait for.
func withDupWait(ctx context.Context) context.Context {
	return context.WithValue(ctx, dupWaitKey{}, true)
}

// dupHeld is a 23505 against committed rows, with their row lock keys.
type dupHeld struct {
	err      error
	keys     []string
	relation string
}

func (d *dupHeld) Error() string { return d.err.Error() }
func (d *dupHeld) Unwrap() error { return d.err }

// heldDup wraps dup, the 23505 of row i's key of uk, with the lock keys
// of the committed rows holding that key (as the writer's view sees
// them), when the statement waits for their writers.
func (w *writer) heldDup(ti *tableInfo, uk uniqueKey, probe []*exec.Vec, i int, dup error) error {
	if on, _ := w.ctx.Value(dupWaitKey{}).(bool); !on || w.copySeen != nil || w.v.base.sn == nil {
		return dup
	}
	found, err := w.findKeys(ti.def.Name, uk.cols, gatherVecs(probe, []int32{int32(i)}))
	if err != nil {
		return dup
	}
	var keys []string
	for _, addrs := range found {
		for _, a := range addrs {
			if a&pendingAddrBit == 0 {
				keys = append(keys, rowLockKey(w.v.base.sn.Branch, ti.entry.ID, ti.entry.Incarnation, a))
			}
		}
	}
	if len(keys) == 0 {
		return dup
	}
	return &dupHeld{err: dup, keys: keys, relation: ti.def.Name}
}
