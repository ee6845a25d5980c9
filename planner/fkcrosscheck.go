package planner

import (
	"context"
	"slices"

	"github.com/pggraph/pggraph/exec"
)

// fkCrosscheck is PostgreSQL's foreign-key crosscheck for a statement
// of a REPEATABLE READ or SERIALIZABLE transaction that waited for a
// row lock and runs again on its snapshot: the keys it removes from a
// referenced table (a DELETE, or an UPDATE that changes the key) are
// looked up in the referencing tables' latest committed rows (head), not
// the snapshot's, and a NO ACTION/RESTRICT reference committed by the
// transaction it waited for is the statement's 23503 — as PostgreSQL's
// referential triggers check with a crosscheck snapshot — instead of a
// 40001 at COMMIT. d is the statement's delta against base; pend the
// transaction's changes before it (its own earlier deletes of child
// rows count).
func (s *session) fkCrosscheck(ctx context.Context, d, pend *pendingState, base, head *catalog) error {
	names := make([]string, 0, len(d.tables))
	for n, p := range d.tables {
		if p.deleted.len() > 0 {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		p := d.tables[name]
		ti, ok := base.tables[name]
		if !ok {
			continue
		}
		wb := &writer{s: s, v: newView(base, pend.clone()), ctx: ctx}
		refCols := wb.referencedCols(name)
		if len(refCols) == 0 {
			continue
		}
		addrs := make([]uint64, 0, p.deleted.len())
		for a := range p.deleted.all() {
			addrs = append(addrs, a)
		}
		slices.Sort(addrs)
		gone, err := wb.fetchRows(ti, addrs, refCols)
		if err != nil {
			return err
		}
		if gone.n() == 0 {
			continue
		}
		var kept []*exec.Vec // an UPDATE's new rows: keys it keeps are not removed
		wh := &writer{s: s, v: newView(head, pend.clone()), ctx: ctx}
		if len(p.inserts) > 0 {
			// only the columns head's foreign keys reference are read
			// (a staged record is read back column by column)
			var need [][]int
			for _, cname := range sortedTables(head) {
				for _, fk := range head.tables[cname].def.ForeignKeys {
					if fk.RefTable == name {
						need = append(need, refColumns(ti.def, fk))
					}
				}
			}
			kept = pendingColumns(p, ti.def, keyColumns(need))
		}
		for _, cname := range sortedTables(head) {
			child := head.tables[cname]
			for _, fk := range child.def.ForeignKeys {
				if fk.RefTable != name {
					continue
				}
				action := fk.OnDelete
				if kept != nil {
					action = fk.OnUpdate
				}
				if action != exec.RefNoAction && action != exec.RefRestrict {
					continue // cascades and SET actions: arbitrated at COMMIT
				}
				ref := refColumns(ti.def, fk)
				if len(ref) != len(fk.Columns) {
					continue
				}
				keys := removedKeyValues(pick(gone.cols, ref), kept, ref)
				if keys == nil {
					continue
				}
				found, err := wh.probeRows(child, fk.Columns, keys, fk.Columns)
				if err != nil {
					return err
				}
				if found.n() > 0 {
					return wh.stillReferenced(ti, child, fk, keys, pick(found.cols, fk.Columns))
				}
			}
		}
	}
	return nil
}

// removedKeyValues returns the distinct non-NULL keys of old that no row
// of kept (full-width rows of the same table, or nil) still holds in
// columns ref; nil when none.
func removedKeyValues(old []*exec.Vec, kept []*exec.Vec, ref []int) []*exec.Vec {
	var still *keySet
	if kept != nil {
		still = keySetOf(pick(kept, ref))
	}
	seen := newKeySet(vecTypes(old), old[0].N)
	var idx []int32
	for i := 0; i < old[0].N; i++ {
		if !seen.add(old, i) {
			continue
		}
		if still != nil {
			if _, ok := still.find(old, i); ok {
				continue
			}
		}
		idx = append(idx, int32(i))
	}
	if len(idx) == 0 {
		return nil
	}
	return gatherVecs(old, idx)
}

// sortedTables lists a catalog's table names in order.
func sortedTables(c *catalog) []string {
	names := make([]string, 0, len(c.tables))
	for n := range c.tables {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
