package planner

import (
	"context"
	"fmt"

	"github.com/pggraph/pggraph/graph"
)

// rebaseDeletes returns pend with each table's delete set expressed in
// the row addresses of head (docs/architecture.md, "Isolation and
// row-level concurrency"): a compaction committed since from(name)
// moved rows the transaction deletes, and the addresses it recorded
// would name nothing (or, in a statement's view, leave the moved row
// visible beside its new version). Only compactions are followed: they
// change no row, so the transaction's logical changes stay what they
// were (its rows are recomputed on the new head, never patched), and a
// row someone else changed keeps its address for arbitration to find.
// A table whose changes since from cannot be followed (a truncation, a
// rewrite, too many versions) is a 40001: the COMMIT could not be
// arbitrated either. pend itself is returned when nothing moved; else a
// copy (savepoints share its tables).
func (s *session) rebaseDeletes(ctx context.Context, pend *pendingState, from func(string) (graph.TableEntry, bool), head *catalog) (*pendingState, error) {
	out := pend
	for name, p := range pend.tables {
		if p.mode != modeRows || p.deleted.len() == 0 {
			continue
		}
		ti, ok := head.tables[name]
		e0, ok0 := from(name)
		if !ok || !ok0 || samePin(e0, ti.entry) {
			continue // (a dropped table is arbitration's to report)
		}
		tc, err := s.committedSince(ctx, e0, ti.entry)
		if err != nil {
			return nil, err
		}
		if tc.coarse {
			return nil, serializationFailure(fmt.Sprintf("table %q was rewritten (truncated or altered) by a concurrent transaction", name))
		}
		if !tc.moved() {
			continue
		}
		q := p.clone()
		q.deleted = &addrBits{}
		for a := range p.deleted.all() {
			q.deleted.add(tc.translate(a))
		}
		if out == pend {
			out = pend.clone()
		}
		out.tables[name] = q
	}
	if out != pend {
		out.bump()
	}
	return out, nil
}

// pinsOf is the from function of rebaseDeletes and arbitrateRows for
// changes computed against c.
func pinsOf(c *catalog) func(string) (graph.TableEntry, bool) {
	return func(name string) (graph.TableEntry, bool) {
		ti, ok := c.tables[name]
		if !ok {
			return graph.TableEntry{}, false
		}
		return ti.entry, true
	}
}
