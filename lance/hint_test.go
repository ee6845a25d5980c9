package lance

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/pggraph/pggraph/objstore"
)

// The version hint is written without fsync, at every hintEvery-th
// version: after a commit the hint is the only unsynced object, and
// after a power loss that drops any subset of the hint writes (a stale,
// missing or older hint) Open still finds the latest committed version.
func TestVersionHintIsVolatileAndReadersSurvivePowerLoss(t *testing.T) {
	ctx := context.Background()
	hintKey := "t/_versions/latest_version_hint.json"
	for seed := range uint64(8) {
		mem := objstore.NewMem()
		ds := createFake(t, mem, "t", NamingV2, 1)
		for range hintEvery + 2 { // past one refresh of the hint
			ds = mustAppend(t, ds, CommitExact, 1)
			for _, k := range mem.Unsynced() {
				if k != hintKey {
					t.Fatalf("after a commit %s is not durable", k)
				}
			}
		}
		if len(mem.Unsynced()) == 0 {
			t.Fatal("the hint was synced")
		}
		var keep *rand.Rand
		if seed > 0 {
			keep = rand.New(rand.NewPCG(seed, seed))
		}
		mem.PowerLoss(keep)
		got, err := Open(ctx, mem, "t", Options{})
		if err != nil || got.Version() != ds.Version() {
			t.Fatalf("seed %d: open after power loss = %v, %v; want version %d", seed, got, err, ds.Version())
		}
		if seed == 0 {
			if _, err := mem.Get(ctx, hintKey); !objstore.IsNotFound(err) {
				t.Fatalf("a power loss keeping nothing unsynced kept the hint: %v", err)
			}
		}
	}
}
