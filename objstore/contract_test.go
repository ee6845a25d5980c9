package objstore_test

import (
	"math/rand/v2"
	"testing"

	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/objstore/storetest"
)

func newLocal(t *testing.T) *objstore.Local {
	t.Helper()
	s, err := objstore.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// backends lists every backend and wrapper the contract runs against.
var backends = []struct {
	name string
	make storetest.Factory
}{
	{"Local", func(t *testing.T) objstore.Store { return newLocal(t) }},
	{"Mem", func(t *testing.T) objstore.Store { return objstore.NewMem() }},
	// every key "immutable" and two handles: the store's own writes must
	// still be read back (they drop the handle), evictions included
	{"Local(cached reads)", func(t *testing.T) objstore.Store {
		l := newLocal(t)
		l.CacheImmutableReads(func(string) bool { return true }, 2)
		return l
	}},
	{"Faulty(Local)", func(t *testing.T) objstore.Store { return objstore.NewFaulty(newLocal(t)) }},
	{"Faulty(Mem)", func(t *testing.T) objstore.Store { return objstore.NewFaulty(objstore.NewMem()) }},
	{"Counting(Local)", func(t *testing.T) objstore.Store { return objstore.NewCounting(newLocal(t)) }},
	{"Counting(Mem)", func(t *testing.T) objstore.Store { return objstore.NewCounting(objstore.NewMem()) }},
	{"Tracing(Local)", func(t *testing.T) objstore.Store { return objstore.NewTracing(newLocal(t)) }},
	{"Tracing(Mem)", func(t *testing.T) objstore.Store { return objstore.NewTracing(objstore.NewMem()) }},
	{"Fenced(Local)", func(t *testing.T) objstore.Store { return objstore.Fenced(newLocal(t)) }},
	{"Fenced(Mem)", func(t *testing.T) objstore.Store { return objstore.Fenced(objstore.NewMem()) }},
	{"Tracing(Counting(Faulty(Mem)))", func(t *testing.T) objstore.Store {
		return objstore.NewTracing(objstore.NewCounting(objstore.NewFaulty(objstore.NewMem())))
	}},
}

func TestContract(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			storetest.Run(t, b.make)
		})
	}
}

// wrappedMem lets a wrapper over Mem take part in the power-loss suite:
// the wrapper serves the calls, the Mem underneath loses power.
type wrappedMem struct {
	objstore.Store
	mem *objstore.Mem
}

func (w wrappedMem) PowerLoss(keep *rand.Rand)       { w.mem.PowerLoss(keep) }
func (w wrappedMem) SetStepHook(h objstore.StepHook) { w.mem.SetStepHook(h) }

func TestPowerLoss(t *testing.T) {
	wrappers := []struct {
		name string
		wrap func(objstore.Store) objstore.Store
	}{
		{"Mem", func(s objstore.Store) objstore.Store { return s }},
		{"Faulty(Mem)", func(s objstore.Store) objstore.Store { return objstore.NewFaulty(s) }},
		{"Counting(Mem)", func(s objstore.Store) objstore.Store { return objstore.NewCounting(s) }},
		{"Tracing(Mem)", func(s objstore.Store) objstore.Store { return objstore.NewTracing(s) }},
	}
	for _, w := range wrappers {
		t.Run(w.name, func(t *testing.T) {
			storetest.RunPowerLoss(t, func(t *testing.T) storetest.PowerLosser {
				m := objstore.NewMem()
				return wrappedMem{Store: w.wrap(m), mem: m}
			})
		})
	}
}
