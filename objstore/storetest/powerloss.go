package storetest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pggraph/pggraph/objstore"
)

// PowerLosser is a store that can simulate a power failure.
type PowerLosser interface {
	objstore.Store
	// PowerLoss drops unsynced changes; with keep != nil each unsynced
	// change survives with probability 1/2.
	PowerLoss(keep *rand.Rand)
	// SetStepHook installs a hook that can abort a write between steps.
	SetStepHook(h objstore.StepHook)
}

// RunPowerLoss checks crash durability: every acknowledged write
// survives a power loss; a write interrupted at any step leaves either
// the old object or the new one, complete; nothing half-written is ever
// visible.
func RunPowerLoss(t *testing.T, newStore func(t *testing.T) PowerLosser) {
	t.Run("AcknowledgedSurvive", func(t *testing.T) {
		s := newStore(t)
		for i := range 50 {
			mustPut(t, s, fmt.Sprintf("k/%d", i), payload(byte(i), 100))
		}
		if err := s.Delete(bg, "k/7"); err != nil {
			t.Fatal(err)
		}
		if err := s.PutIfAbsent(bg, "k/x", payload('x', 10)); err != nil {
			t.Fatal(err)
		}
		s.PowerLoss(rand.New(rand.NewPCG(1, 2)))
		for i := range 50 {
			got, err := s.Get(bg, fmt.Sprintf("k/%d", i))
			if i == 7 {
				if !objstore.IsNotFound(err) {
					t.Errorf("acknowledged delete of k/7 lost: %v", err)
				}
				continue
			}
			if err != nil || len(got) != 100 || got[0] != byte(i) {
				t.Errorf("acknowledged put k/%d lost: %v", i, err)
			}
		}
		wantGet(t, s, "k/x", payload('x', 10))
	})

	steps := []objstore.Step{objstore.StepWriteStaging, objstore.StepSyncStaging, objstore.StepPublish, objstore.StepSyncDir}
	for _, op := range []string{"put", "putifabsent", "delete"} {
		for _, step := range steps {
			if op == "delete" && (step == objstore.StepWriteStaging || step == objstore.StepSyncStaging) {
				continue
			}
			for _, keep := range []bool{false, true} {
				name := fmt.Sprintf("Interrupted/%s/%s/keep=%v", op, step, keep)
				t.Run(name, func(t *testing.T) {
					for seed := range uint64(16) {
						interrupted(t, newStore(t), op, step, keep, seed)
					}
				})
			}
		}
	}
}

var errPowerCut = errors.New("power cut")

// interrupted cuts the power inside one operation and checks the
// outcome is all-or-nothing and that earlier writes survived.
func interrupted(t *testing.T, s PowerLosser, op string, step objstore.Step, keep bool, seed uint64) {
	t.Helper()
	mustPut(t, s, "stable", payload('s', 32))
	old := payload('o', 4096)
	if op != "putifabsent" {
		mustPut(t, s, "victim", old)
	}
	next := payload('n', 8192)
	s.SetStepHook(func(_, key string, st objstore.Step) error {
		if key == "victim" && st == step {
			return errPowerCut
		}
		return nil
	})
	var err error
	switch op {
	case "put":
		err = s.Put(bg, "victim", next)
	case "putifabsent":
		err = s.PutIfAbsent(bg, "victim", next)
	case "delete":
		err = s.Delete(bg, "victim")
	}
	s.SetStepHook(nil)
	if !errors.Is(err, errPowerCut) {
		t.Fatalf("%s interrupted at %s returned %v, want the injected cut", op, step, err)
	}
	var rng *rand.Rand
	if keep {
		rng = rand.New(rand.NewPCG(seed, 99))
	}
	s.PowerLoss(rng)
	wantGet(t, s, "stable", payload('s', 32))
	got, gerr := s.Get(bg, "victim")
	switch {
	case objstore.IsNotFound(gerr):
		if op == "put" {
			t.Fatalf("interrupted put at %s lost the previous, synced version", step)
		}
	case gerr != nil:
		t.Fatal(gerr)
	case string(got) == string(old), string(got) == string(next):
		if op == "putifabsent" && string(got) == string(old) {
			t.Fatal("impossible content")
		}
	default:
		t.Fatalf("half-written object after power loss: %d bytes", len(got))
	}
	// Listing agrees with Get, and shows no staging names.
	list, lerr := s.List(bg, "")
	if lerr != nil {
		t.Fatal(lerr)
	}
	for _, o := range list {
		if o.Key != "stable" && o.Key != "victim" {
			t.Fatalf("unexpected object after power loss: %q", o.Key)
		}
	}
	// The store works normally afterwards.
	mustPut(t, s, "victim", payload('a', 3))
	wantGet(t, s, "victim", payload('a', 3))
	_ = s.Delete(bg, "victim")
	_ = s.Delete(bg, "stable")
}
