package objstore_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/pggraph/pggraph/objstore"
)

func TestParallel(t *testing.T) {
	ctx := context.Background()
	var ran atomic.Int64
	if err := objstore.Parallel(ctx, 100, 3, func(context.Context, int) error { ran.Add(1); return nil }); err != nil {
		t.Fatal(err)
	}
	if ran.Load() != 100 {
		t.Fatalf("ran %d of 100", ran.Load())
	}
	boom := errors.New("boom")
	ran.Store(0)
	err := objstore.Parallel(ctx, 1000, 1, func(_ context.Context, i int) error {
		ran.Add(1)
		if i == 10 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || ran.Load() != 11 {
		t.Fatalf("err = %v after %d items; want boom after 11", err, ran.Load())
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	for _, n := range []int{1, 5} {
		var ran atomic.Bool
		if err := objstore.Parallel(cctx, n, 0, func(context.Context, int) error { ran.Store(true); return nil }); !errors.Is(err, context.Canceled) || ran.Load() {
			t.Fatalf("canceled parent, %d items: err = %v, an item ran: %v", n, err, ran.Load())
		}
	}
}
