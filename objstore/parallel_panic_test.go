package objstore

import (
	"context"
	"testing"
)

func TestParallelTurnsAPanicIntoAnError(t *testing.T) {
	// n=1 runs on the caller's goroutine; a panic is still an error
	for _, n := range []int{4, 1} {
		err := Parallel(context.Background(), n, 2, func(ctx context.Context, i int) error {
			if i == n-1 {
				panic("boom")
			}
			return nil
		})
		pe, ok := err.(*PanicError)
		if !ok || pe.Value != "boom" || len(pe.Stack) == 0 {
			t.Fatalf("%d items: Parallel returned %v, want a *PanicError carrying the value and stack", n, err)
		}
	}
}
