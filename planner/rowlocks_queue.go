package planner

import (
	"context"
	"encoding/binary"
	"strings"
)

// Queued row locks (docs/architecture.md, "Isolation and row-level
// concurrency"). When the holder of a row ends, every transaction
// waiting for the row wakes up. Without more, each of them runs its
// statement again at once, and all but one find the row's new version
// locked by the first and wait again: with n waiters every commit of a
// hot row costs n statement runs, and the CPU they burn slows the
// holder's commit that everyone waits for (pgbench's TPC-B at scale 1
// updates one branch row in every transaction).
//
// PostgreSQL queues the waiters on the tuple's lock: the first takes it,
// follows the row to its new version and locks that; the others keep
// waiting for the tuple lock until then. Here a statement of an
// explicit transaction that waited for a row takes the row's lock (the
// old version's) before it runs again (lockWait.queue); the other
// waiters find it taken and wait on, without running their statements.
// The lock is kept while the statement runs again, then:
//
//   - when that run locks the same row (the holder rolled back, or only
//     locked it), it is an ordinary row lock of the run (keepQueued);
//   - when the run succeeds and the row version it waited for was
//     deleted by the commit it waited for (an UPDATE makes a new version
//     at a new address), it is kept to the end of the transaction
//     (keepSuperseded): the next waiters of that version wait for this
//     transaction, whose run locked the new version, instead of running
//     their statements again only to find the new version locked — as
//     PostgreSQL's waiters, which follow the update chain, wait for the
//     transaction that locked its newest version. No statement on a
//     snapshot taken since can lock the deleted version: only waiters
//     queued behind it, and older snapshots' writers (REPEATABLE READ,
//     SERIALIZABLE) that fail with 40001 once they get it;
//   - otherwise (the row is live and the run does not lock it, or the
//     run waited again or failed) it is released after the run has
//     taken its own locks (releaseQueued), and at the latest when the
//     statement ends: no lock PostgreSQL would not hold outlives the
//     re-run of one statement.

// keepQueued turns o's queued lock of k into an ordinary one: o's
// statement locks k itself (rl.mu held).
func (rl *rowLocks) keepQueued(o *lockOwner, k string) {
	delete(o.queued, k)
}

// nextRound starts a statement run of o: rows it takes after a wait
// from now on are this run's.
func (rl *rowLocks) nextRound(o *lockOwner) {
	rl.mu.Lock()
	o.round++
	rl.mu.Unlock()
}

// withoutQueued is keys without the rows o took after waiting in its
// current run (they stay held while the statement runs again).
func (rl *rowLocks) withoutQueued(o *lockOwner, keys []string) []string {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if len(o.queued) == 0 {
		return keys
	}
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		if r, ok := o.queued[k]; !ok || r != o.round {
			out = append(out, k)
		}
	}
	return out
}

// releaseQueued releases o's queued row locks taken before its current
// run (all: every one), waking the next waiters.
func (rl *rowLocks) releaseQueued(o *lockOwner, all bool) {
	if o == nil {
		return
	}
	rl.mu.Lock()
	var keys []string
	for k, r := range o.queued {
		if all || r != o.round {
			keys = append(keys, k)
		}
	}
	rl.mu.Unlock()
	rl.release(o, keys)
}

// keepSuperseded keeps to the end of the transaction o's queued locks
// of row versions that commits between snapshot was (where the run that
// waited found them) and now (where the run that succeeded computed)
// deleted.
func (s *session) keepSuperseded(ctx context.Context, o *lockOwner, was, now *catalog) {
	rl := &s.backend.rows
	rl.mu.Lock()
	keys := make([]string, 0, len(o.queued))
	for k := range o.queued {
		keys = append(keys, k)
	}
	rl.mu.Unlock()
	for _, k := range keys {
		branch, id, inc, addr, ok := parseRowLockKey(k)
		if !ok || branch != was.sn.Branch {
			continue
		}
		from, ok1 := tableIncarnation(was, id, inc)
		to, ok2 := tableIncarnation(now, id, inc)
		if !ok1 || !ok2 {
			continue
		}
		tc, err := s.committedSince(ctx, from.entry, to.entry)
		if err != nil || tc.coarse || !tc.deleted(addr) {
			continue
		}
		rl.mu.Lock()
		rl.keepQueued(o, k)
		rl.mu.Unlock()
	}
}

// parseRowLockKey is rowLockKey's inverse (ok false for key locks).
func parseRowLockKey(k string) (branch string, id, inc, addr uint64, ok bool) {
	if len(k) < 1+1+24 || k[0] != 'r' {
		return "", 0, 0, 0, false
	}
	i := strings.IndexByte(k[1:], 0)
	if i < 0 || len(k) != 1+i+1+24 {
		return "", 0, 0, 0, false
	}
	b := []byte(k[1+i+1:])
	return k[1 : 1+i], binary.BigEndian.Uint64(b), binary.BigEndian.Uint64(b[8:]), binary.BigEndian.Uint64(b[16:]), true
}

// tableIncarnation finds a table of c by id and incarnation.
func tableIncarnation(c *catalog, id, inc uint64) (*tableInfo, bool) {
	for _, ti := range c.tables {
		if ti.entry.ID == id && ti.entry.Incarnation == inc {
			return ti, true
		}
	}
	return nil, false
}
