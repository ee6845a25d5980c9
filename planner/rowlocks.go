package planner

import (
	"context"
	"encoding/binary"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// Row locks (docs/architecture.md, "Isolation and row-level
// concurrency"). Within one process, a transaction that writes a row
// (by its row address in the snapshot the statement read) or inserts a
// unique key holds a lock on it until the transaction ends — after its
// commit is published, so a waiter that wakes up reads the new row. A
// second writer of the row waits; when it wakes, its statement runs
// again from a new snapshot (READ COMMITTED: PostgreSQL re-evaluates the
// row it waited for; here the whole statement is recomputed, never
// patched) or fails with 40001 when the holder committed a change
// (REPEATABLE READ, SERIALIZABLE). Locks are per Backend (one lock space
// per process and root, like advisory locks): across processes
// conflicting writes are arbitrated at COMMIT (writeset.go).

// lockMode is PostgreSQL's row lock strength.
type lockMode int

const (
	lockKeyShare lockMode = iota
	lockShare
	lockNoKeyUpdate
	lockUpdate
)

// lockConflicts is PostgreSQL's row-level lock conflict table.
func lockConflicts(held, want lockMode) bool {
	switch want {
	case lockKeyShare:
		return held == lockUpdate
	case lockShare:
		return held >= lockNoKeyUpdate
	case lockNoKeyUpdate:
		return held >= lockShare
	}
	return true
}

// lockOwner is one transaction's (or autocommit statement's) set of
// held row locks.
type lockOwner struct {
	held    map[string]lockMode
	waiting *rowLock // the lock it waits for (deadlock detection)
	// waitingOwner is the owner whose bulk sets it waits for (instead of
	// waiting); sets are its bulk sets, and bulkWake is closed when it
	// releases one (rowlocks_bulk.go)
	waitingOwner *lockOwner
	sets         []*bulkSet
	bulkWake     chan struct{}
	// pid, xid, waitKey and waitStart are what pg_locks shows of the
	// owner (rowlocks_catalog.go): its session, the transaction id it
	// got at its first lock, the row it waits for and since when.
	pid       int32
	xid       uint32
	waitKey   string
	waitRel   uint32 // pg_class OID of the waited row's table
	waitMode  lockMode
	waitStart time.Time
	// queued are the rows it took after waiting for them (lockWait.queue,
	// rowlocks_queue.go), by the statement round that took them; round
	// is the statement round now running
	queued map[string]uint64
	round  uint64
}

type rowLock struct {
	holders map[*lockOwner]lockMode
	wake    chan struct{} // closed when a holder leaves
}

// rowLocks is a Backend's lock table.
type rowLocks struct {
	mu     sync.Mutex
	locks  map[string]*rowLock
	tables map[string]*tableLocks // by tableOfKey
	// nextXID numbers lock owners for pg_locks (rowlocks_catalog.go).
	nextXID uint32
	waiters map[*lockOwner]bool // owners waiting for a row lock
	// peak is the most entries locks held since it was last rebuilt:
	// Go maps never give buckets back, so after one transaction locked a
	// million rows the empty table would keep ~50 MB for good (shrink).
	peak int
	// bulk holds the bulk sets by lock space, nextBulk numbers them
	// (rowlocks_bulk.go)
	bulk     map[string][]*bulkSet
	nextBulk uint64
	// reruns counts statements of explicit transactions run again after
	// a lock wait (rowlocks_queue.go)
	reruns atomic.Int64
}

// shrinkBelow is the table size under which a rebuild is not worth it.
const shrinkBelow = 4096

// shrink rebuilds locks once it holds under a quarter of its peak, so
// the table's memory follows the locks held now (amortized: a rebuild
// copies at most a quarter of the entries that were removed since the
// last one).
func (rl *rowLocks) shrink() {
	if n := len(rl.locks); rl.peak >= shrinkBelow && n < rl.peak/4 {
		if n == 0 {
			rl.locks = nil
		} else {
			m := make(map[string]*rowLock, n)
			maps.Copy(m, rl.locks)
			rl.locks = m
		}
		rl.peak = n
	}
}

// tableLocks counts a table's held row and key locks; a background
// compaction runs only while no row it moves is locked (it changes the
// addresses of the rows of the fragments it rewrites), and locks of
// those rows wait while it runs.
type tableLocks struct {
	held int // every lock: single row and key locks, bulk sets
	// singles counts the single row and key locks among held (the rest
	// are bulk sets); rows the single row locks per fragment
	singles int
	rows    map[uint64]int
	// frags, while a compaction is wanted or running, are the fragments
	// it rewrites (nil: the whole table). Only locks of rows in them wait
	// for it and keep it waiting: a row elsewhere keeps its address, and
	// a key lock names a value, not an address.
	frags      map[uint64]bool
	compacting bool
	// wanted: a compaction waits for the held locks to drain; owners
	// holding none of the table's rows wait for it (without this, a
	// table always locked by some transaction was never compacted)
	wanted bool
	wake   chan struct{} // closed when the compaction ends (or gives up)
}

// rowFragment is the fragment of the row a row lock key names (ok false
// for key locks).
func rowFragment(k string) (uint64, bool) {
	if len(k) < 1+1+24 || k[0] != 'r' {
		return 0, false
	}
	return binary.BigEndian.Uint64([]byte(k[len(k)-8:])) >> 32, true
}

// moves reports whether the table's compaction (wanted or running)
// moves what lock key k names.
func (tl *tableLocks) moves(k string) bool {
	if tl.frags == nil {
		return true
	}
	f, ok := rowFragment(k)
	return ok && tl.frags[f]
}

// drained reports whether no lock the compaction must wait for is held:
// none at all for a whole-table reservation, else no bulk set and no
// row lock in a fragment it rewrites.
func (tl *tableLocks) drained() bool {
	if tl.frags == nil {
		return tl.held == 0
	}
	if tl.held > tl.singles {
		return false
	}
	for f := range tl.frags {
		if tl.rows[f] > 0 {
			return false
		}
	}
	return true
}

// count adds d single locks of key k.
func (tl *tableLocks) count(k string, d int) {
	tl.held += d
	tl.singles += d
	if f, ok := rowFragment(k); ok {
		if tl.rows == nil {
			tl.rows = map[uint64]int{}
		}
		if tl.rows[f] += d; tl.rows[f] <= 0 {
			delete(tl.rows, f)
		}
	}
}

// tableOfKey is the table part of a row or key lock key (kind, branch,
// NUL, table id).
func tableOfKey(k string) string {
	i := strings.IndexByte(k[1:], 0)
	if i < 0 || len(k) < 1+i+1+8 {
		return k
	}
	return k[1 : 1+i+1+8]
}

func tableKey(branch string, id uint64) string {
	b := append([]byte(branch), 0)
	return string(binary.BigEndian.AppendUint64(b, id))
}

func (rl *rowLocks) table(t string) *tableLocks {
	if rl.tables == nil {
		rl.tables = map[string]*tableLocks{}
	}
	tl := rl.tables[t]
	if tl == nil {
		tl = &tableLocks{}
		rl.tables[t] = tl
	}
	return tl
}

// reserveCompactions reserves tables for one background compaction
// once no row it moves is locked (frags[t]: the fragments of table t it
// rewrites; a table without an entry is reserved whole): meanwhile (at
// most wait) owners that hold no lock at all wait before locking such a
// row, so the transactions in flight finish and the rows drain even when
// some transaction always holds one of them; owners holding locks go on
// (they may need more to finish, and a compaction waiting for one of
// them must not be waited for). Locks of other rows, and key locks, go
// on throughout: their rows keep their addresses. The tables are
// reserved together: one reserved (its row locks waiting) while another
// drains could hold a drain's transaction up. It returns the tables
// reserved (compacting until endCompaction); the others gave up and
// their waiters run again.
func (rl *rowLocks) reserveCompactions(ts []string, frags map[string][]uint64, wait time.Duration) []string {
	rl.mu.Lock()
	var want []string
	for _, t := range ts {
		tl := rl.table(t)
		if tl.compacting || tl.wanted {
			continue
		}
		tl.wanted, tl.wake, tl.frags = true, make(chan struct{}), nil
		if ids, ok := frags[t]; ok {
			tl.frags = make(map[uint64]bool, len(ids))
			for _, f := range ids {
				tl.frags[f] = true
			}
		}
		want = append(want, t)
	}
	rl.mu.Unlock()
	deadline := time.Now().Add(wait)
	for {
		rl.mu.Lock()
		drained := true
		for _, t := range want {
			if !rl.tables[t].drained() {
				drained = false
			}
		}
		late := time.Now().After(deadline)
		if drained || late {
			var got []string
			for _, t := range want {
				tl := rl.tables[t]
				tl.wanted = false
				if tl.drained() {
					tl.compacting = true
					got = append(got, t)
					continue
				}
				tl.frags = nil
				close(tl.wake)
			}
			rl.mu.Unlock()
			return got
		}
		rl.mu.Unlock()
		time.Sleep(time.Millisecond)
	}
}

func (rl *rowLocks) endCompaction(t string) {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	tl := rl.table(t)
	if tl.compacting {
		tl.compacting, tl.frags = false, nil
		close(tl.wake)
	}
	if tl.held == 0 {
		delete(rl.tables, t)
	}
}

// lockWait tunes one acquisition.
type lockWait struct {
	noWait, skipLocked bool
	timeout            time.Duration // lock_timeout (0: none)
	// queue: after a wait, take the row before returning (the caller
	// keeps it while its statement runs again: rowlocks_queue.go)
	queue    bool
	relation string // for messages
	pid      int32  // the session's process id (pg_locks)
	// relOID is the pg_class OID of a table by id in the session's
	// snapshot (nil or 0: derive it from the id); a table created off
	// main keeps its OID in its entry (graph.TableEntry.OID)
	relOID func(id uint64) uint32
}

// relationOf is the OID pg_locks shows for a wait on lock key k.
func (w lockWait) relationOf(k string) uint32 {
	t := tableOfKey(k)
	if len(t) < 8 {
		return 0
	}
	id := binary.BigEndian.Uint64([]byte(t[len(t)-8:]))
	if w.relOID != nil {
		if o := w.relOID(id); o != 0 {
			return o
		}
	}
	if id&graph.BranchID != 0 {
		return 0 // not derivable from a random id
	}
	return uint32(firstUserOID + id)
}

// conflicting reports whether o may not take l in mode m.
func (l *rowLock) conflicting(o *lockOwner, m lockMode) bool {
	for h, hm := range l.holders {
		if h != o && lockConflicts(hm, m) {
			return true
		}
	}
	return false
}

// deadlocked reports whether o waiting for l (or for holder's bulk
// sets) closes a cycle in the waits-for graph (conservatively: every
// other holder of a lock a holder waits for is an edge).
func (rl *rowLocks) deadlocked(o *lockOwner, l *rowLock, holder *lockOwner) bool {
	seen := map[*lockOwner]bool{}
	var reaches func(h *lockOwner) bool // h waits, transitively, for o
	reaches = func(h *lockOwner) bool {
		if h == o {
			return true
		}
		if seen[h] {
			return false
		}
		seen[h] = true
		if h.waiting != nil {
			for g := range h.waiting.holders {
				if g != h && reaches(g) {
					return true
				}
			}
		}
		return h.waitingOwner != nil && reaches(h.waitingOwner)
	}
	if l != nil {
		for h := range l.holders {
			if h != o && reaches(h) {
				return true
			}
		}
	}
	return holder != nil && holder != o && reaches(holder)
}

// acquire takes keys in mode for o. It returns waited=true when it had
// to wait for another holder (the caller recomputes its statement; the
// locks taken by this call are then released again), and the keys it
// skipped (SKIP LOCKED).
func (rl *rowLocks) acquire(ctx context.Context, o *lockOwner, keys []string, m lockMode, w lockWait) (taken []string, skipped map[string]bool, waited bool, err error) {
	var deadline time.Time // of lock_timeout, once a queued wait started
	for _, k := range keys {
		if hm, ok := o.held[k]; ok && hm >= m {
			rl.keepQueued(o, k)
			continue
		}
		for {
			rl.mu.Lock()
			if rl.locks == nil {
				rl.locks = map[string]*rowLock{}
			}
			rl.identify(o, w.pid)
			if tl := rl.table(tableOfKey(k)); (tl.compacting || (tl.wanted && len(o.held) == 0)) && tl.moves(k) {
				// a compaction moves the row: wait for it, then the
				// statement runs again on the new addresses
				ch := tl.wake
				rl.mu.Unlock()
				if w.noWait {
					return taken, nil, false, wire.Errorf(pgerr.LockNotAvailable, "could not obtain lock on row in relation \"%s\"", w.relation)
				}
				select {
				case <-ch:
					return taken, nil, true, nil
				case <-ctx.Done():
					return taken, nil, true, ctx.Err()
				}
			}
			l := rl.locks[k]
			// a bulk set of another owner may hold the row
			// (rowlocks_bulk.go)
			holder := rl.bulkHolder(o, k, m)
			if holder == nil && l == nil {
				l = &rowLock{holders: map[*lockOwner]lockMode{}, wake: make(chan struct{})}
				rl.locks[k] = l
				rl.peak = max(rl.peak, len(rl.locks))
			}
			if holder == nil && !l.conflicting(o, m) {
				if _, had := o.held[k]; had && waited {
					// an upgrade it waited for: the statement runs
					// again and asks anew (nothing queued)
					rl.mu.Unlock()
					return taken, nil, true, nil
				}
				if hm, ok := l.holders[o]; !ok || hm < m {
					l.holders[o] = m
				}
				if o.held == nil {
					o.held = map[string]lockMode{}
				}
				if _, had := o.held[k]; !had {
					taken = append(taken, k)
					rl.table(tableOfKey(k)).count(k, 1)
				}
				o.held[k] = max(o.held[k], m)
				if waited {
					// it waited for k and holds it now: the statement
					// runs again while k keeps the other waiters queued
					if o.queued == nil {
						o.queued = map[string]uint64{}
					}
					o.queued[k] = o.round
					rl.mu.Unlock()
					return taken, nil, true, nil
				}
				rl.keepQueued(o, k)
				rl.mu.Unlock()
				break
			}
			if holder != nil && l != nil && !l.conflicting(o, m) {
				l = nil // it waits for the bulk set only
			}
			if w.skipLocked {
				rl.mu.Unlock()
				if skipped == nil {
					skipped = map[string]bool{}
				}
				skipped[k] = true
				break
			}
			if w.noWait {
				rl.mu.Unlock()
				return taken, nil, false, wire.Errorf(pgerr.LockNotAvailable, "could not obtain lock on row in relation \"%s\"", w.relation)
			}
			if rl.deadlocked(o, l, holder) {
				rl.mu.Unlock()
				return taken, nil, false, wire.Errorf(pgerr.DeadlockDetected, "deadlock detected").
					WithDetail("Two transactions wait for rows of relation \"" + w.relation + "\" each of them has locked.").
					WithHint("See server log for query details.")
			}
			ch := rl.waitFor(o, l, holder, k, m, w.relationOf(k))
			rl.mu.Unlock()
			if !w.queue {
				return taken, nil, true, rl.wait(ctx, o, ch, w.timeout)
			}
			timeout := w.timeout
			if timeout > 0 {
				if deadline.IsZero() {
					deadline = time.Now().Add(timeout)
				}
				if timeout = time.Until(deadline); timeout <= 0 {
					timeout = time.Nanosecond
				}
			}
			if err := rl.wait(ctx, o, ch, timeout); err != nil {
				return taken, nil, true, err
			}
			// the holder left: take k if no earlier waiter did
			waited = true
		}
	}
	return taken, skipped, false, nil
}

// releaseAll drops every lock of o (the end of its transaction).
// heldCount is the number of locks o holds.
func (rl *rowLocks) heldCount(o *lockOwner) int {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	n := len(o.held)
	for _, s := range o.sets {
		n += s.size()
	}
	return n
}

func (rl *rowLocks) releaseAll(o *lockOwner) { rl.releaseKeys(o, nil, true) }

// release drops the given keys of o and wakes their waiters.
func (rl *rowLocks) release(o *lockOwner, keys []string) { rl.releaseKeys(o, keys, false) }

func (rl *rowLocks) releaseKeys(o *lockOwner, keys []string, all bool) {
	if o == nil || (len(o.held) == 0 && len(o.sets) == 0) || (!all && len(keys) == 0) {
		return
	}
	rl.mu.Lock()
	defer rl.mu.Unlock()
	defer rl.shrink()
	drop := func(k string) {
		if strings.HasPrefix(k, "\x00B") {
			for _, s := range o.sets {
				if bulkMarker(s.seq) == k {
					rl.dropSet(o, s)
					break
				}
			}
			return
		}
		if _, ok := o.held[k]; !ok {
			return
		}
		delete(o.held, k)
		delete(o.queued, k)
		t := tableOfKey(k)
		if tl := rl.tables[t]; tl != nil {
			if tl.count(k, -1); tl.held <= 0 && !tl.compacting && !tl.wanted {
				delete(rl.tables, t)
			}
		}
		l := rl.locks[k]
		if l == nil {
			return
		}
		delete(l.holders, o)
		close(l.wake)
		l.wake = make(chan struct{})
		if len(l.holders) == 0 {
			delete(rl.locks, k)
		}
	}
	if all {
		for k := range o.held {
			drop(k)
		}
		for len(o.sets) > 0 {
			rl.dropSet(o, o.sets[0])
		}
		return
	}
	for _, k := range keys {
		drop(k)
	}
}

// rowLockKey names a row version: table incarnation and row address.
func rowLockKey(branch string, id, inc uint64, addr uint64) string {
	b := make([]byte, 0, len(branch)+26)
	b = append(b, 'r')
	b = append(b, branch...)
	b = append(b, 0)
	b = binary.BigEndian.AppendUint64(b, id)
	b = binary.BigEndian.AppendUint64(b, inc)
	b = binary.BigEndian.AppendUint64(b, addr)
	return string(b)
}

// keyLockKey names a unique key value of a constraint.
func keyLockKey(branch string, id uint64, constraint string, key []byte) string {
	b := make([]byte, 0, len(branch)+len(constraint)+len(key)+12)
	b = append(b, 'k')
	b = append(b, branch...)
	b = append(b, 0)
	b = binary.BigEndian.AppendUint64(b, id)
	b = append(b, constraint...)
	b = append(b, 0)
	b = append(b, key...)
	return string(b)
}

// compactionDrainWait bounds how long a background compaction waits for
// a table's row locks to drain (new lockers of the table wait meanwhile).
const compactionDrainWait = time.Second

// optimizeGuard gives background compaction the tables whose row locks
// held in this process on the rows it moves (those of the fragments
// frags lists per table; all rows of a table it does not list) drain
// within compactionDrainWait (owners taking their first lock on such a
// row wait meanwhile: reserveCompactions), and keeps locks of those rows
// away while the compaction runs (adapters.OptimizeGuard): row locks
// name rows by address, which a compaction changes.
func (b *Backend) optimizeGuard(branch string, tables []string, frags map[string][]uint64) ([]string, func()) {
	sn, err := b.Graph.Root.Head(context.Background(), branch)
	if err != nil {
		return nil, nil
	}
	var keys []string
	byKey := map[string]string{}
	moved := map[string][]uint64{}
	for _, name := range tables {
		e, ok := sn.State.TableByName(name)
		if !ok {
			continue
		}
		t := tableKey(branch, e.ID)
		keys = append(keys, t)
		byKey[t] = name
		if ids, ok := frags[name]; ok {
			moved[t] = ids
		}
	}
	reserved := b.rows.reserveCompactions(keys, moved, compactionDrainWait)
	allowed := make([]string, 0, len(reserved))
	for _, t := range reserved {
		allowed = append(allowed, byKey[t])
	}
	return allowed, func() {
		for _, t := range reserved {
			b.rows.endCompaction(t)
		}
	}
}
