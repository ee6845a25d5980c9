package objstore_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/pggraph/pggraph/objstore"
)

// A store that never syncs must lose acknowledged writes at power loss;
// this is what makes the power-loss contract able to fail.
func TestMemUnsafeNoSyncLosesWrites(t *testing.T) {
	ctx := context.Background()
	m := objstore.NewMem()
	m.SetUnsafeNoSync(true)
	if err := m.Put(ctx, "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if got := m.Unsynced(); len(got) != 1 || got[0] != "k" {
		t.Fatalf("Unsynced = %v, want [k]", got)
	}
	m.PowerLoss(nil)
	if _, err := m.Get(ctx, "k"); !objstore.IsNotFound(err) {
		t.Fatalf("unsynced write survived power loss: %v", err)
	}
}

func TestMemUnsyncedSubsetIsOrderedAndRandom(t *testing.T) {
	ctx := context.Background()
	cut := errors.New("cut")
	survived := map[bool]int{}
	for seed := range uint64(64) {
		m := objstore.NewMem()
		m.SetStepHook(func(_, _ string, s objstore.Step) error {
			if s == objstore.StepSyncDir {
				return cut
			}
			return nil
		})
		if err := m.Put(ctx, "a", []byte("1")); !errors.Is(err, cut) {
			t.Fatal(err)
		}
		m.PowerLoss(rand.New(rand.NewPCG(seed, seed)))
		_, err := m.Get(ctx, "a")
		survived[err == nil]++
	}
	if survived[true] == 0 || survived[false] == 0 {
		t.Fatalf("random power loss never varied: %v", survived)
	}
}

func TestMemFsyncCount(t *testing.T) {
	ctx := context.Background()
	m := objstore.NewMem()
	_ = m.Put(ctx, "a", []byte("1"))
	_ = m.PutIfAbsent(ctx, "b", []byte("1"))
	_ = m.Delete(ctx, "a")
	// put: file + dir, putifabsent: file + dir, delete: dir.
	if got := m.Fsyncs(); got != 5 {
		t.Fatalf("Fsyncs = %d, want 5", got)
	}
}
