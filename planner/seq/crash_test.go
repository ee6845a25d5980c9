package seq

import (
	"context"
	"fmt"
	"testing"

	"github.com/pggraph/pggraph/objstore"
)

// A process that dies at any durable write — before it, or after it
// took effect without the process learning so — leaves gaps, never
// duplicates: neither a restarted process nor the same allocator after
// the store recovers hands out a value twice.
func TestCrashAtEveryWriteNoDuplicates(t *testing.T) {
	ctx := context.Background()
	s := spec("k", DefaultOptions())
	for _, mode := range []objstore.FaultMode{objstore.Crash, objstore.CrashAfter, objstore.FailOnce} {
		for n := int64(1); n <= 12; n++ {
			t.Run(fmt.Sprintf("mode%d/write%d", mode, n), func(t *testing.T) {
				mem := objstore.NewMem()
				faulty := objstore.NewFaulty(mem)
				faulty.SetRule(&objstore.FaultRule{Ops: objstore.MaskWrites, N: n, Mode: mode})
				a := Open(faulty)
				a.now = fixedClock()
				seen := map[int64]bool{}
				take := func(a *Allocator, count int) int {
					got := 0
					for i := 0; i < count; i++ {
						v, err := a.Next(ctx, s)
						if err != nil {
							return got
						}
						if seen[v] {
							t.Fatalf("value %d handed out twice", v)
						}
						seen[v] = true
						got++
					}
					return got
				}
				take(a, minBlock*16)
				if !faulty.Tripped() {
					t.Fatalf("fault at write %d never fired", n)
				}
				// the same process after the store recovers
				faulty.SetRule(nil)
				if got := take(a, minBlock*3); got != minBlock*3 {
					t.Fatalf("after recovery: %d values", got)
				}
				// a restarted process
				if got := take(Open(mem), minBlock*3); got != minBlock*3 {
					t.Fatalf("after restart: %d values", got)
				}
			})
		}
	}
}
