package objstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// Tracing wraps a Store and records every operation, in the order the
// calls returned, as one line each:
//
//	put _versions/1.manifest 312B -> ok
//	putifabsent _versions/2.manifest 318B -> exists
//	get missing.json -> notfound
//
// The lines are stable across runs (no times, no random names unless the
// caller's keys are random), so tests compare them with golden files.
type Tracing struct {
	inner Store

	mu    sync.Mutex
	lines []string
	// Normalize, when set, rewrites a key before it is recorded (for
	// example to replace random UUIDs with a placeholder).
	Normalize func(key string) string
}

// NewTracing wraps inner with an empty trace.
func NewTracing(inner Store) *Tracing { return &Tracing{inner: inner} }

// Lines returns a copy of the recorded trace.
func (t *Tracing) Lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.lines...)
}

// String returns the trace, one operation per line.
func (t *Tracing) String() string {
	l := t.Lines()
	if len(l) == 0 {
		return ""
	}
	return strings.Join(l, "\n") + "\n"
}

// Reset clears the trace.
func (t *Tracing) Reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = nil
}

// Fsyncs forwards to the inner store.
func (t *Tracing) Fsyncs() int64 { return fsyncsOf(t.inner) }

func (t *Tracing) record(op Op, key, detail string, err error) {
	if t.Normalize != nil {
		key = t.Normalize(key)
	}
	var b strings.Builder
	b.WriteString(op.String())
	b.WriteByte(' ')
	b.WriteString(key)
	if detail != "" {
		b.WriteByte(' ')
		b.WriteString(detail)
	}
	b.WriteString(" -> ")
	b.WriteString(outcome(err))
	t.mu.Lock()
	t.lines = append(t.lines, b.String())
	t.mu.Unlock()
}

// outcome classifies an error into a stable word.
func outcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, ErrNotFound):
		return "notfound"
	case errors.Is(err, ErrExists):
		return "exists"
	case errors.Is(err, ErrCrashed):
		return "crashed"
	case errors.Is(err, ErrInjected):
		return "injected"
	case errors.Is(err, ErrInvalidKey):
		return "invalidkey"
	case errors.Is(err, ErrInvalidRange):
		return "invalidrange"
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "canceled"
	}
	return "error"
}

// Get implements Store.
func (t *Tracing) Get(ctx context.Context, key string) ([]byte, error) {
	b, err := t.inner.Get(ctx, key)
	t.record(OpGet, key, "", err)
	return b, err
}

// GetRange implements Store.
func (t *Tracing) GetRange(ctx context.Context, key string, off, length int64) ([]byte, error) {
	b, err := t.inner.GetRange(ctx, key, off, length)
	t.record(OpGetRange, key, fmt.Sprintf("[%d+%d]", off, length), err)
	return b, err
}

// Put implements Store.
func (t *Tracing) Put(ctx context.Context, key string, data []byte) error {
	err := t.inner.Put(ctx, key, data)
	t.record(OpPut, key, fmt.Sprintf("%dB", len(data)), err)
	return err
}

// PutVolatile forwards to the inner store (VolatilePutter); recorded as
// a put marked "volatile".
func (t *Tracing) PutVolatile(ctx context.Context, key string, data []byte) error {
	err := PutVolatile(ctx, t.inner, key, data)
	t.record(OpPut, key, fmt.Sprintf("%dB volatile", len(data)), err)
	return err
}

// PutIfAbsent implements Store.
func (t *Tracing) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	err := t.inner.PutIfAbsent(ctx, key, data)
	t.record(OpPutIfAbsent, key, fmt.Sprintf("%dB", len(data)), err)
	return err
}

// List implements Store.
func (t *Tracing) List(ctx context.Context, prefix string) ([]ObjectInfo, error) {
	out, err := t.inner.List(ctx, prefix)
	t.record(OpList, prefix, fmt.Sprintf("(%d)", len(out)), err)
	return out, err
}

// Delete implements Store.
func (t *Tracing) Delete(ctx context.Context, key string) error {
	err := t.inner.Delete(ctx, key)
	t.record(OpDelete, key, "", err)
	return err
}

// Stat implements Store.
func (t *Tracing) Stat(ctx context.Context, key string) (ObjectInfo, error) {
	info, err := t.inner.Stat(ctx, key)
	t.record(OpStat, key, "", err)
	return info, err
}
