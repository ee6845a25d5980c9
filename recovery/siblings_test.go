package recovery_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/protocol"
	"github.com/pggraph/pggraph/recovery"
)

// Sibling recoverers: two processes resolve one intent at once and judge
// its owner differently. The owner's own process sees its abandoned
// operation as gone (no fence); the other process sees a live pid whose
// lease Abandon released as expired, and fences. These tests run both
// recoverers in one process (one with gates of its own, as in another
// process) and interleave them at exact store operations, the way
// adapters TestKillNineLoop interleaved them by chance.

// hookStore runs fn once, just before the nth (1-based) write whose key
// matches, then performs the write.
type hookStore struct {
	objstore.Store
	match func(op, key string) bool
	n     int
	fn    func()

	mu    sync.Mutex
	armed bool
	seen  int
	fired bool
}

// arm starts counting (writes of opening a handle do not count).
func (h *hookStore) arm() {
	h.mu.Lock()
	h.armed = true
	h.mu.Unlock()
}

func (h *hookStore) before(op, key string) {
	h.mu.Lock()
	fire := false
	if h.armed && !h.fired && h.match(op, key) {
		h.seen++
		if h.seen == h.n {
			h.fired, fire = true, true
		}
	}
	h.mu.Unlock()
	if fire {
		h.fn()
	}
}

func (h *hookStore) PutIfAbsent(ctx context.Context, key string, b []byte) error {
	h.before("putifabsent", key)
	return h.Store.PutIfAbsent(ctx, key, b)
}

func (h *hookStore) Put(ctx context.Context, key string, b []byte) error {
	h.before("put", key)
	return h.Store.Put(ctx, key, b)
}

func (h *hookStore) wasFired() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.fired
}

func isTableVersion(op, key string) bool {
	return op == "putifabsent" && strings.HasPrefix(key, "tables/") && strings.Contains(key, "/_versions/")
}

func isManifestVersion(op, key string) bool {
	return op == "putifabsent" && strings.HasPrefix(key, graph.ManifestRoot+"/") && strings.Contains(key, "/_versions/") &&
		strings.HasSuffix(key, ".manifest")
}

// expiredElsewhere makes the sidecar's owner a machine whose lease ran
// out (a recoverer fences), and returns the original bytes, whose owner
// (this process, instance closed) any recoverer here judges gone.
func expiredElsewhere(t *testing.T, mem objstore.Store, key string) (original []byte, sc *recovery.Sidecar) {
	t.Helper()
	original, err := mem.Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	sc = rewriteOwner(t, mem, key, func(o *recovery.Owner) {
		o.Host, o.BootID, o.LeaseExpiry = "another-machine", "b", time.Now().Add(-time.Second)
	})
	return original, sc
}

// assertPinnedHeads fails on any table whose live Lance HEAD is not its
// manifest pin (the drift a write would refuse as uncovered).
func assertPinnedHeads(t *testing.T, g *adapters.Graph) {
	t.Helper()
	ctx := context.Background()
	sn, err := g.Head(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		e, ok := sn.State.TableByName(name)
		if !ok {
			t.Fatalf("table %s missing", name)
		}
		h, _, err := protocol.ProbeHead(ctx, g.Root, protocol.Effect{Location: e.Location, LanceBranch: e.Branch})
		if err != nil {
			t.Fatal(err)
		}
		if h != e.Version {
			t.Fatalf("table %s: Lance HEAD %d, manifest pins %d: drift no intent covers", name, h, e.Version)
		}
	}
	if objs, _ := g.Root.Store().List(ctx, "__recovery/"); len(objs) != 0 {
		t.Fatalf("sidecars left: %v", objs)
	}
}

// crashedIntent runs writeAB over kc (which crashes at a chosen write)
// and returns the key of the one sidecar it leaves.
func crashedIntent(t *testing.T, kc *keyCrash) string {
	t.Helper()
	ctx := context.Background()
	g := open(t, kc, false, recovery.Options{})
	_ = writeAB(ctx, g, 1)
	g.Close()
	objs, _ := kc.Store.List(ctx, "__recovery/")
	if len(objs) != 1 {
		t.Fatalf("sidecars %v", objs)
	}
	return objs[0].Key
}

// fencerWithSibling runs a recoverer as another process would (its own
// gates) over mem; at its first table-version write the sidecar bytes
// are put under key and a sibling recoverer of this process resolves the
// intent before the fencer goes on. It returns the sibling's graph (open
// until the test ends) and both recoverers' reports.
func fencerWithSibling(t *testing.T, mem objstore.Store, key string, sidecar []byte) (sibling *adapters.Graph, sibReps []recovery.Report, sibErr error, reps []recovery.Report, err error) {
	t.Helper()
	ctx := context.Background()
	sibling = open(t, mem, false, recovery.Options{})
	t.Cleanup(sibling.Close)
	hs := &hookStore{Store: mem, match: isTableVersion, n: 1, fn: func() {
		if err := mem.Put(ctx, key, sidecar); err != nil {
			t.Error(err)
			return
		}
		sibReps, sibErr = sibling.Recovery.Recover(ctx)
	}}
	fencer := open(t, hs, false, recovery.Options{})
	defer fencer.Close()
	recovery.AsAnotherProcess(fencer.Recovery)
	hs.arm()
	reps, err = fencer.Recovery.Recover(ctx)
	if !hs.wasFired() {
		t.Fatal("the fencer never restored a table")
	}
	return sibling, sibReps, sibErr, reps, err
}

// An armed intent with one table landed and one untouched. The fencing
// recoverer is about to restore; right then its sibling (no fence)
// resolves the whole intent and publishes the rollback commit. Before the
// fix the sibling left the untouched table alone, and the fencer's
// restore of it landed after that rollback commit: HEAD one past its pin
// with the sidecar gone — "uncovered table drift" for every later write.
func TestSiblingRecoverersAgreeOnRollback(t *testing.T) {
	mem := setup(t)
	ctx := context.Background()
	// crash at the second table HEAD move: one table landed, one not
	key := crashedIntent(t, &keyCrash{Store: mem, skip: 1, pred: isTableVersion})
	original, sc := expiredElsewhere(t, mem, key)
	if sc.Phase != recovery.Armed || len(sc.Write.Effects) != 2 {
		t.Fatalf("sidecar %s with %d effects", sc.Phase, len(sc.Write.Effects))
	}

	// at the fencer's first table restore, its sibling reads the sidecar
	// as its owner's process does
	sibling, sibReps, sibErr, reps, err := fencerWithSibling(t, mem, key, original)
	if sibErr != nil || len(sibReps) != 1 || sibReps[0].Fenced || sibReps[0].Decision != recovery.RolledBackDec {
		t.Fatalf("sibling: %+v %v", sibReps, sibErr)
	}
	if err != nil || len(reps) != 1 || !reps[0].Fenced {
		t.Fatalf("fencer: %+v %v", reps, err)
	}
	assertPinnedHeads(t, sibling)
	if err := writeAB(ctx, sibling, 2); err != nil {
		t.Fatalf("write after both recoveries: %v", err)
	}
	if a, b := ids(t, sibling, "a"), ids(t, sibling, "b"); !slices.Equal(a, []int64{2}) || !slices.Equal(b, []int64{2}) {
		t.Fatalf("a = %v, b = %v", a, b)
	}
}

// A confirmed intent (every effect landed, the CAS never ran). The
// fencer fences and rolls forward; its sibling (no fence) attempts the
// roll-forward after the fence landed. Before the fix the fence's epoch
// bump failed the sibling's arbitration, so it rolled back — restoring
// both tables — while the fencer's roll-forward published: the restores
// sat one past the published pins with the sidecar gone.
func TestSiblingRecoverersAgreeOnRollForward(t *testing.T) {
	mem := setup(t)
	ctx := context.Background()
	// crash at the manifest CAS: confirmed, not published
	key := crashedIntent(t, &keyCrash{Store: mem, pred: isManifestVersion})
	original, sc := expiredElsewhere(t, mem, key)
	if sc.Phase != recovery.EffectsConfirmed {
		t.Fatalf("sidecar %s", sc.Phase)
	}

	// the sibling runs until its first manifest CAS (roll-forward or
	// rollback commit) and waits there until the fencer is done
	reached, release, sibDone := make(chan struct{}), make(chan struct{}), make(chan struct{})
	sibStore := &hookStore{Store: mem, match: isManifestVersion, n: 1, fn: func() {
		close(reached)
		<-release
	}}
	sibling := open(t, sibStore, false, recovery.Options{})
	defer sibling.Close()
	var sibReps []recovery.Report
	var sibErr error
	// the fencer's first manifest CAS is its fence, the second its
	// roll-forward: the sibling starts in between
	hs := &hookStore{Store: mem, match: isManifestVersion, n: 2, fn: func() {
		if err := mem.Put(ctx, key, original); err != nil {
			t.Error(err)
			return
		}
		sibStore.arm()
		go func() {
			defer close(sibDone)
			sibReps, sibErr = sibling.Recovery.Recover(ctx)
		}()
		select {
		case <-reached:
		case <-sibDone:
		}
	}}
	fencer := open(t, hs, false, recovery.Options{})
	defer fencer.Close()
	recovery.AsAnotherProcess(fencer.Recovery)
	hs.arm()
	reps, err := fencer.Recovery.Recover(ctx)
	close(release)
	if !hs.wasFired() {
		t.Fatal("the fencer never reached its roll-forward")
	}
	<-sibDone
	if err != nil || len(reps) != 1 || !reps[0].Fenced || reps[0].Decision != recovery.RolledForward {
		t.Fatalf("fencer: %+v %v", reps, err)
	}
	if sibErr != nil || len(sibReps) != 1 || sibReps[0].Decision != recovery.RolledForward {
		t.Fatalf("sibling: %+v %v", sibReps, sibErr)
	}
	assertPinnedHeads(t, sibling)
	if a, b := ids(t, sibling, "a"), ids(t, sibling, "b"); !slices.Equal(a, []int64{1}) || !slices.Equal(b, []int64{1}) {
		t.Fatalf("a = %v, b = %v", a, b)
	}
	if err := writeAB(ctx, sibling, 2); err != nil {
		t.Fatalf("write after both recoveries: %v", err)
	}
}

// An owner past its lease lands its confirmation late (a stalled put):
// the fencer read the sidecar Armed and rolls back; its sibling reads it
// EffectsConfirmed, all landed, and would roll forward. Without one
// recorded direction per intent the sibling published the roll-forward
// while the fencer's restores stacked on top of it. The first recorded
// direction (the fencer's rollback) is followed by both.
func TestSiblingRecoverersFollowTheFirstDirection(t *testing.T) {
	mem := setup(t)
	ctx := context.Background()
	key := crashedIntent(t, &keyCrash{Store: mem, pred: isManifestVersion})
	confirmed, sc := expiredElsewhere(t, mem, key)
	if sc.Phase != recovery.EffectsConfirmed {
		t.Fatalf("sidecar %s", sc.Phase)
	}
	// what the fencer reads: the same intent before its confirmation
	sc.Phase = recovery.Armed
	for i := range sc.Write.Effects {
		sc.Write.Effects[i].Confirmed = nil
	}
	armed, err := sc.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := mem.Put(ctx, key, armed); err != nil {
		t.Fatal(err)
	}

	// at the fencer's first table restore, the late confirmation lands;
	// its sibling reads it
	sibling, sibReps, sibErr, reps, err := fencerWithSibling(t, mem, key, confirmed)
	if sibErr != nil || len(sibReps) != 1 || sibReps[0].Decision != recovery.RolledBackDec {
		t.Fatalf("sibling: %+v %v", sibReps, sibErr)
	}
	if err != nil || len(reps) != 1 || !reps[0].Fenced {
		t.Fatalf("fencer: %+v %v", reps, err)
	}
	assertPinnedHeads(t, sibling)
	if objs, _ := mem.List(ctx, recovery.DecisionDir); len(objs) != 0 {
		t.Fatalf("direction records left: %v", objs)
	}
	if a, b := ids(t, sibling, "a"), ids(t, sibling, "b"); len(a) != 0 || len(b) != 0 {
		t.Fatalf("rolled back, yet a = %v, b = %v", a, b)
	}
	if err := writeAB(ctx, sibling, 2); err != nil {
		t.Fatalf("write after both recoveries: %v", err)
	}
}
