package exec

import (
	"context"
	"sync"
)

// Session-level advisory locks (pg_advisory_lock, pg_try_advisory_lock,
// pg_advisory_unlock, pg_advisory_unlock_all), which migration tools
// (Flyway, Prisma, golang-migrate) take around their runs. Locks belong
// to the session's PID, are re-entrant like PostgreSQL's, and live in this
// process: pggraph processes sharing a graph do not see each other's
// advisory locks. The session layer calls ReleaseAdvisoryLocks when a
// session ends. Transaction-scoped variants (pg_advisory_xact_lock) and
// shared locks answer 0A000.

// advisoryKey keeps the one-bigint and two-int4 key spaces apart, as
// PostgreSQL does.
type advisoryKey struct {
	k   int64
	two bool
}

type advisoryLock struct {
	owner int32
	count int
	freed chan struct{} // closed when the lock is released
}

var advisory = struct {
	mu   sync.Mutex
	held map[advisoryKey]*advisoryLock
}{held: map[advisoryKey]*advisoryLock{}}

// acquireAdvisory takes the lock for pid; with wait=false it reports
// false instead of waiting for another session's lock.
func acquireAdvisory(ctx context.Context, pid int32, key advisoryKey, wait bool) (bool, error) {
	for {
		advisory.mu.Lock()
		l := advisory.held[key]
		if l == nil {
			advisory.held[key] = &advisoryLock{owner: pid, count: 1, freed: make(chan struct{})}
			advisory.mu.Unlock()
			return true, nil
		}
		if l.owner == pid {
			l.count++
			advisory.mu.Unlock()
			return true, nil
		}
		freed := l.freed
		advisory.mu.Unlock()
		if !wait {
			return false, nil
		}
		select {
		case <-freed:
		case <-ctx.Done():
			return false, &Error{Code: CodeQueryCanceled, Message: "canceling statement due to user request"}
		}
	}
}

// releaseAdvisory drops one hold of pid's lock; false when pid holds none.
func releaseAdvisory(pid int32, key advisoryKey) bool {
	advisory.mu.Lock()
	defer advisory.mu.Unlock()
	l := advisory.held[key]
	if l == nil || l.owner != pid {
		return false
	}
	l.count--
	if l.count == 0 {
		delete(advisory.held, key)
		close(l.freed)
	}
	return true
}

// ReleaseAdvisoryLocks frees every advisory lock the session pid holds
// (at session end, and for pg_advisory_unlock_all).
func ReleaseAdvisoryLocks(pid int32) {
	advisory.mu.Lock()
	defer advisory.mu.Unlock()
	for k, l := range advisory.held {
		if l.owner == pid {
			delete(advisory.held, k)
			close(l.freed)
		}
	}
}

func init() {
	keyOf := func(a []*Vec, i int32) advisoryKey {
		if len(a) == 2 {
			return advisoryKey{k: a[0].I[i]<<32 | int64(uint32(a[1].I[i])), two: true}
		}
		return advisoryKey{k: a[0].I[i]}
	}
	lockFn := func(wait bool, ret Type) kernel {
		return func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				ok, err := acquireAdvisory(ec.run.ctx, ec.run.pid, keyOf(a, i), wait)
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
	unlockFn := func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			out.B[i] = releaseAdvisory(ec.run.pid, keyOf(a, i))
		}
		return nil
	}
	void := Type{OIDVoid, -1}
	def("pg_advisory_lock", sig(void, lockFn(true, void), TInt8), sig(void, lockFn(true, void), TInt4, TInt4))
	def("pg_try_advisory_lock", sig(TBool, lockFn(false, TBool), TInt8), sig(TBool, lockFn(false, TBool), TInt4, TInt4))
	def("pg_advisory_unlock", sig(TBool, unlockFn, TInt8), sig(TBool, unlockFn, TInt4, TInt4))
	def("pg_advisory_unlock_all", sig(void, func(ec *evalCtx, _ []*Vec, _ *Vec, _ []int32) error {
		ReleaseAdvisoryLocks(ec.run.pid)
		return nil
	}))
}
