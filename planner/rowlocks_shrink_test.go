package planner

import (
	"context"
	"strconv"
	"testing"
)

// TestRowLocksShrink: the lock table follows the locks held now. Go maps
// never give buckets back, so without the rebuild a transaction that
// locked many rows would leave the table's memory allocated for good.
func TestRowLocksShrink(t *testing.T) {
	cases := []struct {
		name     string
		locked   int // rows the big transaction locks
		kept     int // rows a second transaction keeps locked
		wantPeak int // peak after the big transaction ends
	}{
		{"all released", 3 * shrinkBelow, 0, 0},
		{"a few kept", 3 * shrinkBelow, 10, 10},
		{"small tables are left alone", shrinkBelow / 2, 0, shrinkBelow / 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var rl rowLocks
			ctx := context.Background()
			key := func(i int) string { return rowLockKey("main", 1, 1, uint64(i)) }
			small := &lockOwner{}
			var keep []string
			for i := 0; i < tc.kept; i++ {
				keep = append(keep, key(-1-i))
			}
			if _, _, _, err := rl.acquire(ctx, small, keep, lockUpdate, lockWait{}); err != nil {
				t.Fatal(err)
			}
			big := &lockOwner{}
			keys := make([]string, tc.locked)
			for i := range keys {
				keys[i] = key(i)
			}
			if _, _, _, err := rl.acquire(ctx, big, keys, lockUpdate, lockWait{}); err != nil {
				t.Fatal(err)
			}
			if got := len(rl.locks); got != tc.locked+tc.kept {
				t.Fatalf("%d locks held, want %d", got, tc.locked+tc.kept)
			}
			rl.releaseAll(big)
			if len(rl.locks) != tc.kept || rl.peak != tc.wantPeak {
				t.Fatalf("after release: %d locks, peak %d; want %d, peak %d", len(rl.locks), rl.peak, tc.kept, tc.wantPeak)
			}
			for _, k := range keep {
				if rl.locks[k] == nil || rl.locks[k].holders[small] != lockUpdate {
					t.Fatalf("lock %s of the other transaction lost in the rebuild", strconv.Quote(k))
				}
			}
		})
	}
}
