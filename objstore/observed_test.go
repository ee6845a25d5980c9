package objstore

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Observed reports each operation with its kind, payload bytes and
// error, and forwards what the layers above look for (Unwrap, so caches
// key on the backend).
func TestObservedReportsOperations(t *testing.T) {
	ctx := context.Background()
	type seen struct {
		op            Op
		read, written int64
		err           error
	}
	var got []seen
	mem := NewMem()
	s := Observed(mem, func(op Op, read, written int64, _ time.Duration, err error) {
		got = append(got, seen{op, read, written, err})
	})
	if b, ok := Backend(s); !ok || b != Store(mem) {
		t.Fatalf("Backend(Observed(mem)) = %v, %v", b, ok)
	}
	_ = s.Put(ctx, "a", []byte("hello"))
	_ = s.PutIfAbsent(ctx, "a", []byte("x"))
	_, _ = s.Get(ctx, "a")
	_, _ = s.GetRange(ctx, "a", 1, 2)
	_, _ = s.Stat(ctx, "missing")
	_, _ = s.List(ctx, "")
	_ = s.Delete(ctx, "a")
	_ = PutVolatile(ctx, s, "hint", []byte("1"))
	want := []struct {
		op            Op
		read, written int64
		err           error
	}{
		{OpPut, 0, 5, nil}, {OpPutIfAbsent, 0, 1, ErrExists}, {OpGet, 5, 0, nil}, {OpGetRange, 2, 0, nil},
		{OpStat, 0, 0, ErrNotFound}, {OpList, 0, 0, nil}, {OpDelete, 0, 0, nil}, {OpPut, 0, 1, nil},
	}
	if len(got) != len(want) {
		t.Fatalf("observed %d operations, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.op != w.op || g.read != w.read || g.written != w.written || !errors.Is(g.err, w.err) || (w.err == nil) != (g.err == nil) {
			t.Errorf("operation %d = %+v, want %+v", i, g, w)
		}
	}
}
