package protocol

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/pggraph/pggraph/graph"
)

// GateClass orders gate keys (docs/write-protocol.md §4.3).
type GateClass int

// Gate classes in acquisition order.
const (
	GateClaim GateClass = iota
	GateSchema
	GateBranch
	GateTable
	// GateTurn is not one of docs/write-protocol.md §4.3's gates: it is the retry turn
	// of a table (turns.go), taken only before an attempt, never while
	// holding any gate.
	GateTurn
)

// GateKey is one process-local gate. Shared keys may be held by many
// at once (writers on a branch); an exclusive key (branch control)
// excludes every other holder.
type GateKey struct {
	Class  GateClass
	Key    string
	Shared bool
}

func (g GateKey) String() string { return fmt.Sprintf("%d/%s", g.Class, g.Key) }

// SchemaGate is the graph/schema-control key.
func SchemaGate() GateKey { return GateKey{Class: GateSchema, Key: "schema"} }

// BranchGate is the branch-control key (exclusive: create/delete).
func BranchGate(b string) GateKey { return GateKey{Class: GateBranch, Key: b} }

// BranchUseGate is the shared form every writer on the branch holds, so
// branch control cannot run under an in-process write.
func BranchUseGate(b string) GateKey { return GateKey{Class: GateBranch, Key: b, Shared: true} }

// TableGate is the (physical branch, table) key.
func TableGate(branch string, t graph.TableKey) GateKey {
	return GateKey{Class: GateTable, Key: branch + "\x00" + t.String()}
}

// SortGates sorts and dedups keys into the total order.
func SortGates(g []GateKey) []GateKey {
	sort.Slice(g, func(i, j int) bool {
		if g[i].Class != g[j].Class {
			return g[i].Class < g[j].Class
		}
		return g[i].Key < g[j].Key
	})
	out := g[:0]
	for _, k := range g {
		if n := len(out); n > 0 && out[n-1].Class == k.Class && out[n-1].Key == k.Key {
			out[n-1].Shared = out[n-1].Shared && k.Shared // exclusive wins
			continue
		}
		out = append(out, k)
	}
	return out
}

// Gates is the process-local gate manager of one root. Gates are a local
// optimization (invariant 7): they avoid in-process races and deadlocks;
// cross-process correctness comes from Lance conflicts, manifest
// arbitration and recovery.
type Gates struct {
	mu sync.Mutex
	m  map[gateID]*gate
}

type gateID struct {
	class GateClass
	key   string
}

// gate is a cancellable reader/writer lock.
type gate struct {
	readers int
	writer  bool
	changed chan struct{}
}

var (
	registryMu sync.Mutex
	registry   = map[string]*Gates{}
)

// NewGates returns a gate manager shared with no other handle: what a
// handle in another process has (tests simulating several processes in
// one).
func NewGates() *Gates { return &Gates{m: map[gateID]*gate{}} }

// GatesFor returns the manager shared by every handle of the same root
// (keyed by graph id) in this process.
func GatesFor(graphID string) *Gates {
	registryMu.Lock()
	defer registryMu.Unlock()
	g := registry[graphID]
	if g == nil {
		g = &Gates{m: map[gateID]*gate{}}
		registry[graphID] = g
	}
	return g
}

func (g *Gates) tryTake(k GateKey) (bool, chan struct{}) {
	g.mu.Lock()
	defer g.mu.Unlock()
	id := gateID{k.Class, k.Key}
	gt := g.m[id]
	if gt == nil {
		gt = &gate{changed: make(chan struct{})}
		g.m[id] = gt
	}
	switch {
	case k.Shared && !gt.writer:
		gt.readers++
		return true, nil
	case !k.Shared && !gt.writer && gt.readers == 0:
		gt.writer = true
		return true, nil
	}
	return false, gt.changed
}

func (g *Gates) release(k GateKey) {
	g.mu.Lock()
	defer g.mu.Unlock()
	gt := g.m[gateID{k.Class, k.Key}]
	if k.Shared {
		gt.readers--
	} else {
		gt.writer = false
	}
	close(gt.changed)
	gt.changed = make(chan struct{})
}

// Acquire takes keys in their total order; it honours ctx while
// waiting and releases what it holds when cancelled. The returned
// function releases them all.
func (g *Gates) Acquire(ctx context.Context, keys []GateKey) (release func(), err error) {
	keys = SortGates(append([]GateKey(nil), keys...))
	var held []GateKey
	rel := func() {
		for i := len(held) - 1; i >= 0; i-- {
			g.release(held[i])
		}
		held = nil
	}
	for _, k := range keys {
		for {
			ok, wait := g.tryTake(k)
			if ok {
				held = append(held, k)
				break
			}
			select {
			case <-wait:
			case <-ctx.Done():
				rel()
				return nil, ctx.Err()
			}
		}
	}
	return rel, nil
}
