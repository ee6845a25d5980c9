package planner

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestCompactionDrainsTableLocks: a background compaction waiting for a
// table's row locks keeps owners that hold no lock from locking one of
// its rows (they wait, then run again), lets owners holding locks go on,
// and gets the table once they end — so a table some transaction always
// holds a row of is still compacted. A reservation that does not drain
// in time gives up and wakes the waiters.
func TestCompactionDrainsTableLocks(t *testing.T) {
	ctx := context.Background()
	var rl rowLocks
	table := tableKey("main", 7)
	key := func(a uint64) string { return rowLockKey("main", 7, 1, a) }
	holder, newcomer := &lockOwner{}, &lockOwner{}
	if _, _, waited, err := rl.acquire(ctx, holder, []string{key(1)}, lockUpdate, lockWait{}); err != nil || waited {
		t.Fatalf("first lock: waited %v err %v", waited, err)
	}
	reserved := make(chan bool)
	go func() { reserved <- len(rl.reserveCompactions([]string{table}, nil, time.Minute)) == 1 }()
	// the newcomer waits for the compaction (it holds no row of the table)
	newDone := make(chan bool)
	go func() {
		for {
			rl.mu.Lock()
			wanted := rl.tables[table] != nil && rl.tables[table].wanted
			rl.mu.Unlock()
			if wanted {
				break
			}
			time.Sleep(time.Millisecond)
		}
		_, _, waited, err := rl.acquire(ctx, newcomer, []string{key(2)}, lockUpdate, lockWait{})
		if err != nil {
			t.Error(err)
		}
		newDone <- waited
	}()
	// the holder may lock more rows of the table meanwhile
	for {
		rl.mu.Lock()
		wanted := rl.tables[table] != nil && rl.tables[table].wanted
		rl.mu.Unlock()
		if wanted {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if _, _, waited, err := rl.acquire(ctx, holder, []string{key(3)}, lockUpdate, lockWait{}); err != nil || waited {
		t.Fatalf("the holder's second lock: waited %v err %v", waited, err)
	}
	select {
	case <-reserved:
		t.Fatal("reserved while a row is locked")
	case w := <-newDone:
		t.Fatalf("a newcomer locked a row of a table waiting for its compaction (waited %v)", w)
	case <-time.After(50 * time.Millisecond):
	}
	rl.releaseAll(holder)
	if !<-reserved {
		t.Fatal("the compaction did not get the drained table")
	}
	rl.endCompaction(table)
	if !<-newDone {
		t.Fatal("the newcomer did not wait for the compaction")
	}
	if n := rl.heldCount(newcomer); n != 0 {
		t.Fatalf("the newcomer holds %d locks after waiting (it runs again)", n)
	}

	// a table that does not drain in time: the reservation gives up
	if _, _, _, err := rl.acquire(ctx, holder, []string{key(4)}, lockUpdate, lockWait{}); err != nil {
		t.Fatal(err)
	}
	if len(rl.reserveCompactions([]string{table}, nil, 20*time.Millisecond)) != 0 {
		t.Fatal("reserved a table whose row stays locked")
	}
	if _, _, waited, err := rl.acquire(ctx, newcomer, []string{key(5)}, lockUpdate, lockWait{}); err != nil || waited {
		t.Fatalf("after the reservation gave up: waited %v err %v", waited, err)
	}
}

// TestCompactionReservesItsFragments: a compaction limited to some
// fragments waits only for the locks of rows in them; locks of rows in
// other fragments and key locks neither keep it waiting nor wait for it,
// while a lock of a row it moves would wait (NOWAIT: 55P03 at once).
func TestCompactionReservesItsFragments(t *testing.T) {
	ctx := context.Background()
	var rl rowLocks
	table := tableKey("main", 7)
	row := func(frag, off uint64) string { return rowLockKey("main", 7, 1, frag<<32|off) }
	key := keyLockKey("main", 7, "t_pkey", []byte("k1"))
	holder := &lockOwner{}
	// held throughout: a row of the big fragment 1 and a key
	if _, _, waited, err := rl.acquire(ctx, holder, []string{row(1, 5), key}, lockUpdate, lockWait{}); err != nil || waited {
		t.Fatalf("holder: waited %v err %v", waited, err)
	}
	if got := rl.reserveCompactions([]string{table}, map[string][]uint64{table: {2, 3}}, 5*time.Second); len(got) != 1 {
		t.Fatal("a compaction of fragments 2 and 3 waited for locks outside them")
	}
	for _, c := range []struct {
		about string
		key   string
		wait  bool
	}{
		{"a row of a fragment the compaction keeps", row(1, 6), false},
		{"a row of a fragment created after it was planned", row(9, 0), false},
		{"a key value", keyLockKey("main", 7, "t_pkey", []byte("k2")), false},
		{"a row it moves", row(3, 0), true},
	} {
		newcomer := &lockOwner{}
		_, _, waited, err := rl.acquire(ctx, newcomer, []string{c.key}, lockUpdate, lockWait{noWait: true, relation: "t"})
		if got := err != nil && strings.Contains(err.Error(), "could not obtain lock"); got != c.wait || waited {
			t.Fatalf("%s: would wait %v (err %v, waited %v), want %v", c.about, got, err, waited, c.wait)
		}
		rl.releaseAll(newcomer)
	}
	rl.endCompaction(table)
	if _, _, waited, err := rl.acquire(ctx, &lockOwner{}, []string{row(3, 0)}, lockUpdate, lockWait{noWait: true}); err != nil || waited {
		t.Fatalf("after the compaction: waited %v err %v", waited, err)
	}
	// the holder still blocks a compaction of its own row's fragment
	if len(rl.reserveCompactions([]string{table}, map[string][]uint64{table: {1}}, 20*time.Millisecond)) != 0 {
		t.Fatal("reserved fragment 1 while a row of it stays locked")
	}
	rl.releaseAll(holder)
}
