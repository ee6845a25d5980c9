package planner

import (
	"github.com/pggraph/pggraph/exec"
)

// What pg_locks, pg_stat_activity and pg_blocking_pids show of the row
// locks (exec/syscat_rowlocks.go): every owner holding or waiting for a
// row lock, with its session, a transaction id numbered per Backend
// from firstRowLockXID, and for a waiter the table and the owners
// holding the row in a conflicting mode.

// firstRowLockXID starts the transaction ids pg_locks shows (PostgreSQL's
// first normal xid is 3; clients only compare them).
const firstRowLockXID = 1000

// identify records o's session and gives it a transaction id when it
// first asks for a row lock (rl.mu held): PostgreSQL's UPDATE, DELETE
// and SELECT … FOR UPDATE/SHARE take one before they lock a row, so a
// waiter has one too.
func (rl *rowLocks) identify(o *lockOwner, pid int32) {
	if o.pid == 0 {
		o.pid = pid
	}
	if o.xid == 0 {
		rl.nextXID++
		o.xid = firstRowLockXID + rl.nextXID
	}
}

// rowLockHolds lists the Backend's row-lock holders and waiters (none for
// a session without a Backend: the merge checks' internal sessions).
func (s *session) rowLockHolds() []exec.RowLockHold {
	if s.backend == nil {
		return nil
	}
	return s.backend.rows.holds()
}

// holds lists the owners that hold or wait for row locks.
func (rl *rowLocks) holds() []exec.RowLockHold {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	seen := map[*lockOwner]bool{}
	var owners []*lockOwner
	add := func(o *lockOwner) {
		if !seen[o] && o.pid != 0 {
			seen[o] = true
			owners = append(owners, o)
		}
	}
	for _, l := range rl.locks {
		for o := range l.holders {
			add(o)
		}
	}
	for _, sets := range rl.bulk {
		for _, bs := range sets {
			add(bs.owner)
		}
	}
	for o := range rl.waiters {
		add(o)
	}
	var out []exec.RowLockHold
	for _, o := range owners {
		h := exec.RowLockHold{PID: o.pid, XID: o.xid}
		if o.waiting != nil || o.waitingOwner != nil {
			h.Waiting, h.WaitStart = true, o.waitStart
			h.Relation = o.waitRel // lockWait.relationOf
			if o.waiting != nil {
				for b, m := range o.waiting.holders {
					if b != o && lockConflicts(m, o.waitMode) {
						h.BlockerXIDs = append(h.BlockerXIDs, b.xid)
						h.BlockerPIDs = append(h.BlockerPIDs, b.pid)
					}
				}
			}
			if b := o.waitingOwner; b != nil {
				h.BlockerXIDs = append(h.BlockerXIDs, b.xid)
				h.BlockerPIDs = append(h.BlockerPIDs, b.pid)
			}
		}
		out = append(out, h)
	}
	return out
}
