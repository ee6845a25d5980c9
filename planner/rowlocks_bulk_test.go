package planner

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/pggraph/pggraph/wire"
)

// TestBulkRowLocks: a bulk set conflicts exactly as the per-row entries
// it stands for would, against single rows, keys and other bulk sets,
// in every mode pair that matters, and releasing it (by its marker or
// with the transaction) frees the rows.
func TestBulkRowLocks(t *testing.T) {
	rows := rowLockSpace("main", 7, 1)
	keys := keyLockSpace("main", 7, "t_pkey")
	ids := func(from, to int) []uint64 {
		var out []uint64
		for i := from; i < to; i++ {
			out = append(out, uint64(i))
		}
		return out
	}
	key := func(k string) uint64 { return keyLockID([]byte(k)) }
	bitsOf := func(from, to int) *addrBits { return addrBitsOf(ids(from, to)) }
	cases := []struct {
		name   string
		held   bulkReq
		mode   lockMode
		single string   // a per-row lock the other owner asks for
		bulk   *bulkReq // or a bulk set
		want   lockMode // the other's mode
		free   bool     // no conflict expected
	}{
		{"row in the set", bulkReq{space: rows, ids: ids(0, 5000)}, lockUpdate, rowLockKey("main", 7, 1, 4999), nil, lockUpdate, false},
		{"row outside the set", bulkReq{space: rows, ids: ids(0, 5000)}, lockUpdate, rowLockKey("main", 7, 1, 5000), nil, lockUpdate, true},
		{"other incarnation", bulkReq{space: rows, ids: ids(0, 5000)}, lockUpdate, rowLockKey("main", 7, 2, 10), nil, lockUpdate, true},
		{"other branch", bulkReq{space: rows, ids: ids(0, 5000)}, lockUpdate, rowLockKey("dev", 7, 1, 10), nil, lockUpdate, true},
		{"key share vs no key update", bulkReq{space: rows, ids: ids(0, 5000)}, lockNoKeyUpdate, rowLockKey("main", 7, 1, 10), nil, lockKeyShare, true},
		{"key share vs update", bulkReq{space: rows, ids: ids(0, 5000)}, lockUpdate, rowLockKey("main", 7, 1, 10), nil, lockKeyShare, false},
		{"key in the set", bulkReq{space: keys, ids: sortedIDs([]uint64{key("a"), key("b")})}, lockUpdate, keyLockKey("main", 7, "t_pkey", []byte("b")), nil, lockUpdate, false},
		{"key outside the set", bulkReq{space: keys, ids: sortedIDs([]uint64{key("a"), key("b")})}, lockUpdate, keyLockKey("main", 7, "t_pkey", []byte("c")), nil, lockUpdate, true},
		{"same key, other constraint", bulkReq{space: keys, ids: sortedIDs([]uint64{key("a")})}, lockUpdate, keyLockKey("main", 7, "t_other", []byte("a")), nil, lockUpdate, true},
		{"overlapping sets", bulkReq{space: rows, ids: ids(0, 5000)}, lockUpdate, "", &bulkReq{space: rows, ids: ids(4999, 9000)}, lockUpdate, false},
		{"disjoint sets", bulkReq{space: rows, ids: ids(0, 5000)}, lockUpdate, "", &bulkReq{space: rows, ids: ids(5000, 9000)}, lockUpdate, true},
		{"shared sets", bulkReq{space: rows, ids: ids(0, 5000)}, lockKeyShare, "", &bulkReq{space: rows, ids: ids(0, 9000)}, lockKeyShare, true},
		// row sets as bitmaps (as lockKeys takes them)
		{"row in the bitmap", bulkReq{space: rows, bits: bitsOf(0, 5000)}, lockUpdate, rowLockKey("main", 7, 1, 4999), nil, lockUpdate, false},
		{"row outside the bitmap", bulkReq{space: rows, bits: bitsOf(0, 5000)}, lockUpdate, rowLockKey("main", 7, 1, 5000), nil, lockUpdate, true},
		{"overlapping bitmaps", bulkReq{space: rows, bits: bitsOf(0, 5000)}, lockUpdate, "", &bulkReq{space: rows, bits: bitsOf(4999, 9000)}, lockUpdate, false},
		{"disjoint bitmaps", bulkReq{space: rows, bits: bitsOf(0, 5000)}, lockUpdate, "", &bulkReq{space: rows, bits: bitsOf(5000, 9000)}, lockUpdate, true},
		{"bitmap and ids overlapping", bulkReq{space: rows, bits: bitsOf(0, 5000)}, lockUpdate, "", &bulkReq{space: rows, ids: ids(4999, 9000)}, lockKeyShare, false},
		{"bitmap and ids disjoint", bulkReq{space: rows, ids: ids(0, 5000)}, lockUpdate, "", &bulkReq{space: rows, bits: bitsOf(5000, 9000)}, lockKeyShare, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var rl rowLocks
			ctx := context.Background()
			a, b := &lockOwner{}, &lockOwner{}
			taken, waited, err := rl.acquireBulk(ctx, a, tc.held, tc.mode, lockWait{})
			if err != nil || waited || len(taken) != 1 {
				t.Fatalf("bulk acquire: %v %v %v", taken, waited, err)
			}
			try := func() error {
				if tc.bulk != nil {
					_, _, err := rl.acquireBulk(ctx, b, *tc.bulk, tc.want, lockWait{noWait: true, relation: "t"})
					return err
				}
				_, _, _, err := rl.acquire(ctx, b, []string{tc.single}, tc.want, lockWait{noWait: true, relation: "t"})
				return err
			}
			err = try()
			var we *wire.Error
			if tc.free && err != nil {
				t.Fatalf("held by the bulk set: %v", err)
			}
			if !tc.free && (!errors.As(err, &we) || we.Code != "55P03") {
				t.Fatalf("not held by the bulk set: %v", err)
			}
			if tc.free {
				return
			}
			// released by its marker, the rows are free
			rl.release(a, taken)
			if err := try(); err != nil {
				t.Fatalf("after release: %v", err)
			}
			if n := rl.heldCount(a); n != 0 || len(rl.bulk[tc.held.space]) > 1 {
				t.Fatalf("after release: %d held, %d sets", n, len(rl.bulk[tc.held.space]))
			}
		})
	}
}

// TestBulkRowLockWait: a writer of a row in another transaction's bulk
// set waits until that transaction ends, and a cycle through a bulk set
// is a deadlock (40P01), not a hang.
func TestBulkRowLockWait(t *testing.T) {
	var rl rowLocks
	ctx := context.Background()
	space := rowLockSpace("main", 7, 1)
	big, small := &lockOwner{}, &lockOwner{}
	ids := make([]uint64, bulkLockMin)
	for i := range ids {
		ids[i] = uint64(i)
	}
	if _, _, err := rl.acquireBulk(ctx, big, bulkReq{space: space, ids: ids}, lockUpdate, lockWait{pid: 1}); err != nil {
		t.Fatal(err)
	}
	outside := rowLockKey("main", 7, 1, 1<<40)
	if _, _, _, err := rl.acquire(ctx, small, []string{outside}, lockUpdate, lockWait{pid: 2}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, _, waited, err := rl.acquire(ctx, small, []string{rowLockKey("main", 7, 1, 3)}, lockUpdate, lockWait{})
		if err == nil && !waited {
			err = errors.New("did not wait")
		}
		done <- err
	}()
	// small waits for big: big asking for small's row closes the cycle
	deadline := time.Now().Add(10 * time.Second)
	for {
		rl.mu.Lock()
		waiting := small.waitingOwner == big
		rl.mu.Unlock()
		if waiting {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the writer did not wait for the bulk set")
		}
		time.Sleep(time.Millisecond)
	}
	for _, h := range rl.holds() {
		if h.PID == 2 && (!h.Waiting || len(h.BlockerPIDs) != 1 || h.BlockerPIDs[0] != 1 || h.Relation == 0) {
			t.Fatalf("pg_locks shows the waiter as %+v", h)
		}
	}
	if holds := rl.holds(); len(holds) != 2 {
		t.Fatalf("pg_locks shows %d owners, want 2", len(holds))
	}
	_, _, _, err := rl.acquire(ctx, big, []string{outside}, lockUpdate, lockWait{})
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != "40P01" {
		t.Fatalf("cycle through a bulk set: %v, want 40P01", err)
	}
	select {
	case err := <-done:
		t.Fatalf("woke before the bulk set was released: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	rl.releaseAll(big)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	rl.releaseAll(small)
	if len(rl.bulk) != 0 || len(rl.locks) != 0 || len(rl.tables) != 0 {
		t.Fatalf("left behind: %d bulk spaces, %d locks, %d tables", len(rl.bulk), len(rl.locks), len(rl.tables))
	}
}
