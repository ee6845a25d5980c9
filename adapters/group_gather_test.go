package adapters

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/protocol"
)

// TestGatherWait: the runner waits only when fewer writes are queued
// than were active around the previous group, until one commit duration
// of that group after its end and never longer than the cap.
func TestGatherWait(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		name   string
		queued int
		last   lastGroup
		max    time.Duration
		since  time.Duration
		want   time.Duration
	}{
		{"first group", 1, lastGroup{}, 100 * ms, 0, 0},
		{"lone writer", 1, lastGroup{writers: 1, took: 8 * ms}, 100 * ms, 0, 0},
		{"all back", 16, lastGroup{writers: 16, took: 8 * ms}, 100 * ms, 0, 0},
		{"more than before", 20, lastGroup{writers: 16, took: 8 * ms}, 100 * ms, 0, 0},
		{"some back", 2, lastGroup{writers: 16, took: 8 * ms}, 100 * ms, 0, 8 * ms},
		{"some back later", 2, lastGroup{writers: 16, took: 8 * ms}, 100 * ms, 3 * ms, 5 * ms},
		{"a commit later", 2, lastGroup{writers: 16, took: 8 * ms}, 100 * ms, 9 * ms, 0},
		{"burst long past", 1, lastGroup{writers: 16, took: 8 * ms}, 100 * ms, time.Hour, 0},
		{"capped", 2, lastGroup{writers: 64, took: 400 * ms}, 100 * ms, 60 * ms, 40 * ms},
		{"off", 2, lastGroup{writers: 16, took: 8 * ms}, -1, 0, 0},
		{"writers came back soon", 2, lastGroup{writers: 16, took: 8 * ms, back: ms}, 100 * ms, 0, 8 * ms},
		{"writers came back late", 32, lastGroup{writers: 64, took: 160 * ms, back: 65 * ms}, 100 * ms, 0, 0},
	} {
		if got := gatherWait(c.queued, c.last, c.max, c.since); got != c.want {
			t.Errorf("%s: gatherWait(%d, %+v, %v, %v) = %v, want %v", c.name, c.queued, c.last, c.max, c.since, got, c.want)
		}
	}
}

// TestGroupCommitGathersReturningWriters: after a group of three
// writers, a write that finds only itself queued waits for the other
// two, and the three commit as one group. The wait is bounded by a
// minute here, so the outcome does not depend on how fast the writers
// arrive.
func TestGroupCommitGathersReturningWriters(t *testing.T) {
	ctx := context.Background()
	g, err := Open(ctx, objstore.NewMem(), Options{Create: true, Actor: "test", Location: "/test-root", GroupGatherMax: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	createTables(t, g, "a")
	q := &g.groups
	q.mu.Lock()
	q.init()
	q.last[graph.MainBranch] = lastGroup{writers: 3, took: 10 * time.Minute, ended: time.Now()}
	q.mu.Unlock()
	var wg sync.WaitGroup
	rcs := make([]*protocol.Receipt, 3)
	errs := make([]error, 3)
	first := make(chan struct{})
	write := func(i int) {
		wg.Go(func() {
			rcs[i], errs[i] = g.Write(ctx, WriteOptions{Group: true}, insertFn(map[string][]int64{"a": {int64(i)}}))
			if i == 0 {
				close(first)
			}
		})
	}
	write(0)
	// the first writer waits in the queue for the others (a runner
	// that committed it alone would never leave it there)
	for {
		q.mu.Lock()
		n := len(q.queue[graph.MainBranch])
		q.mu.Unlock()
		if n == 1 {
			break
		}
		select {
		case <-first:
			t.Fatal("the first writer committed without waiting for the others")
		case <-time.After(time.Millisecond):
		}
	}
	write(1)
	write(2)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: %v", i, err)
		}
	}
	if rcs[0].Snapshot.Version != rcs[1].Snapshot.Version || rcs[1].Snapshot.Version != rcs[2].Snapshot.Version {
		t.Fatalf("versions %d %d %d, want one group commit", rcs[0].Snapshot.Version, rcs[1].Snapshot.Version, rcs[2].Snapshot.Version)
	}
	if groups, members := g.GroupStats(); groups != 1 || members != 3 {
		t.Fatalf("%d group commits carried %d writes, want 1 carrying 3", groups, members)
	}
}
