package adapters

import (
	"sort"

	"github.com/pggraph/pggraph/protocol"
)

// Writer kinds of the closed registry.
const (
	// Mutation: INSERT/UPDATE/DELETE/MERGE (and COPY loads): one staged
	// Lance transaction per touched table.
	Mutation protocol.WriterKind = "mutation"
	// SchemaApply: CREATE/DROP TABLE, ALTER TABLE (catalog-only
	// redefinitions and rewrites into a new incarnation), TRUNCATE (a
	// new, empty incarnation), optionally with rows in the same graph
	// commit.
	SchemaApply protocol.WriterKind = "schema_apply"
	// Load: COPY FROM: staged appends of any size, streamed in bounded
	// memory into one staged Lance transaction per target table.
	Load protocol.WriterKind = "load"
	// BranchMerge: graph.merge: per-table transaction chains or pointer
	// adoption from a source branch into a target branch.
	BranchMerge protocol.WriterKind = "branch_merge"
	// Optimize: compaction of tables' small fragments (one staged Lance
	// Rewrite per table); content-preserving, so rolling an armed intent
	// back (old layout) and rolling a confirmed one forward (new layout)
	// both leave the same rows.
	Optimize protocol.WriterKind = "optimize"
)

// Adapter describes one registered writer: the effects it may declare and
// its recovery direction.
type Adapter struct {
	Kind     protocol.WriterKind
	Effects  []protocol.EffectKind
	Strategy protocol.Strategy
	// EntryPoints are the exported functions that build this writer.
	EntryPoints []string
}

// registry is closed: adding a graph-visible writer means adding an entry
// here (and the conformance test lists every entry point).
var registry = map[protocol.WriterKind]Adapter{
	Mutation: {Kind: Mutation, Effects: []protocol.EffectKind{protocol.EffectStaged},
		Strategy: protocol.RollBackArmedForwardConfirmed, EntryPoints: []string{"Graph.Write"}},
	SchemaApply: {Kind: SchemaApply, Effects: []protocol.EffectKind{protocol.EffectCreate, protocol.EffectStaged},
		Strategy: protocol.RollBackArmedForwardConfirmed, EntryPoints: []string{"Graph.Write"}},
	Load: {Kind: Load, Effects: []protocol.EffectKind{protocol.EffectStaged, protocol.EffectFirstTouch},
		Strategy: protocol.RollBackArmedForwardConfirmed, EntryPoints: []string{"Graph.Load", "Stage.Load (through Graph.Write)"}},
	BranchMerge: {Kind: BranchMerge, Effects: []protocol.EffectKind{protocol.EffectStaged, protocol.EffectFirstTouch},
		Strategy: protocol.RollBackArmedForwardConfirmed, EntryPoints: []string{"Graph.Merge"}},
	Optimize: {Kind: Optimize, Effects: []protocol.EffectKind{protocol.EffectStaged, protocol.EffectFirstTouch},
		Strategy: protocol.RollBackArmedForwardConfirmed, EntryPoints: []string{"Graph.Optimize"}},
}

// Registered lists the registry, sorted by kind.
func Registered() []Adapter {
	var out []Adapter
	for _, a := range registry {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Kind < out[j].Kind })
	return out
}

// Lookup returns the adapter of a writer kind.
func Lookup(k protocol.WriterKind) (Adapter, bool) {
	a, ok := registry[k]
	return a, ok
}
