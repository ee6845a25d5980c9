package adapters

import (
	"context"
	"sync"

	"github.com/pggraph/pggraph/graph"
)

// Merge checks. The merge rules (merge.go) prove the two sides' row
// changes disjoint per table, but constraints span rows and tables: a
// UNIQUE key added on both sides under different primary keys, an edge
// one side added whose endpoint the other side deleted, a CHECK that a
// redefinition made stricter. The SQL layer knows those constraints, so
// it registers a MergeCheck on the Graph (SetMergeCheck); every Merge of
// that Graph then shows it the complete merged result in Prepare, after
// the rules passed and before anything is published, and an error from
// it refuses the merge (its SQLSTATE reaches the client; nothing is
// written, and a re-prepared merge is checked again).

// MergeCheck validates a merge's result; an error refuses the merge.
type MergeCheck func(ctx context.Context, m *MergeResult) error

// MergeResult is what a merge would publish.
type MergeResult struct {
	From, Into string
	// Target is the target head the merge is prepared against.
	Target *graph.Snapshot
	// Merged is Target with the merge's catalog applied (registered
	// tables, redefinitions, tombstones). A table whose rows the merge
	// replays keeps its target pin here: its merged rows are that
	// version minus Rows[key].Deleted plus Rows[key].Added.
	Merged *graph.Snapshot
	// Rows are the replayed row changes by table (Merged's entries).
	Rows map[graph.TableKey]*MergedRows
	// Changed lists the tables whose rows or definition the merge
	// changes (keys of Merged).
	Changed []graph.TableKey
}

// MergedRows is one table's replayed row delta.
type MergedRows struct {
	// Deleted are row addresses of the table at its Merged pin.
	Deleted []uint64
	// Added yields the rows added (the table's physical schema); nil
	// when none.
	Added Source
}

var mergeChecks sync.Map // *Graph → MergeCheck

// SetMergeCheck makes every later Merge of g run f on its result (nil
// removes the check).
func SetMergeCheck(g *Graph, f MergeCheck) {
	if f == nil {
		mergeChecks.Delete(g)
		return
	}
	mergeChecks.Store(g, f)
}

func mergeCheckOf(g *Graph) MergeCheck {
	if f, ok := mergeChecks.Load(g); ok {
		return f.(MergeCheck)
	}
	return nil
}

// result assembles the merged view of a prepared plan.
func (p *mergePlan) result() *MergeResult {
	st := p.target.State.Clone()
	var changed []graph.TableKey
	for _, k := range p.pw.Delta.Tombstones {
		if e, ok := st.Table(k); ok {
			e.State = graph.Dropped
			st.Put(e)
		}
	}
	for _, r := range p.pw.Delta.Redefinitions {
		if e, ok := st.Table(r.Table); ok {
			e.Name, e.Kind, e.Def = r.Name, r.Kind, r.Def
			st.Put(e)
			changed = append(changed, r.Table)
		}
	}
	for _, r := range p.pw.Delta.Registrations {
		st.Put(r)
		changed = append(changed, r.Key())
	}
	for k := range p.rows {
		changed = append(changed, k)
	}
	t := p.target
	merged := &graph.Snapshot{Branch: t.Branch, Incarnation: t.Incarnation, Version: t.Version, Commit: t.Commit, State: st}
	return &MergeResult{From: p.w.from, Into: p.w.into, Target: t, Merged: merged, Rows: p.rows, Changed: changed}
}
