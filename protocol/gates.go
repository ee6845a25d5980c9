package protocol

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/pggraph/pggraph/graph"
)

// GateClass orders gate keys (RFC-022 §4.3).
type GateClass int

// Gate classes in acquisition order.
const (
	GateClaim GateClass = iota
	GateSchema
	GateBranch
	GateTable
)

// GateKey is one process-local gate.
type GateKey struct {
	Class GateClass
	Key   string
}

func (g GateKey) String() string { return fmt.Sprintf("%d/%s", g.Class, g.Key) }

// SchemaGate is the graph/schema-control key.
func SchemaGate() GateKey { return GateKey{Class: GateSchema, Key: "schema"} }

// BranchGate is a branch-control key.
func BranchGate(b string) GateKey { return GateKey{Class: GateBranch, Key: b} }

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
	for i, k := range g {
		if i == 0 || k != g[i-1] {
			out = append(out, k)
		}
	}
	return out
}

// Gates is the process-local gate manager of one root. Gates are a local
// optimization (invariant 7): they avoid in-process races and deadlocks;
// cross-process correctness comes from Lance conflicts, manifest
// arbitration and recovery.
type Gates struct {
	mu sync.Mutex
	m  map[GateKey]chan struct{}
}

var (
	registryMu sync.Mutex
	registry   = map[string]*Gates{}
)

// GatesFor returns the manager shared by every handle of the same root
// (keyed by graph id) in this process.
func GatesFor(graphID string) *Gates {
	registryMu.Lock()
	defer registryMu.Unlock()
	g := registry[graphID]
	if g == nil {
		g = &Gates{m: map[GateKey]chan struct{}{}}
		registry[graphID] = g
	}
	return g
}

func (g *Gates) ch(k GateKey) chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	c := g.m[k]
	if c == nil {
		c = make(chan struct{}, 1)
		g.m[k] = c
	}
	return c
}

// Acquire takes keys in their total order; it honours ctx while
// waiting and releases what it holds when cancelled. The returned
// function releases them all.
func (g *Gates) Acquire(ctx context.Context, keys []GateKey) (release func(), err error) {
	keys = SortGates(append([]GateKey(nil), keys...))
	var held []chan struct{}
	rel := func() {
		for i := len(held) - 1; i >= 0; i-- {
			<-held[i]
		}
		held = nil
	}
	for _, k := range keys {
		c := g.ch(k)
		select {
		case c <- struct{}{}:
			held = append(held, c)
		case <-ctx.Done():
			rel()
			return nil, ctx.Err()
		}
	}
	return rel, nil
}
