package exec

import (
	"slices"
	"time"
)

// pg_cancel_backend(pid) and pg_terminate_backend(pid [, timeout]) reach
// other sessions through Session.Signal (the protocol server's
// session registry); without it they answer 0A000.

// SignalBackend cancels the running statement of session pid (terminate
// false) or ends that session, waiting up to wait for it to end. It
// reports false (after warning the caller) when there is no such session
// or it did not end in time, and a 42501 error when the caller may not
// signal it.
type SignalBackend func(pid int32, terminate bool, wait time.Duration) (bool, error)

func init() {
	signal := func(name string, terminate, timed bool) kernel {
		return func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			f := ec.run.signal
			if f == nil {
				return unsupported("%s() is not supported outside a server session", name)
			}
			for _, i := range sel {
				var wait time.Duration
				if timed {
					ms := a[1].I[i]
					if ms < 0 {
						return errf(CodeInvalidParameterValue, "\"timeout\" must not be negative")
					}
					wait = time.Duration(ms) * time.Millisecond
				}
				ok, err := f(int32(a[0].I[i]), terminate, wait)
				if err != nil {
					return err
				}
				out.B[i] = ok
			}
			return nil
		}
	}
	def("pg_cancel_backend", sig(TBool, signal("pg_cancel_backend", false, false), TInt4))
	// pg_blocking_pids(pid): the sessions whose advisory-lock holds pid's
	// waiting request waits for ('{}' when it waits for none: pggraph's
	// other waits — commits, branch holds — are not locks a session holds)
	intArr, _ := ArrayOf(TInt4)
	def("pg_blocking_pids", sig(intArr, func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		space, _, _ := advisoryOwner(ec)
		var rl []RowLockHold
		if ec.run.rowLocks != nil {
			rl = ec.run.rowLocks()
		}
		for _, i := range sel {
			pids := space.blockingPIDs(int32(a[0].I[i]))
			for _, p := range rowLockBlockers(rl, int32(a[0].I[i])) {
				if !slices.Contains(pids, p) {
					pids = append(pids, p)
				}
			}
			slices.Sort(pids)
			items := NewVec(TInt4, len(pids))
			for k, p := range pids {
				items.I[k] = int64(p)
			}
			out.A[i] = &Array{Elem: TInt4, Items: items}
		}
		return nil
	}, TInt4))
	def("pg_terminate_backend", sig(TBool, signal("pg_terminate_backend", true, false), TInt4),
		sig(TBool, signal("pg_terminate_backend", true, true), TInt4, TInt8))
}
