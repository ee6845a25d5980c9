package adapters

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/observe"
	"github.com/pggraph/pggraph/protocol"
)

// commit runs one graph write through the coordinator and reports it to
// observe (commit metrics and the per-commit log line). Every graph write
// of this package goes through it.
func (g *Graph) commit(ctx context.Context, w protocol.Writer, o protocol.CommitOptions) (*protocol.Receipt, error) {
	start := time.Now()
	ctx, rounds := objstore.WithDurableRounds(ctx)
	rc, err := g.coord.Commit(ctx, w, o)
	ev := observe.CommitEvent{Writer: string(w.Kind()), Branch: o.Branch, Actor: o.Actor, Duration: time.Since(start),
		DurableRounds: rounds.Count()}
	if ev.Branch == "" {
		ev.Branch = graph.MainBranch
	}
	if errors.Is(err, errNothingToOptimize) {
		return rc, err // no write was made
	}
	if err != nil {
		ev.SQLState = protocol.SQLState(err)
		observe.Commit(ev)
		return rc, err
	}
	rc.DurableRounds = ev.DurableRounds
	ev.Attempts = rc.Attempts
	ev.CommitID = rc.CommitID
	if sn := rc.Snapshot; sn != nil {
		if sn.Commit.WriterKind != "" {
			ev.Writer = sn.Commit.WriterKind
		}
		if mw, ok := w.(*mutationWriter); ok {
			ev.Tables, ev.TableRows = writtenTables(mw, sn)
		}
	}
	observe.Commit(ev)
	return rc, nil
}

// writtenTables names the tables a mutation wrote (those whose post-state
// it confirmed) and their row count in the committed snapshot.
func writtenTables(w *mutationWriter, sn *graph.Snapshot) (names []string, rows uint64) {
	w.mu.Lock()
	keys := make(map[graph.TableKey]bool, len(w.fragments))
	for k := range w.fragments {
		keys[k] = true
	}
	w.mu.Unlock()
	for _, e := range sn.State.Tables {
		if keys[e.Key()] {
			names = append(names, e.Name)
			rows += e.RowCount
		}
	}
	sort.Strings(names)
	return names, rows
}
