package objstore

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// PanicError is what Parallel returns when an item panicked: a panic on a
// worker goroutine would otherwise end the whole process (no caller up
// the stack can recover it), taking every other session with it.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("internal error: panic in a parallel task: %v", e.Value)
}

// runItem calls fn, turning a panic into a *PanicError.
func runItem(ctx context.Context, i int, fn func(ctx context.Context, i int) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{Value: r, Stack: debug.Stack()}
		}
	}()
	return fn(ctx, i)
}

// groupKey carries a Parallel group's identity in a context, so the
// Counting wrapper can tell that the group's members were issued together
// (one round trip), whatever order the scheduler happened to run them in.
type groupKey struct{}

// groupMember names one worker of a Parallel group; a worker runs its
// items one after another, so its calls form one chain of rounds.
type groupMember struct {
	group  uint64
	worker int
	// parent is the member whose call issued this group (nil at top
	// level): a nested group's calls continue its chain of rounds
	parent *groupMember
}

var nextGroup atomic.Uint64

// Parallel runs fn(ctx, i) for i in [0, n) with at most limit running at
// once (limit <= 0 means n), and returns the first error. After an error
// the context passed to the remaining calls is canceled.
//
// Storage calls made through the derived context are accounted as issued
// concurrently: the first call of every worker is in the same round, and
// each worker's later calls (within one item or across the items it runs
// in turn) each add one round.
func Parallel(ctx context.Context, n, limit int, fn func(ctx context.Context, i int) error) error {
	if n <= 0 {
		return nil
	}
	if limit <= 0 || limit > n {
		limit = n
	}
	parent := ctx
	group := nextGroup.Add(1)
	var parentMember *groupMember
	if pm, ok := memberOf(parent); ok {
		parentMember = &pm
	}
	if n == 1 {
		// one item: run it on the caller's goroutine (a hand-off to a
		// new goroutine and back costs scheduling latency on a busy
		// machine, on the commit path of every one-table write)
		if err := parent.Err(); err != nil {
			return err // skipped, as a worker skips items once the caller gave up
		}
		wctx := context.WithValue(parent, groupKey{}, groupMember{group: group, worker: 0, parent: parentMember})
		return runItem(wctx, 0, fn)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
	)
	// Items are dealt to workers round-robin (worker w runs w, w+limit,
	// ...), so which calls wait for which is fixed by n and limit, not by
	// the scheduler; the round accounting depends on that.
	for w := range limit {
		wctx := context.WithValue(ctx, groupKey{}, groupMember{group: group, worker: w, parent: parentMember})
		wg.Go(func() {
			for i := w; i < n; i += limit {
				if ctx.Err() != nil {
					return
				}
				if err := runItem(wctx, i, fn); err != nil {
					once.Do(func() { firstErr = err; cancel() })
					return
				}
			}
		})
	}
	wg.Wait()
	if firstErr == nil {
		// Items skipped because the caller gave up are not a success.
		return parent.Err()
	}
	return firstErr
}

func memberOf(ctx context.Context) (groupMember, bool) {
	m, ok := ctx.Value(groupKey{}).(groupMember)
	return m, ok
}
