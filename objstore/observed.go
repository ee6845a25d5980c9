package objstore

import (
	"context"
	"time"
)

// ObserveFunc receives one finished store operation: its kind, the
// payload bytes it read and wrote, how long it took and its error.
type ObserveFunc func(op Op, read, written int64, d time.Duration, err error)

// observed reports every operation of inner to a callback (pgproxy
// serve's storage metrics); it changes no behaviour.
type observed struct {
	inner Store
	fn    ObserveFunc
}

// Observed wraps inner so that fn sees every operation after it ends.
// The wrapper forwards the optional interfaces the layers above look for
// (Unwrap, volatile puts, fsync counts, staging sweeps, staged fenced
// puts), so wrapping a
// store changes neither its caching identity nor its durability.
func Observed(inner Store, fn ObserveFunc) Store { return &observed{inner: inner, fn: fn} }

// Unwrap returns the inner store.
func (s *observed) Unwrap() Store { return s.inner }

// Fsyncs forwards to the inner store (0 when it does not count them).
func (s *observed) Fsyncs() int64 { return fsyncsOf(s.inner) }

// SweepStaging forwards to the inner store when it has staging files.
func (s *observed) SweepStaging(ctx context.Context, before time.Time) (int, error) {
	if sw, ok := s.inner.(interface {
		SweepStaging(context.Context, time.Time) (int, error)
	}); ok {
		return sw.SweepStaging(ctx, before)
	}
	return 0, nil
}

// Get implements Store.
func (s *observed) Get(ctx context.Context, key string) ([]byte, error) {
	t := time.Now()
	b, err := s.inner.Get(ctx, key)
	s.fn(OpGet, int64(len(b)), 0, time.Since(t), err)
	return b, err
}

// GetRange implements Store.
func (s *observed) GetRange(ctx context.Context, key string, off, length int64) ([]byte, error) {
	t := time.Now()
	b, err := s.inner.GetRange(ctx, key, off, length)
	s.fn(OpGetRange, int64(len(b)), 0, time.Since(t), err)
	return b, err
}

// Put implements Store.
func (s *observed) Put(ctx context.Context, key string, data []byte) error {
	t := time.Now()
	err := s.inner.Put(ctx, key, data)
	s.fn(OpPut, 0, int64(len(data)), time.Since(t), err)
	return err
}

// PutVolatile forwards to the inner store (VolatilePutter); reported as
// a put.
func (s *observed) PutVolatile(ctx context.Context, key string, data []byte) error {
	t := time.Now()
	err := PutVolatile(ctx, s.inner, key, data)
	s.fn(OpPut, 0, int64(len(data)), time.Since(t), err)
	return err
}

// PutIfAbsent implements Store.
func (s *observed) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	t := time.Now()
	err := s.inner.PutIfAbsent(ctx, key, data)
	s.fn(OpPutIfAbsent, 0, int64(len(data)), time.Since(t), err)
	return err
}

// List implements Store.
func (s *observed) List(ctx context.Context, prefix string) ([]ObjectInfo, error) {
	t := time.Now()
	out, err := s.inner.List(ctx, prefix)
	s.fn(OpList, 0, 0, time.Since(t), err)
	return out, err
}

// Delete implements Store.
func (s *observed) Delete(ctx context.Context, key string) error {
	t := time.Now()
	err := s.inner.Delete(ctx, key)
	s.fn(OpDelete, 0, 0, time.Since(t), err)
	return err
}

// Stat implements Store.
func (s *observed) Stat(ctx context.Context, key string) (ObjectInfo, error) {
	t := time.Now()
	info, err := s.inner.Stat(ctx, key)
	s.fn(OpStat, 0, 0, time.Since(t), err)
	return info, err
}

// PutIfAbsentAfter forwards a fenced write to an inner store that stages
// durably first (Local.PutIfAbsentAfter), so metrics do not put the
// staging fsync back on the commit's critical path; other stores wait,
// then put. Reported as one put-if-absent.
func (s *observed) PutIfAbsentAfter(ctx context.Context, key string, data []byte, wait func() error) error {
	t := time.Now()
	var err error
	if p, ok := s.inner.(prestager); ok {
		err = p.PutIfAbsentAfter(ctx, key, data, wait)
	} else {
		if wait != nil {
			err = wait()
		}
		if err == nil {
			err = s.inner.PutIfAbsent(ctx, key, data)
		}
	}
	s.fn(OpPutIfAbsent, 0, int64(len(data)), time.Since(t), err)
	return err
}
