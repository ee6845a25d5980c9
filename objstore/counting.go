package objstore

import (
	"context"
	"sync"
)

// IOStats is a snapshot of a Counting store's tallies.
type IOStats struct {
	// Ops counts calls by kind, whatever their outcome.
	Ops map[Op]int64
	// BytesRead and BytesWritten count payload bytes.
	BytesRead, BytesWritten int64
	// Fsyncs counts fsyncs issued by the backend underneath, when it
	// reports them (Local and Mem do).
	Fsyncs int64
	// Rounds is the number of storage round trips a caller waits for: the
	// length of the longest chain of calls where each started after the
	// previous finished. Calls issued through Parallel are one round
	// however the scheduler runs them; N sequential calls are N rounds.
	Rounds int64
}

// Total returns the number of operations of the given kinds.
func (s IOStats) Total(mask OpMask) int64 {
	var n int64
	for op, c := range s.Ops {
		if mask.Has(op) {
			n += c
		}
	}
	return n
}

// Counting wraps a Store and tallies its I/O.
type Counting struct {
	inner Store

	mu          sync.Mutex
	ops         map[Op]int64
	read, wrote int64
	// doneDepth is the greatest round depth of any finished operation.
	doneDepth  int64
	maxDepth   int64
	fsyncStart int64
	// groupBase is the depth before each Parallel group's first call;
	// memberCalls counts each member's calls so far.
	groupBase   map[uint64]int64
	memberCalls map[groupMember]int64
}

// NewCounting wraps inner with zeroed counters.
func NewCounting(inner Store) *Counting {
	c := &Counting{inner: inner}
	c.Reset()
	return c
}

// Reset zeroes every counter.
func (c *Counting) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ops = map[Op]int64{}
	c.read, c.wrote, c.doneDepth, c.maxDepth = 0, 0, 0, 0
	c.groupBase, c.memberCalls = map[uint64]int64{}, map[groupMember]int64{}
	c.fsyncStart = fsyncsOf(c.inner)
}

// Stats returns a snapshot of the counters.
func (c *Counting) Stats() IOStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	ops := make(map[Op]int64, len(c.ops))
	for k, v := range c.ops {
		ops[k] = v
	}
	return IOStats{
		Ops: ops, BytesRead: c.read, BytesWritten: c.wrote,
		Fsyncs: fsyncsOf(c.inner) - c.fsyncStart, Rounds: c.maxDepth,
	}
}

// Fsyncs forwards to the inner store.
func (c *Counting) Fsyncs() int64 { return fsyncsOf(c.inner) }

// start records an operation and returns its round depth: one more than
// the deepest operation that had finished before it began, or, inside a
// Parallel group, one more than the member's previous call.
func (c *Counting) start(ctx context.Context, op Op, wrote int) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ops[op]++
	c.wrote += int64(wrote)
	d := c.doneDepth + 1
	if m, ok := memberOf(ctx); ok {
		base := c.baseOf(m)
		c.memberCalls[m]++
		d = base + c.memberCalls[m]
		// the issuing members' chains now reach d too
		for p := m.parent; p != nil; p = p.parent {
			if pb, ok := c.groupBase[p.group]; ok && d-pb > c.memberCalls[*p] {
				c.memberCalls[*p] = d - pb
			}
		}
	}
	if d > c.maxDepth {
		c.maxDepth = d
	}
	return d
}

// baseOf returns the depth before m's group's first call, registering
// the group (and, first, the groups it is nested in: an enclosing group
// starts no later than a group one of its members issued) on first use.
// The caller holds c.mu.
func (c *Counting) baseOf(m groupMember) int64 {
	if base, seen := c.groupBase[m.group]; seen {
		return base
	}
	base := c.doneDepth
	if p := m.parent; p != nil {
		// nested: starts where the issuing member's chain is
		base = c.baseOf(*p) + c.memberCalls[*p]
	}
	c.groupBase[m.group] = base
	return base
}

func (c *Counting) finish(depth int64, read int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.read += int64(read)
	if depth > c.doneDepth {
		c.doneDepth = depth
	}
}

// Get implements Store.
func (c *Counting) Get(ctx context.Context, key string) ([]byte, error) {
	d := c.start(ctx, OpGet, 0)
	b, err := c.inner.Get(ctx, key)
	c.finish(d, len(b))
	return b, err
}

// GetRange implements Store.
func (c *Counting) GetRange(ctx context.Context, key string, off, length int64) ([]byte, error) {
	d := c.start(ctx, OpGetRange, 0)
	b, err := c.inner.GetRange(ctx, key, off, length)
	c.finish(d, len(b))
	return b, err
}

// Put implements Store.
func (c *Counting) Put(ctx context.Context, key string, data []byte) error {
	d := c.start(ctx, OpPut, len(data))
	err := c.inner.Put(ctx, key, data)
	c.finish(d, 0)
	return err
}

// PutVolatile forwards to the inner store (VolatilePutter); counted as
// a put (its fsyncs, none on a volatile backend, as reported).
func (c *Counting) PutVolatile(ctx context.Context, key string, data []byte) error {
	d := c.start(ctx, OpPut, len(data))
	err := PutVolatile(ctx, c.inner, key, data)
	c.finish(d, 0)
	return err
}

// PutIfAbsent implements Store.
func (c *Counting) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	d := c.start(ctx, OpPutIfAbsent, len(data))
	err := c.inner.PutIfAbsent(ctx, key, data)
	c.finish(d, 0)
	return err
}

// PutIfAbsentAfter is Local.PutIfAbsentAfter through the counter when
// the inner store stages durably first (else wait, then PutIfAbsent).
// The write counts from the moment wait returned, when its publication
// starts, so rounds stay the chain of ordered durable writes; the
// staging fsync still counts among the fsyncs.
func (c *Counting) PutIfAbsentAfter(ctx context.Context, key string, data []byte, wait func() error) error {
	p, ok := c.inner.(prestager)
	if !ok {
		if wait != nil {
			if err := wait(); err != nil {
				return err
			}
		}
		return c.PutIfAbsent(ctx, key, data)
	}
	var d int64
	started := false
	err := p.PutIfAbsentAfter(ctx, key, data, func() error {
		if wait != nil {
			if err := wait(); err != nil {
				return err
			}
		}
		d, started = c.start(ctx, OpPutIfAbsent, len(data)), true
		return nil
	})
	if started {
		c.finish(d, 0)
	}
	return err
}

// List implements Store.
func (c *Counting) List(ctx context.Context, prefix string) ([]ObjectInfo, error) {
	d := c.start(ctx, OpList, 0)
	out, err := c.inner.List(ctx, prefix)
	c.finish(d, 0)
	return out, err
}

// Delete implements Store.
func (c *Counting) Delete(ctx context.Context, key string) error {
	d := c.start(ctx, OpDelete, 0)
	err := c.inner.Delete(ctx, key)
	c.finish(d, 0)
	return err
}

// Stat implements Store.
func (c *Counting) Stat(ctx context.Context, key string) (ObjectInfo, error) {
	d := c.start(ctx, OpStat, 0)
	info, err := c.inner.Stat(ctx, key)
	c.finish(d, 0)
	return info, err
}
