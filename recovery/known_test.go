package recovery_test

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/protocol"
	"github.com/pggraph/pggraph/recovery"
)

// listCounter counts the listings of __recovery/.
type listCounter struct {
	objstore.Store
	n atomic.Int64
}

func (l *listCounter) List(ctx context.Context, prefix string) ([]objstore.ObjectInfo, error) {
	if prefix == "__recovery/" {
		l.n.Add(1)
	}
	return l.Store.List(ctx, prefix)
}

// The barrier lists __recovery/ on its first run and then once per
// RescanInterval, not per write: an intent another process leaves that
// no write overlaps is found by the next rescan, and from then on blocks
// the writes it overlaps as before.
func TestBarrierListsOnlyWhenARescanIsDue(t *testing.T) {
	mem := setup(t)
	ctx := context.Background()
	lc := &listCounter{Store: mem}
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	g := open(t, lc, false, recovery.Options{Now: clock, RescanInterval: time.Minute})
	defer g.Close()
	for id := int64(1); id <= 3; id++ {
		if err := writeAB(ctx, g, id); err != nil {
			t.Fatal(err)
		}
	}
	if n := lc.n.Load(); n != 1 {
		t.Fatalf("3 writes listed __recovery/ %d times, want once (the first barrier)", n)
	}
	body := []byte(`{"format_version": 7, "operation_id": "01FUTURE"}`)
	if err := mem.Put(ctx, "__recovery/01FUTURE.json", body); err != nil {
		t.Fatal(err)
	}
	if err := writeAB(ctx, g, 4); err != nil {
		t.Fatalf("a write before the rescan: %v", err)
	}
	mu.Lock()
	now = now.Add(time.Minute)
	mu.Unlock()
	for i := 0; i < 2; i++ { // found by the rescan, then known
		if err := writeAB(ctx, g, 5); !recovery.IsUnknownVersion(err) || protocol.SQLState(err) != "55000" {
			t.Fatalf("write %d after the rescan: want 55000 naming the unknown version, got %v", i, err)
		}
	}
	if n := lc.n.Load(); n != 2 {
		t.Fatalf("listed __recovery/ %d times, want 2 (first barrier, one rescan)", n)
	}
	// an operator removes it: the known key is read, found gone, dropped
	if err := mem.Delete(ctx, "__recovery/01FUTURE.json"); err != nil {
		t.Fatal(err)
	}
	if err := writeAB(ctx, g, 6); err != nil {
		t.Fatal(err)
	}
	if n := lc.n.Load(); n != 2 {
		t.Fatalf("listed __recovery/ %d times, want 2", n)
	}
	if a := ids(t, g, "a"); !slices.Equal(a, []int64{1, 2, 3, 4, 6}) {
		t.Fatalf("a = %v", a)
	}
}

// An intent of another process that this one never listed, whose owner
// is gone, is found by the first write it overlaps: the write sees the
// table HEAD past its pin, Covering lists, and the retried attempt's
// barrier rolls the intent back — no rescan needed.
func TestOverlappingUnknownIntentIsResolvedByTheWrite(t *testing.T) {
	mem := setup(t)
	ctx := context.Background()
	lc := &listCounter{Store: mem}
	g := open(t, lc, false, recovery.Options{RescanInterval: time.Hour})
	defer g.Close()
	if err := writeAB(ctx, g, 1); err != nil {
		t.Fatal(err)
	}
	key := crashBeforeConfirm(t, mem)
	recovery.ForgetKnownIntents(g.Recovery) // written by "another process"
	before := lc.n.Load()
	if err := writeAB(ctx, g, 2); err != nil {
		t.Fatalf("the overlapping write: %v", err)
	}
	if n := lc.n.Load() - before; n != 1 {
		t.Fatalf("the overlapping write listed __recovery/ %d times, want once (Covering)", n)
	}
	if _, err := mem.Get(ctx, key); !objstore.IsNotFound(err) {
		t.Fatalf("the crashed intent's sidecar remains: %v", err)
	}
	if g.Recovery.Stats().Decisions[recovery.RolledBackDec] != 1 {
		t.Fatalf("stats %+v", g.Recovery.Stats())
	}
	if a, b := ids(t, g, "a"), ids(t, g, "b"); !slices.Equal(a, []int64{1, 2}) || !slices.Equal(b, []int64{1, 2}) {
		t.Fatalf("a = %v, b = %v", a, b)
	}
}
