package adapters

import (
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pggraph/pggraph/graph"
)

// Row merges of a table without a primary key (an edge table keyed by
// nothing but its values, typically) that both sides changed. Such a
// table is a bag of rows: a row is its values, and what a side changed
// is how many copies of each value it holds. Per value v touched by the
// source's delta, with b the count at the target's base, t the target's
// count and n the source's net change (rows added minus rows deleted
// since the source's base):
//
//   - the target left v alone (t = b): the source's change applies (its
//     new copies inserted, -n of the target's copies deleted);
//   - the target made the same change (t - b = n): nothing to do;
//   - otherwise both changed v differently: a conflict (the table, as for
//     any keyless conflict — there is no key to list or resolve a row
//     by, so no strategy settles it).
//
// So two branches adding different edges, or one deleting an edge the
// other left alone, merge; both deleting the same edge is one deletion.
// Values the source did not touch keep the target's copies. The merge
// checks validate the result (UNIQUE, FK) as for any merge. Counting
// reads the target's base and the target's table whole (only when both
// sides changed the table's rows).

// replayKeyless stages the source's row delta from base to src onto the
// target's table onto, whose base is tbase (see above).
func (p *mergePlan) replayKeyless(ctx context.Context, onto graph.TableEntry, tbase, base, src pin) error {
	old, cur, tds, d, ok, err := p.replayInputs(ctx, onto, base, src)
	if !ok || err != nil {
		return err
	}
	tb, err := p.w.g.openPin(ctx, tbase)
	if err != nil {
		return err
	}
	if !tds.Schema().Equal(cur.Schema()) || !tb.Schema().Equal(cur.Schema()) || !old.Schema().Equal(cur.Schema()) {
		p.conflict(onto.Name, "its physical schemas differ between the branches")
		return nil
	}
	// the source's net change per value
	net := map[string]int{}
	if len(d.deleted) > 0 {
		if err := forEachRow(ctx, old, lanceScan(d.deleted), func(rec arrow.RecordBatch, i int, _ uint64) error {
			net[rowKey(rec, i, dataCols(rec))]--
			return nil
		}); err != nil {
			return err
		}
	}
	added := map[string][]uint64{} // source rows by value
	if len(d.added) > 0 {
		if err := forEachRow(ctx, cur, lanceScan(d.added), func(rec arrow.RecordBatch, i int, addr uint64) error {
			k := rowKey(rec, i, dataCols(rec))
			net[k]++
			added[k] = append(added[k], addr)
			return nil
		}); err != nil {
			return err
		}
	}
	for k, n := range net {
		if n == 0 {
			delete(net, k) // a row gone and an identical one added
		}
	}
	if len(net) == 0 {
		return nil
	}
	// the target's change to those values
	baseCount := map[string]int{}
	if err := forEachRow(ctx, tb, lanceScan(nil), func(rec arrow.RecordBatch, i int, _ uint64) error {
		if k := rowKey(rec, i, dataCols(rec)); net[k] != 0 {
			baseCount[k]++
		}
		return nil
	}); err != nil {
		return err
	}
	have := map[string][]uint64{} // target rows by value
	if err := forEachRow(ctx, tds, lanceScan(nil), func(rec arrow.RecordBatch, i int, addr uint64) error {
		if k := rowKey(rec, i, dataCols(rec)); net[k] != 0 {
			have[k] = append(have[k], addr)
		}
		return nil
	}); err != nil {
		return err
	}
	var dels, kept []uint64
	for k, n := range net {
		switch dt := len(have[k]) - baseCount[k]; {
		case dt == n: // the same change on both
		case dt != 0:
			p.conflict(onto.Name, "rows changed on both branches in different ways (the table has no primary key: rows are compared by value)")
			return nil
		case n > 0:
			kept = append(kept, added[k][:n]...)
		default:
			if len(have[k]) < -n {
				p.conflict(onto.Name, "rows %s deleted are no longer on %s", p.w.from, p.w.into)
				return nil
			}
			dels = append(dels, have[k][:-n]...)
		}
	}
	var inserts []Source
	if len(kept) > 0 {
		slices.Sort(kept)
		inserts = []Source{rowsAt(cur, kept)}
	}
	if len(dels) == 0 && len(inserts) == 0 {
		return nil
	}
	slices.Sort(dels)
	mr := &MergedRows{Deleted: dels}
	if len(inserts) > 0 {
		mr.Added = inserts[0]
	}
	p.rows[onto.Key()] = mr
	if p.w.staging {
		return nil // staging writes nothing
	}
	return p.stageRows(ctx, onto, tds, &tableOps{inserts: inserts, deletes: dels})
}
