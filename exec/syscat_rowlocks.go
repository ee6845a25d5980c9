package exec

import (
	"fmt"
	"slices"
	"time"
)

// Row locks in pg_locks, pg_stat_activity and pg_blocking_pids, as
// PostgreSQL shows them: a transaction that holds row locks holds an
// ExclusiveLock on its own transaction id; a transaction waiting for a
// row holds the row's tuple lock and waits (ShareLock, not granted) on
// the transaction id of the one holding the row, with wait event
// Lock/transactionid. Lock-monitoring queries join the waiting
// transactionid row with the holder's to find who blocks whom.

// RowLockHold is one transaction's row-lock state (the planner's row
// locks, docs/architecture.md "Isolation and row-level concurrency").
type RowLockHold struct {
	PID int32
	XID uint32 // the transaction's id as pg_locks shows it
	// Waiting: blocked on a row of Relation (pg_class OID) since
	// WaitStart, held by the transactions BlockerXIDs (of BlockerPIDs).
	Waiting     bool
	Relation    uint32
	WaitStart   time.Time
	BlockerXIDs []uint32
	BlockerPIDs []int32
}

func (c *catalogSet) rowLocks() []RowLockHold {
	if c.rowLocksFn == nil {
		return nil
	}
	return c.rowLocksFn()
}

// rowLockRows are pg_locks' rows of the row locks (column order as
// pg_locks).
func (c *catalogSet) rowLockRows() [][]any {
	var rows [][]any
	for _, h := range c.rowLocks() {
		vxid := fmt.Sprintf("%d/%d", h.PID, h.XID)
		if h.XID != 0 {
			rows = append(rows, []any{"transactionid", nil, nil, nil, nil, nil, h.XID, nil, nil, nil, vxid, h.PID, "ExclusiveLock", true, false, nil})
		}
		if !h.Waiting || len(h.BlockerXIDs) == 0 {
			continue
		}
		// row addresses are not ctids: the tuple lock names page 0, tuple 0
		rows = append(rows, []any{"tuple", uint32(oidDatabase), h.Relation, 0, int16(0), nil, nil, nil, nil, nil, vxid, h.PID, "ExclusiveLock", true, false, nil})
		rows = append(rows, []any{"transactionid", nil, nil, nil, nil, nil, h.BlockerXIDs[0], nil, nil, nil, vxid, h.PID, "ShareLock", false, false, timeOrNull(h.WaitStart)})
	}
	return rows
}

// rowLockBlockers lists the sessions whose row locks pid waits for.
func rowLockBlockers(holds []RowLockHold, pid int32) []int32 {
	var out []int32
	for _, h := range holds {
		if h.PID == pid && h.Waiting {
			for _, p := range h.BlockerPIDs {
				if !slices.Contains(out, p) {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// rowLockWaiting reports whether pid waits for a row lock.
func rowLockWaiting(holds []RowLockHold, pid int32) bool {
	for _, h := range holds {
		if h.PID == pid && h.Waiting {
			return true
		}
	}
	return false
}

// rowLockXID is the transaction id pid holds row locks under (0: none).
func rowLockXID(holds []RowLockHold, pid int32) uint32 {
	for _, h := range holds {
		if h.PID == pid {
			return h.XID
		}
	}
	return 0
}
