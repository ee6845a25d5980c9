package planner

import (
	"context"
	"fmt"
	"slices"
)

// Foreign-key row locks (docs/architecture.md, "Isolation and row-level
// concurrency"). A statement inserting rows that reference parent rows
// (an INSERT, or an UPDATE assigning a foreign key's columns) holds the
// committed parent rows it references FOR KEY SHARE to the end of its
// transaction, as PostgreSQL's foreign-key check does: a concurrent
// DELETE of the parent (or an UPDATE of its key: FOR UPDATE) waits for
// the inserter and then sees the new child, while an UPDATE of the
// parent's other columns (FOR NO KEY UPDATE) does not wait.

// fkShareLocks lists the FOR KEY SHARE locks of the parent rows a
// delta's inserted rows reference, in base (rows of the snapshot only:
// parents the transaction inserted itself are its own), and those rows'
// addresses per parent table.
func (s *session) fkShareLocks(ctx context.Context, d *pendingState, base *catalog) ([]lockReq, map[string][]uint64, error) {
	var reqs []lockReq
	var shared map[string][]uint64
	names := make([]string, 0, len(d.tables))
	for n := range d.tables {
		names = append(names, n)
	}
	slices.Sort(names)
	var w *writer
	for _, n := range names {
		p := d.tables[n]
		ti, ok := base.tables[n]
		if !ok || len(p.inserts) == 0 || len(ti.def.ForeignKeys) == 0 {
			continue
		}
		fkCols := make([][]int, len(ti.def.ForeignKeys))
		for k, fk := range ti.def.ForeignKeys {
			fkCols[k] = fk.Columns
		}
		rows := pendingColumns(p, ti.def, keyColumns(fkCols))
		if rows == nil || pendingRows(p) == 0 {
			continue
		}
		for _, fk := range ti.def.ForeignKeys {
			parent, ok := base.tables[fk.RefTable]
			if !ok {
				continue
			}
			ref := refColumns(parent.def, fk)
			if len(ref) != len(fk.Columns) {
				continue
			}
			if w == nil {
				// the snapshot alone: committed parent rows only
				w = &writer{s: s, v: newView(base, newPendingState()), ctx: ctx}
			}
			found, err := w.findKeys(fk.RefTable, ref, pick(rows, fk.Columns))
			if err != nil {
				return nil, nil, err
			}
			var addrs []uint64
			for _, as := range found {
				for _, a := range as {
					if a&pendingAddrBit == 0 {
						addrs = append(addrs, a)
					}
				}
			}
			slices.Sort(addrs)
			addrs = slices.Compact(addrs)
			if len(addrs) >= bulkLockMin {
				// as one bulk set (rowlocks_bulk.go)
				reqs = append(reqs, lockReq{mode: lockKeyShare, bulk: &bulkReq{space: rowLockSpace(base.sn.Branch, parent.entry.ID, parent.entry.Incarnation), bits: addrBitsOf(addrs)}})
			} else {
				for _, a := range addrs {
					reqs = append(reqs, lockReq{key: rowLockKey(base.sn.Branch, parent.entry.ID, parent.entry.Incarnation, a), mode: lockKeyShare})
				}
			}
			if len(addrs) > 0 {
				if shared == nil {
					shared = map[string][]uint64{}
				}
				shared[fk.RefTable] = append(shared[fk.RefTable], addrs...)
			}
		}
	}
	return reqs, shared, nil
}

// onlyReferenced reports a table read by the transaction only as the
// parent of rows it inserts (not written, not a child its deletes
// checked).
func (s *session) onlyReferenced(pend *pendingState, head *catalog, name string) bool {
	if p := pend.tables[name]; p != nil && !p.empty() {
		return false
	}
	ti, ok := head.tables[name]
	if !ok {
		return false
	}
	referenced := false
	for wn, p := range pend.tables {
		if p.empty() {
			continue
		}
		wt, ok := head.tables[wn]
		if !ok {
			return false
		}
		for _, fk := range ti.def.ForeignKeys {
			if fk.RefTable == wn && p.deleted.len() > 0 {
				return false
			}
		}
		for _, fk := range wt.def.ForeignKeys {
			if fk.RefTable == name && len(p.inserts) > 0 {
				referenced = true
			}
		}
	}
	return referenced
}

// parentKeysHold checks, on head, the foreign keys of the transaction's
// new rows that reference parent: every referenced key still has a row
// (the check recomputed at the commit, never patched); else 40001.
func (s *session) parentKeysHold(ctx context.Context, pend *pendingState, head *catalog, parent string) error {
	pt, ok := head.tables[parent]
	if !ok {
		return serializationFailure(fmt.Sprintf("table %q was dropped or replaced since the transaction's snapshot", parent))
	}
	w := &writer{s: s, v: newView(head, newPendingState()), ctx: ctx}
	for wn, p := range pend.tables {
		wt, ok := head.tables[wn]
		if !ok || len(p.inserts) == 0 {
			continue
		}
		var fkCols [][]int
		for _, fk := range wt.def.ForeignKeys {
			if fk.RefTable == parent {
				fkCols = append(fkCols, fk.Columns)
			}
		}
		if len(fkCols) == 0 {
			continue
		}
		rows := pendingColumns(p, wt.def, keyColumns(fkCols))
		if rows == nil {
			continue
		}
		for _, fk := range wt.def.ForeignKeys {
			ref := refColumns(pt.def, fk)
			if fk.RefTable != parent || len(ref) != len(fk.Columns) {
				continue
			}
			probe := pick(rows, fk.Columns)
			found, err := w.existingKeys(parent, ref, probe)
			if err != nil {
				return err
			}
			for i := 0; i < probe[0].N; i++ {
				if nullKey(probe, i) {
					continue
				}
				if found != nil {
					if _, ok := found.find(probe, i); ok {
						continue
					}
				}
				return serializationFailure(fmt.Sprintf("a row of table %q referenced by the transaction's new rows was deleted by a concurrent transaction", parent))
			}
		}
	}
	return nil
}

// withShared is d with the parent rows it holds FOR KEY SHARE added as
// rows it changes, for arbitration only: a parent row deleted (or its
// key updated) by a commit after the snapshot is then a conflict — the
// statement runs again on a new snapshot (READ COMMITTED, where its
// foreign-key check then fails) or fails with 40001.
func withShared(d *pendingState, shared map[string][]uint64) *pendingState {
	if len(shared) == 0 {
		return d
	}
	c := &pendingState{tables: map[string]*pendingTable{}}
	for n, p := range d.tables {
		c.tables[n] = p
	}
	for n, addrs := range shared {
		q := &pendingTable{deleted: &addrBits{}}
		if p := c.tables[n]; p != nil {
			q = p.clone()
			if q.deleted == nil {
				q.deleted = &addrBits{}
			}
		}
		for _, a := range addrs {
			q.deleted.add(a)
		}
		c.tables[n] = q
	}
	return c
}
