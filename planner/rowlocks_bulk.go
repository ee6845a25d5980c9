package planner

import (
	"context"
	"encoding/binary"
	"hash/maphash"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pggraph/pggraph/observe"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// Bulk row locks. A statement that changes many rows of one table (a
// DELETE or UPDATE of millions of rows, a big INSERT … SELECT into a
// keyed table) would take one lock table entry per row or key — about
// rowLockBytes each, gigabytes for a few million rows, before the
// memory budget could refuse it. Past bulkLockMin locks of one lock
// space (a table incarnation's rows, or one unique constraint's keys) a
// statement takes them as one bulkSet instead: a bitmap of the rows'
// addresses (addrbits.go, a bit a row), or the sorted 64-bit hashes of
// the keys (8 bytes a key), held by the owner as one unit.
//
// Conflicts are the same as with per-row entries: a single-row lock
// checks the bulk sets of its space (binary search), a bulk set checks
// the other bulk sets of its space (sorted merge) and the per-row
// entries of its space. A waiter for a bulk set waits for its owner to
// release a set (the owner's bulkWake), then its statement runs again,
// as after any row-lock wait. A key hash collision can only make a
// statement wait for a transaction that did not insert its key (then
// run again): never a missed conflict.

// bulkLockMin is the number of locks of one space a statement takes as
// a bulk set rather than one entry each.
const bulkLockMin = 4096

// bulkLockBytes is the memory one id of a bulk set takes.
const bulkLockBytes = 8

// keyHashSeed makes key-lock ids; locks are per process, so a seed per
// process is enough.
var keyHashSeed = maphash.MakeSeed()

// keyLockID is the id of a unique key's bytes in a bulk set.
func keyLockID(key []byte) uint64 { return maphash.Bytes(keyHashSeed, key) }

// lockSpace splits a row or key lock key (rowLockKey, keyLockKey) into
// its space and its id in that space.
func lockSpace(k string) (space string, id uint64, ok bool) {
	switch {
	case len(k) > 8 && k[0] == 'r':
		return k[:len(k)-8], binary.BigEndian.Uint64([]byte(k[len(k)-8:])), true
	case len(k) > 1 && k[0] == 'k':
		b := strings.IndexByte(k[1:], 0)
		if b < 0 {
			return "", 0, false
		}
		t := 1 + b + 1 + 8 // after the branch, its NUL and the table id
		if t > len(k) {
			return "", 0, false
		}
		c := strings.IndexByte(k[t:], 0)
		if c < 0 {
			return "", 0, false
		}
		end := t + c + 1
		return k[:end], keyLockID([]byte(k[end:])), true
	}
	return "", 0, false
}

// rowLockSpace is the space of a table incarnation's row locks.
func rowLockSpace(branch string, id, inc uint64) string {
	k := rowLockKey(branch, id, inc, 0)
	return k[:len(k)-8]
}

// keyLockSpace is the space of one unique constraint's key locks.
func keyLockSpace(branch string, id uint64, constraint string) string {
	return keyLockKey(branch, id, constraint, nil)
}

// bulkSet is one statement's locks of one space, held as a unit.
type bulkSet struct {
	owner *lockOwner
	space string
	mode  lockMode
	bulkReq
	seq uint64 // names the set in release's keys (bulkMarker)
}

// bulkReq asks for the ids of one space as a bulk set: row addresses as
// a bitmap (bits), or key hashes sorted and distinct (ids).
type bulkReq struct {
	space string
	ids   []uint64
	bits  *addrBits
}

// has reports id in the set.
func (r *bulkReq) has(id uint64) bool {
	if r.bits != nil {
		return r.bits.has(id)
	}
	_, ok := slices.BinarySearch(r.ids, id)
	return ok
}

// size is the number of ids.
func (r *bulkReq) size() int {
	if r.bits != nil {
		return r.bits.len()
	}
	return len(r.ids)
}

// bytes is the memory the ids take.
func (r *bulkReq) bytes() int64 {
	if r.bits != nil {
		return r.bits.bytes()
	}
	return int64(len(r.ids)) * bulkLockBytes
}

// overlaps reports an id in both r and o (of one space).
func (r *bulkReq) overlaps(o *bulkReq) bool {
	if r.bits == nil && o.bits == nil {
		return intersects(r.ids, o.ids)
	}
	small, big := r, o
	if small.size() > big.size() {
		small, big = big, small
	}
	if small.bits != nil {
		for id := range small.bits.all() {
			if big.has(id) {
				return true
			}
		}
		return false
	}
	for _, id := range small.ids {
		if big.has(id) {
			return true
		}
	}
	return false
}

// bulkMarker is the key acquireBulk reports as taken for a set: release
// drops the set when it is given the marker.
func bulkMarker(seq uint64) string {
	return "\x00B" + string(binary.BigEndian.AppendUint64(nil, seq))
}

// sortedIDs sorts ids and drops repeats, in place.
func sortedIDs(ids []uint64) []uint64 {
	slices.Sort(ids)
	return slices.Compact(ids)
}

// intersects reports a common element of two sorted slices.
func intersects(a, b []uint64) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(a)*16 < len(b) {
		for _, x := range a {
			if _, ok := slices.BinarySearch(b, x); ok {
				return true
			}
		}
		return false
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			return true
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return false
}

// bulkHolder is another owner whose bulk set holds key k in a mode
// conflicting with m (rl.mu held), or nil.
func (rl *rowLocks) bulkHolder(o *lockOwner, k string, m lockMode) *lockOwner {
	if len(rl.bulk) == 0 {
		return nil
	}
	space, id, ok := lockSpace(k)
	if !ok {
		return nil
	}
	for _, s := range rl.bulk[space] {
		if s.owner == o || !lockConflicts(s.mode, m) {
			continue
		}
		if s.has(id) {
			return s.owner
		}
	}
	return nil
}

// bulkConflict finds what keeps o from taking ids of space in mode m
// (rl.mu held): another owner's bulk set, or a per-row lock entry.
func (rl *rowLocks) bulkConflict(o *lockOwner, r *bulkReq, m lockMode) (*lockOwner, *rowLock, string) {
	space := r.space
	for _, s := range rl.bulk[space] {
		if s.owner != o && lockConflicts(s.mode, m) && s.overlaps(r) {
			return s.owner, nil, ""
		}
	}
	for k, l := range rl.locks {
		if !strings.HasPrefix(k, space) || !l.conflicting(o, m) {
			continue
		}
		if sp, id, ok := lockSpace(k); ok && sp == space && r.has(id) {
			return nil, l, k
		}
	}
	return nil, nil, ""
}

// acquireBulk takes the ids of a space in mode m for o as one set. Like
// acquire, it returns waited=true when it had to wait (the caller runs
// its statement again), and what it took (the set's marker) for
// release.
func (rl *rowLocks) acquireBulk(ctx context.Context, o *lockOwner, r bulkReq, m lockMode, w lockWait) (taken []string, waited bool, err error) {
	rl.mu.Lock()
	rl.identify(o, w.pid)
	table := tableOfKey(r.space)
	if tl := rl.table(table); tl.compacting {
		ch := tl.wake
		rl.mu.Unlock()
		if w.noWait {
			return nil, false, wire.Errorf(pgerr.LockNotAvailable, "could not obtain lock on row in relation \"%s\"", w.relation)
		}
		select {
		case <-ch:
			return nil, true, nil
		case <-ctx.Done():
			return nil, true, ctx.Err()
		}
	}
	holder, l, lk := rl.bulkConflict(o, &r, m)
	if holder == nil && l == nil {
		rl.nextBulk++
		s := &bulkSet{owner: o, space: r.space, mode: m, bulkReq: r, seq: rl.nextBulk}
		if rl.bulk == nil {
			rl.bulk = map[string][]*bulkSet{}
		}
		rl.bulk[r.space] = append(rl.bulk[r.space], s)
		o.sets = append(o.sets, s)
		rl.table(table).held++
		rl.mu.Unlock()
		return []string{bulkMarker(s.seq)}, false, nil
	}
	if w.noWait {
		rl.mu.Unlock()
		return nil, false, wire.Errorf(pgerr.LockNotAvailable, "could not obtain lock on row in relation \"%s\"", w.relation)
	}
	if rl.deadlocked(o, l, holder) {
		rl.mu.Unlock()
		return nil, false, wire.Errorf(pgerr.DeadlockDetected, "deadlock detected").
			WithDetail("Two transactions wait for rows of relation \"" + w.relation + "\" each of them has locked.").
			WithHint("See server log for query details.")
	}
	if lk == "" {
		lk = r.space // pg_locks names the table
	}
	ch := rl.waitFor(o, l, holder, lk, m, w.relationOf(lk))
	rl.mu.Unlock()
	return nil, true, rl.wait(ctx, o, ch, w.timeout)
}

// waitFor records that o waits (for lock l, or for holder's bulk sets)
// and returns the channel closed when it may look again (rl.mu held).
func (rl *rowLocks) waitFor(o *lockOwner, l *rowLock, holder *lockOwner, k string, m lockMode, rel uint32) chan struct{} {
	o.waiting, o.waitingOwner, o.waitKey, o.waitMode, o.waitStart, o.waitRel = l, holder, k, m, time.Now(), rel
	if rl.waiters == nil {
		rl.waiters = map[*lockOwner]bool{}
	}
	rl.waiters[o] = true
	if l != nil {
		return l.wake
	}
	if holder.bulkWake == nil {
		holder.bulkWake = make(chan struct{})
	}
	return holder.bulkWake
}

// wait blocks until ch closes, the context ends or the lock timeout
// passes, then clears o's wait.
func (rl *rowLocks) wait(ctx context.Context, o *lockOwner, ch chan struct{}, timeout time.Duration) error {
	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	var err error
	t0, outcome := time.Now(), observe.LockGranted
	select {
	case <-ch:
	case <-ctx.Done():
		err, outcome = ctx.Err(), observe.LockCanceled
	case <-timer:
		err, outcome = wire.Errorf(pgerr.LockNotAvailable, "canceling statement due to lock timeout"), observe.LockTimeout
	}
	observe.RowLockWait(outcome, time.Since(t0))
	rl.mu.Lock()
	o.waiting, o.waitingOwner, o.waitKey, o.waitRel = nil, nil, "", 0
	delete(rl.waiters, o)
	rl.mu.Unlock()
	return err
}

// dropSet releases one of o's bulk sets and wakes its waiters (rl.mu
// held).
func (rl *rowLocks) dropSet(o *lockOwner, s *bulkSet) {
	o.sets = slices.DeleteFunc(o.sets, func(x *bulkSet) bool { return x == s })
	sets := slices.DeleteFunc(rl.bulk[s.space], func(x *bulkSet) bool { return x == s })
	if len(sets) == 0 {
		delete(rl.bulk, s.space)
	} else {
		rl.bulk[s.space] = sets
	}
	t := tableOfKey(s.space)
	if tl := rl.tables[t]; tl != nil {
		if tl.held--; tl.held <= 0 && !tl.compacting && !tl.wanted {
			delete(rl.tables, t)
		}
	}
	if o.bulkWake != nil {
		close(o.bulkWake)
		o.bulkWake = nil
	}
}

// heldBytes is the memory o's locks take: per-row entries at
// rowLockBytes, bulk sets as their bitmaps or ids take.
func (rl *rowLocks) heldBytes(o *lockOwner) int64 {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	n := int64(len(o.held)) * rowLockBytes
	for _, s := range o.sets {
		n += s.bulkReq.bytes()
	}
	return n
}

// lockPeakBytes is the most lock memory one transaction held
// (RowLockPeakBytes).
var lockPeakBytes atomic.Int64

// RowLockPeakBytes reports the most memory one transaction's row and key
// locks took since the process started (or ResetRowLockPeak), as the
// memory budget counts it (tests and the soak read it).
func RowLockPeakBytes() int64 { return lockPeakBytes.Load() }

// ResetRowLockPeak starts a new measurement of RowLockPeakBytes.
func ResetRowLockPeak() { lockPeakBytes.Store(0) }

func noteLockBytes(n int64) {
	for {
		p := lockPeakBytes.Load()
		if n <= p || lockPeakBytes.CompareAndSwap(p, n) {
			return
		}
	}
}
