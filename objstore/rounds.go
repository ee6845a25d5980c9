package objstore

import (
	"context"
	"sync"
)

// DurableRounds counts the ordered durable rounds one operation (a
// commit) waited for: the length of the longest chain of durability
// waits — an fsync of the local backend, a write request of object
// storage — where each began after the one before it had finished.
// Waits that overlap count once: a file and its directory fsynced at the
// same time (PutNew) are one round, a staging file's fsync followed by
// the directory's after the rename (Put) are two.
//
// Backends record into the DurableRounds carried by the context of each
// write (WithDurableRounds); a context without one records nothing. The
// chain is tracked by depth: a wait that begins when the deepest finished
// wait is at depth d ends at d+1. Writes of other operations (other
// contexts) never count, so concurrent commits each see their own.
type DurableRounds struct {
	mu   sync.Mutex
	done int64
}

type roundsKey struct{}

// WithDurableRounds returns ctx carrying a fresh counter, and the counter.
func WithDurableRounds(ctx context.Context) (context.Context, *DurableRounds) {
	r := &DurableRounds{}
	return context.WithValue(ctx, roundsKey{}, r), r
}

// WithoutDurableRounds returns ctx without its counter: for work that
// runs after the operation's answer (a post-commit materialization), so
// that it is not counted as something the operation waited for.
func WithoutDurableRounds(ctx context.Context) context.Context {
	if roundsOf(ctx) == nil {
		return ctx
	}
	return context.WithValue(ctx, roundsKey{}, (*DurableRounds)(nil))
}

// Count returns the rounds counted so far.
func (r *DurableRounds) Count() int64 {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.done
}

// roundsOf returns the counter ctx carries (nil when none: every method
// of the cursor is then a no-op).
func roundsOf(ctx context.Context) *DurableRounds {
	r, _ := ctx.Value(roundsKey{}).(*DurableRounds)
	return r
}

// roundCursor follows one write's sequential durability waits.
type roundCursor struct {
	r *DurableRounds
	d int64
}

// cursor starts a write's chain at the depth reached so far.
func cursor(ctx context.Context) roundCursor {
	r := roundsOf(ctx)
	return roundCursor{r: r, d: r.Count()}
}

// synced records that one durability wait (or several that ran at the
// same time) of this write finished.
func (c *roundCursor) synced() {
	if c == nil || c.r == nil {
		return
	}
	c.d++
	c.r.mu.Lock()
	if c.d > c.r.done {
		c.r.done = c.d
	}
	c.r.mu.Unlock()
}

// rejoin moves the chain to the depth reached so far when that is
// deeper: the write's next wait follows work it waited for (a fence).
func (c *roundCursor) rejoin() {
	if c == nil || c.r == nil {
		return
	}
	if n := c.r.Count(); n > c.d {
		c.d = n
	}
}
