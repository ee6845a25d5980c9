package exec

import (
	"context"
	"slices"
	"sort"
	"sync"
	"time"
)

// Advisory locks (pg_advisory_lock and friends, which migration tools —
// Flyway, Prisma, golang-migrate, knex — take around their runs) live in
// an AdvisoryLocks space: one per served graph in a process (the session
// layer creates it and gives each connection an AdvisorySession, which
// its queries take as Session.Advisory). Every form PostgreSQL has
// is here, wherever an expression is allowed: exclusive and shared,
// session and transaction scope (pg_advisory_xact_lock…, released by the
// session layer's AdvisorySession.ReleaseXact at COMMIT/ROLLBACK),
// blocking and try. Holds are re-entrant and counted per scope, as in
// PostgreSQL: an exclusive request waits for every other owner's hold, a
// shared one only for other owners' exclusive holds; one owner's holds
// never conflict with each other. Sessions of other processes do not see
// these locks (a documented limit).
//
// A query whose Session has no AdvisorySession takes locks in a
// process-wide default space owned by its Session.PID
// (ReleaseAdvisoryLocks frees them).

// advisoryKey keeps the one-bigint and two-int4 key spaces apart, as
// PostgreSQL does.
type advisoryKey struct {
	k   int64
	two bool
}

// lockMode indexes a hold's counts: exclusive or shared, session or
// transaction scope.
type lockMode struct{ shared, xact bool }

type advisoryLock struct {
	holds map[any]*[2][2]int // owner → counts [shared][xact]
	freed chan struct{}      // closed (and replaced) when a hold ends
}

func (l *advisoryLock) total(owner any) int {
	h := l.holds[owner]
	if h == nil {
		return 0
	}
	return h[0][0] + h[0][1] + h[1][0] + h[1][1]
}

// conflicts reports whether owner may not take the lock in mode now.
func (l *advisoryLock) conflicts(owner any, shared bool) bool {
	for o, h := range l.holds {
		if o == owner {
			continue
		}
		if h[0][0]+h[0][1] > 0 || (!shared && h[1][0]+h[1][1] > 0) {
			return true
		}
	}
	return false
}

// AdvisoryLocks is one space of advisory locks. The zero value is not
// usable; use NewAdvisoryLocks.
type AdvisoryLocks struct {
	mu   sync.Mutex
	held map[advisoryKey]*advisoryLock
	// waits is each owner's request waiting for the lock (an owner runs
	// one statement at a time, so it waits for at most one): pg_locks
	// lists it ungranted, pg_blocking_pids names its blockers and
	// pg_stat_activity shows the owner waiting on Lock/advisory.
	waits map[any]advisoryWait
}

// advisoryWait is a request waiting for a conflicting hold to end.
type advisoryWait struct {
	key    advisoryKey
	shared bool
	since  time.Time
}

// NewAdvisoryLocks returns an empty lock space.
func NewAdvisoryLocks() *AdvisoryLocks {
	return &AdvisoryLocks{held: map[advisoryKey]*advisoryLock{}, waits: map[any]advisoryWait{}}
}

var defaultAdvisory = NewAdvisoryLocks()

// pidOwner owns the default space's locks of a query without an
// AdvisorySession.
type pidOwner int32

// AdvisorySession is one connection's identity in a lock space.
type AdvisorySession struct {
	space *AdvisoryLocks
	// PID is the owning session's process id (pg_locks.pid).
	PID int32
	// Warn, when set, receives PostgreSQL's WARNING for an unlock of a
	// lock the session does not hold.
	Warn func(message string)
}

// Session returns a new owner in the space.
func (l *AdvisoryLocks) Session() *AdvisorySession { return &AdvisorySession{space: l} }

// ReleaseXact ends every transaction-scoped hold of the session (COMMIT,
// ROLLBACK, end of an autocommit statement).
func (a *AdvisorySession) ReleaseXact() { a.space.release(a, func(m lockMode) bool { return m.xact }) }

// ReleaseSession ends every session-scoped hold (pg_advisory_unlock_all).
func (a *AdvisorySession) ReleaseSession() {
	a.space.release(a, func(m lockMode) bool { return !m.xact })
}

// Close ends every hold of the session (disconnect).
func (a *AdvisorySession) Close() { a.space.release(a, func(lockMode) bool { return true }) }

// Holds reports how many holds of any mode the session has on the
// one-bigint key k (tests, diagnostics).
func (a *AdvisorySession) Holds(k int64) int {
	a.space.mu.Lock()
	defer a.space.mu.Unlock()
	if l := a.space.held[advisoryKey{k: k}]; l != nil {
		return l.total(a)
	}
	return 0
}

// SpaceHolds lists every granted hold in the session's lock space, one
// per owner, key and mode (pg_locks), in key order.
func (a *AdvisorySession) SpaceHolds() []AdvisoryHold {
	a.space.mu.Lock()
	defer a.space.mu.Unlock()
	var out []AdvisoryHold
	for key, lk := range a.space.held {
		for owner, h := range lk.holds {
			pid := ownerPID(owner)
			if h[0][0]+h[0][1] > 0 {
				out = append(out, AdvisoryHold{Key: key.k, TwoKey: key.two, PID: pid})
			}
			if h[1][0]+h[1][1] > 0 {
				out = append(out, AdvisoryHold{Key: key.k, TwoKey: key.two, PID: pid, Shared: true})
			}
		}
	}
	for owner, w := range a.space.waits {
		out = append(out, AdvisoryHold{Key: w.key.k, TwoKey: w.key.two, PID: ownerPID(owner), Shared: w.shared, Waiting: true, WaitStart: w.since})
	}
	sort.Slice(out, func(i, j int) bool {
		x, y := out[i], out[j]
		if x.Waiting != y.Waiting {
			return !x.Waiting
		}
		if x.Key != y.Key {
			return x.Key < y.Key
		}
		if x.TwoKey != y.TwoKey {
			return !x.TwoKey
		}
		if x.PID != y.PID {
			return x.PID < y.PID
		}
		return !x.Shared && y.Shared
	})
	return out
}

// ownerPID is the process id of a lock owner.
func ownerPID(owner any) int32 {
	switch o := owner.(type) {
	case *AdvisorySession:
		return o.PID
	case pidOwner:
		return int32(o)
	}
	return 0
}

// blockingPIDs lists, in ascending order, the process ids whose holds
// keep pid's waiting request from being granted (pg_blocking_pids);
// none when pid is not waiting.
func (l *AdvisoryLocks) blockingPIDs(pid int32) []int32 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []int32
	for owner, w := range l.waits {
		lk := l.held[w.key]
		if ownerPID(owner) != pid || lk == nil {
			continue
		}
		for o, h := range lk.holds {
			if o != owner && (h[0][0]+h[0][1] > 0 || (!w.shared && h[1][0]+h[1][1] > 0)) {
				out = append(out, ownerPID(o))
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// advisoryOwner is the space and owner a query's lock calls use.
func advisoryOwner(ec *evalCtx) (*AdvisoryLocks, any, *AdvisorySession) {
	if a := ec.run.advisory; a != nil {
		return a.space, a, a
	}
	return defaultAdvisory, pidOwner(ec.run.pid), nil
}

// acquire takes the lock for owner; with wait=false it reports false
// instead of waiting for another owner's conflicting hold.
func (l *AdvisoryLocks) acquire(ctx context.Context, owner any, key advisoryKey, m lockMode, wait bool) (bool, error) {
	for {
		l.mu.Lock()
		lk := l.held[key]
		if lk == nil {
			lk = &advisoryLock{holds: map[any]*[2][2]int{}, freed: make(chan struct{})}
			l.held[key] = lk
		}
		if !lk.conflicts(owner, m.shared) {
			h := lk.holds[owner]
			if h == nil {
				h = &[2][2]int{}
				lk.holds[owner] = h
			}
			h[b2i(m.shared)][b2i(m.xact)]++
			delete(l.waits, owner)
			l.mu.Unlock()
			return true, nil
		}
		freed := lk.freed
		if !wait {
			l.mu.Unlock()
			return false, nil
		}
		if _, ok := l.waits[owner]; !ok {
			l.waits[owner] = advisoryWait{key: key, shared: m.shared, since: time.Now()}
		}
		l.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			l.mu.Lock()
			delete(l.waits, owner)
			l.mu.Unlock()
			return false, &Error{Code: CodeQueryCanceled, Message: "canceling statement due to user request"}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// unlock drops one session-scoped hold of owner; false when it has none.
func (l *AdvisoryLocks) unlock(owner any, key advisoryKey, shared bool) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	lk := l.held[key]
	if lk == nil || lk.holds[owner] == nil || lk.holds[owner][b2i(shared)][0] == 0 {
		return false
	}
	lk.holds[owner][b2i(shared)][0]--
	l.dropped(key, lk, owner)
	return true
}

// dropped forgets empty holds and wakes waiters. Caller holds l.mu.
func (l *AdvisoryLocks) dropped(key advisoryKey, lk *advisoryLock, owner any) {
	if lk.total(owner) == 0 {
		delete(lk.holds, owner)
	}
	if len(lk.holds) == 0 {
		delete(l.held, key)
	}
	close(lk.freed)
	lk.freed = make(chan struct{})
}

// release drops every hold of owner whose mode matches.
func (l *AdvisoryLocks) release(owner any, match func(lockMode) bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for key, lk := range l.held {
		h := lk.holds[owner]
		if h == nil {
			continue
		}
		changed := false
		for s := 0; s < 2; s++ {
			for x := 0; x < 2; x++ {
				if h[s][x] > 0 && match(lockMode{shared: s == 1, xact: x == 1}) {
					h[s][x], changed = 0, true
				}
			}
		}
		if changed {
			l.dropped(key, lk, owner)
		}
	}
}

// ReleaseAdvisoryLocks frees every advisory lock the PID holds in the
// default space (queries run without an AdvisorySession).
func ReleaseAdvisoryLocks(pid int32) {
	defaultAdvisory.release(pidOwner(pid), func(lockMode) bool { return true })
}

func init() {
	keyOf := func(a []*Vec, i int32) advisoryKey {
		if len(a) == 2 {
			return advisoryKey{k: a[0].I[i]<<32 | int64(uint32(a[1].I[i])), two: true}
		}
		return advisoryKey{k: a[0].I[i]}
	}
	lockFn := func(m lockMode, wait bool, ret Type) kernel {
		return func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			space, owner, _ := advisoryOwner(ec)
			for _, i := range sel {
				ok, err := space.acquire(ec.run.ctx, owner, keyOf(a, i), m, wait)
				if err != nil {
					return err
				}
				if ret.OID == OIDBool {
					out.B[i] = ok
				}
			}
			return nil
		}
	}
	unlockFn := func(shared bool) kernel {
		return func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			space, owner, sess := advisoryOwner(ec)
			for _, i := range sel {
				out.B[i] = space.unlock(owner, keyOf(a, i), shared)
				if !out.B[i] && sess != nil && sess.Warn != nil {
					mode := "ExclusiveLock"
					if shared {
						mode = "ShareLock"
					}
					sess.Warn("you don't own a lock of type " + mode)
				}
			}
			return nil
		}
	}
	void := Type{OIDVoid, -1}
	both := func(name string, ret Type, k kernel) {
		def(name, sig(ret, k, TInt8), sig(ret, k, TInt4, TInt4))
	}
	for _, shared := range []bool{false, true} {
		suffix := ""
		if shared {
			suffix = "_shared"
		}
		both("pg_advisory_lock"+suffix, void, lockFn(lockMode{shared: shared}, true, void))
		both("pg_try_advisory_lock"+suffix, TBool, lockFn(lockMode{shared: shared}, false, TBool))
		both("pg_advisory_xact_lock"+suffix, void, lockFn(lockMode{shared: shared, xact: true}, true, void))
		both("pg_try_advisory_xact_lock"+suffix, TBool, lockFn(lockMode{shared: shared, xact: true}, false, TBool))
		both("pg_advisory_unlock"+suffix, TBool, unlockFn(shared))
	}
	def("pg_advisory_unlock_all", sig(void, func(ec *evalCtx, _ []*Vec, _ *Vec, _ []int32) error {
		space, owner, _ := advisoryOwner(ec)
		space.release(owner, func(m lockMode) bool { return !m.xact })
		return nil
	}))
}
