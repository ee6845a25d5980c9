package objstore

import (
	"context"
	"testing"
)

func TestParallelTurnsAPanicIntoAnError(t *testing.T) {
	err := Parallel(context.Background(), 4, 2, func(ctx context.Context, i int) error {
		if i == 3 {
			panic("boom")
		}
		return nil
	})
	pe, ok := err.(*PanicError)
	if !ok || pe.Value != "boom" || len(pe.Stack) == 0 {
		t.Fatalf("Parallel returned %v, want a *PanicError carrying the value and stack", err)
	}
}
