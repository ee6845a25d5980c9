package objstore

import (
	"context"
	"sync"
	"time"
)

// A Fence orders one write after work running concurrently with it: a
// Fenced store holds every write (Put, PutIfAbsent, Delete) whose key
// the fence matches, issued under a context carrying the fence, until the
// fence's work has finished; if that work failed, the write is not issued
// and fails with its error. Writes the fence does not match, and every
// read, pass through at once.
//
// Why: a commit point (e.g. a manifest PutIfAbsent) may have to follow a
// durable record (e.g. a recovery confirmation) while the files the
// commit point will reference can be written at the same time as that
// record. The fence expresses "these run together, that one waits" at
// the storage seam, whatever code between issues the writes.
type Fence struct {
	match func(key string) bool
	done  chan struct{}
	once  sync.Once
	err   error
}

// NewFence returns an open fence for the keys match accepts.
func NewFence(match func(key string) bool) *Fence {
	return &Fence{match: match, done: make(chan struct{})}
}

// Release opens the fence: held writes proceed if err is nil and fail
// with err otherwise. Only the first call counts.
func (f *Fence) Release(err error) {
	f.once.Do(func() {
		f.err = err
		close(f.done)
	})
}

// Wait blocks until the fence is released (or ctx ends) and returns the
// released error.
func (f *Fence) Wait(ctx context.Context) error {
	select {
	case <-f.done:
		return f.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

type fenceKey struct{}

// WithFence returns a context under which Fenced stores hold the writes
// f matches until f is released.
func WithFence(ctx context.Context, f *Fence) context.Context {
	return context.WithValue(ctx, fenceKey{}, f)
}

// Fenced wraps a Store so that it honours fences carried by contexts.
// It forwards Root (when the inner store has one), Fsyncs and
// SweepStaging, so code that looks for those optional methods sees the
// inner store's.
func Fenced(inner Store) Store {
	if r, ok := inner.(interface{ Root() string }); ok {
		return &fencedRooter{fenced: fenced{inner}, root: r.Root}
	}
	return &fenced{inner}
}

type fenced struct{ inner Store }

type fencedRooter struct {
	fenced
	root func() string
}

// Root forwards to the inner store.
func (s *fencedRooter) Root() string { return s.root() }

func (s *fenced) hold(ctx context.Context, key string) error {
	f, ok := ctx.Value(fenceKey{}).(*Fence)
	if !ok || !f.match(key) {
		return nil
	}
	if err := f.Wait(ctx); err != nil {
		return &OpError{Op: "fence", Key: key, Err: err}
	}
	return nil
}

// Fsyncs forwards to the inner store (0 when it does not count them).
func (s *fenced) Fsyncs() int64 { return fsyncsOf(s.inner) }

// SweepStaging forwards to the inner store when it has staging files.
func (s *fenced) SweepStaging(ctx context.Context, before time.Time) (int, error) {
	if sw, ok := s.inner.(interface {
		SweepStaging(context.Context, time.Time) (int, error)
	}); ok {
		return sw.SweepStaging(ctx, before)
	}
	return 0, nil
}

// Unwrap returns the inner store.
func (s *fenced) Unwrap() Store { return s.inner }

// Get implements Store.
func (s *fenced) Get(ctx context.Context, key string) ([]byte, error) { return s.inner.Get(ctx, key) }

// GetRange implements Store.
func (s *fenced) GetRange(ctx context.Context, key string, off, length int64) ([]byte, error) {
	return s.inner.GetRange(ctx, key, off, length)
}

// Put implements Store.
func (s *fenced) Put(ctx context.Context, key string, data []byte) error {
	if err := s.hold(ctx, key); err != nil {
		return err
	}
	return s.inner.Put(ctx, key, data)
}

// prestager is a store that can make an object's bytes durable before
// deciding whether to publish it (Local.PutIfAbsentAfter).
type prestager interface {
	PutIfAbsentAfter(ctx context.Context, key string, data []byte, wait func() error) error
}

// PutIfAbsent implements Store. A held write to a store that can stage
// durably first (Local) writes and fsyncs its bytes while the fence is
// closed and publishes them after it opens: the fence still orders the
// write's visibility, and its fsync leaves the critical path.
func (s *fenced) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	if f, ok := ctx.Value(fenceKey{}).(*Fence); ok && f.match(key) {
		if p, ok := s.inner.(prestager); ok {
			return p.PutIfAbsentAfter(ctx, key, data, func() error { return s.hold(ctx, key) })
		}
	}
	if err := s.hold(ctx, key); err != nil {
		return err
	}
	return s.inner.PutIfAbsent(ctx, key, data)
}

// List implements Store.
func (s *fenced) List(ctx context.Context, prefix string) ([]ObjectInfo, error) {
	return s.inner.List(ctx, prefix)
}

// Delete implements Store.
func (s *fenced) Delete(ctx context.Context, key string) error {
	if err := s.hold(ctx, key); err != nil {
		return err
	}
	return s.inner.Delete(ctx, key)
}

// Stat implements Store.
func (s *fenced) Stat(ctx context.Context, key string) (ObjectInfo, error) {
	return s.inner.Stat(ctx, key)
}

// PutVolatile forwards to the inner store (VolatilePutter), holding it
// like Put when a fence matches the key.
func (s *fenced) PutVolatile(ctx context.Context, key string, data []byte) error {
	if err := s.hold(ctx, key); err != nil {
		return err
	}
	return PutVolatile(ctx, s.inner, key, data)
}

// PutIfAbsentAfter forwards to the inner store's PutIfAbsentAfter when
// it stages durably first, with the context's fence (when it matches
// key) held after wait: the object is published only after both.
func (s *fenced) PutIfAbsentAfter(ctx context.Context, key string, data []byte, wait func() error) error {
	both := func() error {
		if wait != nil {
			if err := wait(); err != nil {
				return err
			}
		}
		return s.hold(ctx, key)
	}
	if p, ok := s.inner.(prestager); ok {
		return p.PutIfAbsentAfter(ctx, key, data, both)
	}
	if err := both(); err != nil {
		return err
	}
	return s.inner.PutIfAbsent(ctx, key, data)
}

// PutIfAbsentAfter puts key only after wait returned nil: through s's own
// PutIfAbsentAfter when it has one (Local writes and fsyncs the object's
// bytes while wait runs, so only the link and the directory fsync
// follow it), otherwise by calling wait and then s.PutIfAbsent. Either
// way nothing is visible under key before wait returned nil, and a
// failed wait is returned with nothing published.
func PutIfAbsentAfter(ctx context.Context, s Store, key string, data []byte, wait func() error) error {
	if p, ok := s.(prestager); ok {
		return p.PutIfAbsentAfter(ctx, key, data, wait)
	}
	if wait != nil {
		if err := wait(); err != nil {
			return err
		}
	}
	return s.PutIfAbsent(ctx, key, data)
}
