package objstore

import (
	"context"
	"fmt"
	"sync"
)

// FaultMode says what happens when a fault rule fires.
type FaultMode int

const (
	// FailOnce fails the Nth matching operation only.
	FailOnce FaultMode = iota + 1
	// FailPersistent fails the Nth matching operation and every later
	// matching one.
	FailPersistent
	// Crash fails the Nth matching operation and every later operation of
	// any kind, as if the process had died at that point. The Nth
	// operation is not performed.
	Crash
	// CrashAfter performs the Nth matching operation, then fails it and
	// every later operation: the effect is durable but the caller never
	// learns that it succeeded.
	CrashAfter
)

// FaultRule fails operations selected by Ops, counting from 1.
type FaultRule struct {
	Ops  OpMask
	N    int64
	Mode FaultMode
	// Err, if set, is what a failed operation reports besides ErrInjected
	// (syscall.ENOSPC for a full disk, syscall.EIO for an I/O error), so
	// callers can be tested on how they classify storage failures.
	Err error
}

// Faulty wraps a Store and injects failures according to its rule. It
// also counts matching operations, so a test can first run a workload
// with no rule to learn how many durable operations it takes (Count),
// then re-run it once per ordinal with a Crash rule.
type Faulty struct {
	inner Store

	mu      sync.Mutex
	rule    *FaultRule
	seen    int64
	crashed bool
	tripped bool
}

// NewFaulty wraps inner with no rule installed.
func NewFaulty(inner Store) *Faulty { return &Faulty{inner: inner} }

// SetRule installs rule (nil clears it), resets the counter and revives a
// crashed store.
func (f *Faulty) SetRule(rule *FaultRule) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rule, f.seen, f.crashed, f.tripped = rule, 0, false, false
}

// Count returns how many operations matched the rule's mask (or, with no
// rule, how many write operations ran).
func (f *Faulty) Count() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seen
}

// Crashed reports whether a Crash or CrashAfter rule has fired.
func (f *Faulty) Crashed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.crashed
}

// Tripped reports whether the rule has fired at least once.
func (f *Faulty) Tripped() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tripped
}

// Fsyncs forwards to the inner store when it counts fsyncs.
func (f *Faulty) Fsyncs() int64 { return fsyncsOf(f.inner) }

// decision before running op: fail now, or run then maybe fail after.
func (f *Faulty) before(op Op, key string) (failNow error, failAfter bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.crashed {
		return fmt.Errorf("%w (before %s %q)", ErrCrashed, op, key), false
	}
	mask := MaskWrites
	if f.rule != nil {
		mask = f.rule.Ops
	}
	if !mask.Has(op) {
		return nil, false
	}
	f.seen++
	if f.rule == nil {
		return nil, false
	}
	r := f.rule
	switch {
	case f.seen == r.N:
		f.tripped = true
		switch r.Mode {
		case Crash:
			f.crashed = true
			return fmt.Errorf("%w (at %s %q, operation %d)", ErrCrashed, op, key, f.seen), false
		case CrashAfter:
			return nil, true
		default:
			return injected(r.Err, fmt.Sprintf("at %s %q, operation %d", op, key, f.seen)), false
		}
	case f.seen > r.N && r.Mode == FailPersistent:
		return injected(r.Err, fmt.Sprintf("persistent, at %s %q, operation %d", op, key, f.seen)), false
	}
	return nil, false
}

func (f *Faulty) after(op Op, key string, failAfter bool, err error) error {
	if !failAfter {
		return err
	}
	f.mu.Lock()
	f.crashed = true
	f.mu.Unlock()
	return fmt.Errorf("%w (after %s %q completed with %v)", ErrCrashed, op, key, err)
}

// Get implements Store.
func (f *Faulty) Get(ctx context.Context, key string) ([]byte, error) {
	now, later := f.before(OpGet, key)
	if now != nil {
		return nil, opErr("get", key, now)
	}
	b, err := f.inner.Get(ctx, key)
	if err = f.after(OpGet, key, later, err); err != nil {
		return nil, err
	}
	return b, nil
}

// GetRange implements Store.
func (f *Faulty) GetRange(ctx context.Context, key string, off, length int64) ([]byte, error) {
	now, later := f.before(OpGetRange, key)
	if now != nil {
		return nil, opErr("getrange", key, now)
	}
	b, err := f.inner.GetRange(ctx, key, off, length)
	if err = f.after(OpGetRange, key, later, err); err != nil {
		return nil, err
	}
	return b, nil
}

// Put implements Store.
func (f *Faulty) Put(ctx context.Context, key string, data []byte) error {
	now, later := f.before(OpPut, key)
	if now != nil {
		return opErr("put", key, now)
	}
	return f.after(OpPut, key, later, f.inner.Put(ctx, key, data))
}

// PutVolatile forwards to the inner store (VolatilePutter); it is a
// put for the rule (so sweeps crash at hint writes too).
func (f *Faulty) PutVolatile(ctx context.Context, key string, data []byte) error {
	now, later := f.before(OpPut, key)
	if now != nil {
		return opErr("put", key, now)
	}
	return f.after(OpPut, key, later, PutVolatile(ctx, f.inner, key, data))
}

// PutIfAbsent implements Store.
func (f *Faulty) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	now, later := f.before(OpPutIfAbsent, key)
	if now != nil {
		return opErr("putifabsent", key, now)
	}
	return f.after(OpPutIfAbsent, key, later, f.inner.PutIfAbsent(ctx, key, data))
}

// List implements Store.
func (f *Faulty) List(ctx context.Context, prefix string) ([]ObjectInfo, error) {
	now, later := f.before(OpList, prefix)
	if now != nil {
		return nil, opErr("list", prefix, now)
	}
	out, err := f.inner.List(ctx, prefix)
	if err = f.after(OpList, prefix, later, err); err != nil {
		return nil, err
	}
	return out, nil
}

// Delete implements Store.
func (f *Faulty) Delete(ctx context.Context, key string) error {
	now, later := f.before(OpDelete, key)
	if now != nil {
		return opErr("delete", key, now)
	}
	return f.after(OpDelete, key, later, f.inner.Delete(ctx, key))
}

// Stat implements Store.
func (f *Faulty) Stat(ctx context.Context, key string) (ObjectInfo, error) {
	now, later := f.before(OpStat, key)
	if now != nil {
		return ObjectInfo{}, opErr("stat", key, now)
	}
	info, err := f.inner.Stat(ctx, key)
	if err = f.after(OpStat, key, later, err); err != nil {
		return ObjectInfo{}, err
	}
	return info, nil
}

// fsyncCounter is implemented by stores that count their fsyncs.
type fsyncCounter interface{ Fsyncs() int64 }

func fsyncsOf(s Store) int64 {
	if c, ok := s.(fsyncCounter); ok {
		return c.Fsyncs()
	}
	return 0
}

// injected is ErrInjected, wrapping cause too when the rule has one.
func injected(cause error, where string) error {
	if cause == nil {
		return fmt.Errorf("%w (%s)", ErrInjected, where)
	}
	return fmt.Errorf("%w (%s): %w", ErrInjected, where, cause)
}
