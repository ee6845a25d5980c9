package objstore

import (
	"context"
	"fmt"
	"time"
)

// The wrappers forward PutNew (NewPutter) to the store they wrap, so a
// commit's files keep their one-round creation whatever wraps the
// backend; each treats it as the create-if-absent it is (OpPutIfAbsent)
// and falls back to the inner store's PutIfAbsent where PutNew does.

// PutNew forwards to the inner store (NewPutter), held like any write
// the context's fence matches.
func (s *fenced) PutNew(ctx context.Context, key string, data []byte) error {
	if err := s.hold(ctx, key); err != nil {
		return err
	}
	return PutNew(ctx, s.inner, key, data)
}

// PutNew forwards to the inner store (NewPutter); counted as a
// put-if-absent.
func (c *Counting) PutNew(ctx context.Context, key string, data []byte) error {
	d := c.start(ctx, OpPutIfAbsent, len(data))
	err := PutNew(ctx, c.inner, key, data)
	c.finish(d, 0)
	return err
}

// PutNew forwards to the inner store (NewPutter); a put-if-absent for
// the rule, so sweeps crash at it as they did at its PutIfAbsent.
func (f *Faulty) PutNew(ctx context.Context, key string, data []byte) error {
	now, later := f.before(OpPutIfAbsent, key)
	if now != nil {
		return opErr("putifabsent", key, now)
	}
	return f.after(OpPutIfAbsent, key, later, PutNew(ctx, f.inner, key, data))
}

// PutNew forwards to the inner store (NewPutter); recorded as a
// put-if-absent marked "new".
func (t *Tracing) PutNew(ctx context.Context, key string, data []byte) error {
	err := PutNew(ctx, t.inner, key, data)
	t.record(OpPutIfAbsent, key, fmt.Sprintf("%dB new", len(data)), err)
	return err
}

// PutNew forwards to the inner store (NewPutter); reported as a
// put-if-absent.
func (s *observed) PutNew(ctx context.Context, key string, data []byte) error {
	t := time.Now()
	err := PutNew(ctx, s.inner, key, data)
	s.fn(OpPutIfAbsent, 0, int64(len(data)), time.Since(t), err)
	return err
}
