package planner

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/observe"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// maxLockRounds bounds how often one statement is recomputed after
// waiting for row locks (each round waited for a commit or rollback).
const maxLockRounds = 1000

// statementDelta is what one statement added to a pending state: the
// row addresses it newly deletes and the rows it newly inserts, per
// table (a pending state of its own, for arbitration).
func statementDelta(before, after *pendingState) *pendingState {
	d := &pendingState{}
	for name, p := range after.tables {
		if p.mode != modeRows {
			continue
		}
		q := &pendingTable{schema: p.schema, cols: p.cols}
		var was *pendingTable
		if before != nil {
			was = before.tables[name]
		}
		for a := range p.deleted.all() {
			if was == nil || !was.deleted.has(a) {
				if q.deleted == nil {
					q.deleted = &addrBits{}
				}
				q.deleted.add(a)
			}
		}
		q.inserts = p.inserts
		if was != nil && len(was.inserts) <= len(p.inserts) && slices.Equal(was.inserts, p.inserts[:len(was.inserts)]) {
			q.inserts = p.inserts[len(was.inserts):]
		}
		if !q.empty() {
			d.setTable(name, q)
		}
	}
	return d
}

// lockReq is one lock a statement takes, in the mode it takes it, or
// (bulk) many locks of one space taken as a bulk set.
type lockReq struct {
	key  string
	mode lockMode
	bulk *bulkReq
}

// lockKeys lists the row locks (rows deleted or updated, by address in
// base) and key locks (unique keys of inserted rows) of a delta, in a
// fixed order (by table, row locks before key locks). Row locks are FOR
// UPDATE, except those of table noKey (an UPDATE assigning none of its
// key columns, noKeyUpdateTable): FOR NO KEY UPDATE, as PostgreSQL takes
// them, so they do not conflict with FOR KEY SHARE. Past bulkLockMin
// locks of one space they are one bulk request (rowlocks_bulk.go); key
// columns are read record by record, so a staged record is read back
// one key column at a time.
func lockKeys(d *pendingState, base *catalog, noKey string) []lockReq {
	var keys []lockReq
	names := make([]string, 0, len(d.tables))
	for n := range d.tables {
		names = append(names, n)
	}
	slices.Sort(names)
	branch := base.sn.Branch
	for _, n := range names {
		p := d.tables[n]
		ti, ok := base.tables[n]
		if !ok {
			continue
		}
		rowMode := lockUpdate
		if n == noKey {
			rowMode = lockNoKeyUpdate
		}
		if p.deleted.len() >= bulkLockMin {
			// the delta's own bitmap (never changed once made)
			keys = append(keys, lockReq{mode: rowMode, bulk: &bulkReq{space: rowLockSpace(branch, ti.entry.ID, ti.entry.Incarnation), bits: p.deleted}})
		} else {
			for a := range p.deleted.all() {
				keys = append(keys, lockReq{key: rowLockKey(branch, ti.entry.ID, ti.entry.Incarnation, a), mode: rowMode})
			}
		}
		if len(p.inserts) == 0 {
			continue
		}
		uks := uniqueKeys(ti.def)
		if len(uks) == 0 {
			continue
		}
		var rows int64
		for _, rec := range p.inserts {
			rows += rec.NumRows()
		}
		bulk := rows >= bulkLockMin
		var kb []byte
		for _, uk := range uks {
			var ids []uint64
			for _, rec := range p.inserts {
				vecs, ok := keyVecs(rec, ti.def, uk.cols)
				if !ok {
					return keys
				}
				for i := 0; i < vecs[0].N; i++ {
					k, ok := keyOf(kb[:0], vecs, i)
					kb = k
					if !ok {
						continue
					}
					if bulk {
						ids = append(ids, keyLockID(k))
					} else {
						keys = append(keys, lockReq{key: keyLockKey(branch, ti.entry.ID, uk.name, k), mode: lockUpdate})
					}
				}
			}
			if len(ids) > 0 {
				keys = append(keys, lockReq{mode: lockUpdate, bulk: &bulkReq{space: keyLockSpace(branch, ti.entry.ID, uk.name), ids: sortedIDs(ids)}})
			}
		}
	}
	return keys
}

// keyVecs reads the key columns cols of a pending insert record
// (indexed like the table's columns; the others stay nil).
func keyVecs(rec arrow.RecordBatch, td *exec.TableDef, cols []int) ([]*exec.Vec, bool) {
	xr := execRecord(rec)
	out := make([]*exec.Vec, len(cols))
	for k, c := range cols {
		v, err := exec.VecFromArrow(xr.Column(c), td.Columns[c].Type)
		if err != nil {
			return nil, false
		}
		out[k] = v
	}
	return out, true
}

// noKeyUpdateTable is the target of an UPDATE that assigns none of the
// columns of its table's primary key and unique constraints (PostgreSQL
// then locks the rows FOR NO KEY UPDATE); "" for any other statement.
func noKeyUpdateTable(p *plan, base *catalog) string {
	if p == nil || p.node == nil {
		return ""
	}
	up := p.node.GetUpdateStmt()
	if up == nil || up.Relation == nil || (up.Relation.Schemaname != "" && up.Relation.Schemaname != "public") {
		return ""
	}
	ti, ok := base.tables[up.Relation.Relname]
	if !ok {
		return ""
	}
	keyCol := map[string]bool{}
	for _, uk := range uniqueKeys(ti.def) {
		for _, c := range uk.cols {
			keyCol[ti.def.Columns[c].Name] = true
		}
	}
	for _, t := range up.TargetList {
		rt := t.GetResTarget()
		if rt == nil || keyCol[rt.Name] {
			return ""
		}
	}
	return up.Relation.Relname
}

// acquireDelta takes a statement delta's locks (lockKeys, then the FOR
// KEY SHARE locks of the parent rows its new rows reference:
// fkShareLocks, whose addresses it returns as shared) in order, each run
// of one mode by one acquire. Like acquire, it stops at the first wait
// (waited: the statement runs again).
func (s *session) acquireDelta(ctx context.Context, owner *lockOwner, d *pendingState, base *catalog, noKey string, queue bool) (taken []string, shared map[string][]uint64, waited bool, err error) {
	reqs := lockKeys(d, base, noKey)
	fk, shared, err := s.fkShareLocks(ctx, d, base)
	if err != nil {
		return nil, nil, false, err
	}
	reqs = append(reqs, fk...)
	w := s.lockWaitOf(deltaRelation(d), base)
	w.queue = queue
	for i := 0; i < len(reqs); {
		if b := reqs[i].bulk; b != nil {
			got, waited, err := s.backend.rows.acquireBulk(ctx, owner, *b, reqs[i].mode, w)
			taken = append(taken, got...)
			if err != nil || waited {
				return taken, shared, waited, err
			}
			i++
			continue
		}
		j := i
		keys := []string{}
		for ; j < len(reqs) && reqs[j].bulk == nil && reqs[j].mode == reqs[i].mode; j++ {
			keys = append(keys, reqs[j].key)
		}
		got, _, waited, err := s.backend.rows.acquire(ctx, owner, keys, reqs[i].mode, w)
		taken = append(taken, got...)
		if err != nil || waited {
			return taken, shared, waited, err
		}
		i = j
	}
	return taken, shared, false, nil
}

// lockWaitOf is the session's lock_timeout for an acquisition on base
// (the tables' OIDs pg_locks shows; nil: derived from their ids).
func (s *session) lockWaitOf(relation string, base *catalog) lockWait {
	w := lockWait{relation: relation, pid: int32(s.info.ProcessID)}
	if base != nil && base.sn != nil {
		st := base.sn.State
		w.relOID = func(id uint64) uint32 {
			for _, e := range st.Tables {
				if e.ID == id && e.State == graph.Live {
					return e.RelOID()
				}
			}
			return 0
		}
	}
	if s.info.Settings != nil {
		w.timeout = s.info.Settings.Duration("lock_timeout")
	}
	return w
}

// deltaRelation names the first table of a delta (lock messages).
func deltaRelation(d *pendingState) string {
	names := make([]string, 0, len(d.tables))
	for n := range d.tables {
		names = append(names, n)
	}
	slices.Sort(names)
	if len(names) == 0 {
		return ""
	}
	return names[0]
}

// lockedWrite runs one writing statement of an explicit transaction
// under row locks: the statement runs against the transaction's
// snapshot (READ COMMITTED: a new one per statement), then locks the
// rows it changes and the unique keys it inserts. When it had to wait,
// or a row it changes was committed by someone else after its snapshot,
// the statement's changes are dropped and it runs again from a new
// snapshot (READ COMMITTED) or fails with 40001 (REPEATABLE READ,
// SERIALIZABLE) when the other transaction's commit conflicts.
func (s *session) lockedWrite(ctx context.Context, p *plan, params []any) (*writeOut, error) {
	tx := s.tx
	if tx.owner == nil {
		tx.owner = &lockOwner{}
	}
	locks := &s.backend.rows
	// a row it waited for stays locked while the statement runs again,
	// never past the statement (rowlocks_queue.go)
	defer locks.releaseQueued(tx.owner, true)
	var waitBase *catalog // the snapshot of the last run that waited
	for round := 0; ; round++ {
		base, err := s.txBase(ctx)
		if err != nil {
			return nil, err
		}
		before := tx.pend.clone()
		out, err := s.runWrite(withDupWait(ctx), newView(base, tx.pend), p, params)
		if dh := (*dupHeld)(nil); errors.As(err, &dh) {
			// READ COMMITTED waits for the writer of the committed row
			// holding the key and runs again when it had to (dupwait.go)
			err = dh.err
			if tx.perStatement() && round < maxLockRounds {
				taken, _, waited, werr := locks.acquire(ctx, tx.owner, dh.keys, lockShare, s.lockWaitOf(dh.relation, base))
				locks.release(tx.owner, taken)
				if werr != nil {
					tx.pend = before
					return nil, werr
				}
				if waited {
					tx.pend = before
					tx.base = nil
					continue
				}
			}
		}
		if err != nil && before.rowLevel() && before.hasWrites() {
			if we := (*wire.Error)(nil); errors.As(err, &we) && we.Code == pgerr.UniqueViolation {
				// a key this transaction inserted earlier was committed
				// meanwhile by another process (within the process its
				// key lock makes the other wait): the transaction cannot
				// commit, and a 23505 would blame the statement
				if c := s.pendingConflict(ctx, tx, before, base); c != nil {
					return nil, c
				}
			}
		}
		if err != nil || !tx.pend.rowLevel() || round >= maxLockRounds {
			return out, err
		}
		d := statementDelta(before, tx.pend)
		if len(d.tables) == 0 {
			return out, nil
		}
		locks.nextRound(tx.owner)
		taken, shared, waited, err := s.acquireDelta(ctx, tx.owner, d, base, noKeyUpdateTable(p, base), true)
		if err == nil {
			err = s.checkLockBudget(tx.owner, tx.pend)
		}
		if err != nil {
			locks.release(tx.owner, taken)
			tx.pend = before
			return nil, err
		}
		// every row it changes is locked now (or was, before the wait):
		// did a commit after the snapshot change one of them?
		_, head, err := s.head(ctx)
		if err != nil {
			return nil, err
		}
		since := func(name string) (graph.TableEntry, bool) {
			ti, ok := base.tables[name]
			if !ok {
				return graph.TableEntry{}, false
			}
			return ti.entry, true
		}
		conflict := s.arbitrateRows(ctx, withShared(d, shared), since, head, false)
		if !waited && conflict == nil {
			// a compaction published after the snapshot moved rows it
			// locked by their old addresses: lock them where they live
			// now too, so a writer on a newer snapshot waits for this one
			moved, mwaited, err := s.lockMoved(ctx, tx.owner, d, base, head, noKeyUpdateTable(p, base))
			taken = append(taken, moved...)
			if err != nil {
				locks.release(tx.owner, taken)
				tx.pend = before
				return nil, err
			}
			if !mwaited {
				if waitBase != nil {
					s.keepSuperseded(ctx, tx.owner, waitBase, base)
				}
				return out, nil
			}
			waited = true
		}
		if waited && conflict == nil && !tx.perStatement() {
			// it runs again on its snapshot, but the keys it removes are
			// checked against the committed references (fkcrosscheck.go)
			if err := s.fkCrosscheck(ctx, d, before, base, head); err != nil {
				locks.release(tx.owner, taken)
				tx.pend = before
				return nil, err
			}
		}
		if conflict != nil {
			if kc, ok := conflict.(keyConflict); ok && !onConflict(p) {
				// the key is taken by a committed row now: 23505, as
				// PostgreSQL at every isolation level
				conflict = kc.dup
			} else if kc, ok := conflict.(keyConflict); ok {
				conflict = kc.err
			}
			if we, ok := conflict.(*wire.Error); !ok || we.Code != pgerr.SerializationFailure {
				locks.release(tx.owner, taken)
				tx.pend = before
				return nil, conflict
			}
		}
		if !tx.perStatement() {
			if conflict != nil {
				locks.release(tx.owner, taken)
				tx.pend = before
				return nil, conflict
			}
			// the holder rolled back: run again on the same snapshot
		} else {
			tx.base = nil // READ COMMITTED: recompute on a new snapshot
		}
		locks.reruns.Add(1)
		observe.RowLockRerun()
		waitBase = base
		locks.release(tx.owner, locks.withoutQueued(tx.owner, taken))
		// the rows the run before this one waited for go to their next
		// waiters (this run's stay held while it runs again)
		locks.releaseQueued(tx.owner, false)
		tx.pend = before
	}
}

// lockMoved locks, for each row of d's deletes (single-row locks; bulk
// sets are left as they are) that a compaction published between base
// and head moved, the row's address on head in the same mode — the
// address a statement computed on a newer snapshot locks. waited: it
// had to wait (the caller runs the statement again).
func (s *session) lockMoved(ctx context.Context, owner *lockOwner, d *pendingState, base, head *catalog, noKey string) (taken []string, waited bool, err error) {
	branch := base.sn.Branch
	names := make([]string, 0, len(d.tables))
	for n := range d.tables {
		names = append(names, n)
	}
	slices.Sort(names) // the order lockKeys takes them in
	for _, name := range names {
		p := d.tables[name]
		ti, ok := base.tables[name]
		hi, ok2 := head.tables[name]
		if !ok || !ok2 || p.deleted.len() == 0 || p.deleted.len() >= bulkLockMin || ti.entry.Version == hi.entry.Version {
			continue
		}
		tc, err := s.committedSince(ctx, ti.entry, hi.entry)
		if err != nil || tc.coarse || !tc.moved() {
			continue // arbitration at COMMIT judges it (coarse: whole table)
		}
		mode := lockUpdate
		if name == noKey {
			mode = lockNoKeyUpdate
		}
		var keys []string
		for a := range p.deleted.all() {
			if to := tc.translate(a); to != a {
				keys = append(keys, rowLockKey(branch, hi.entry.ID, hi.entry.Incarnation, to))
			}
		}
		if len(keys) == 0 {
			continue
		}
		got, _, w, err := s.backend.rows.acquire(ctx, owner, keys, mode, s.lockWaitOf(name, head))
		taken = append(taken, got...)
		if err != nil || w {
			return taken, w, err
		}
	}
	return taken, false, nil
}

// lockedAutocommit takes the row locks of an autocommit statement's
// changes (held until it published); it reports whether the statement
// must be recomputed (it waited, or a row it changes moved since base).
func (s *session) lockedAutocommit(ctx context.Context, owner *lockOwner, p *plan, pend *pendingState, base *catalog) (bool, error) {
	if !pend.rowLevel() {
		return false, nil
	}
	d := statementDelta(nil, pend)
	if len(d.tables) == 0 {
		return false, nil
	}
	taken, _, waited, err := s.acquireDelta(ctx, owner, d, base, noKeyUpdateTable(p, base), false)
	if err == nil {
		err = s.checkLockBudget(owner, pend)
	}
	if err != nil {
		s.backend.rows.releaseAll(owner)
		return false, err
	}
	if waited {
		s.backend.rows.release(owner, taken)
		return true, nil
	}
	return false, nil
}

// rowsCommute reports whether pend, computed against base, can be
// staged unchanged on head: nothing committed in between deleted a row
// it deletes or inserted a unique key it inserts.
func (s *session) rowsCommute(ctx context.Context, pend *pendingState, base, head *catalog) bool {
	if !pend.rowLevel() || len(pend.ddl) > 0 {
		return false
	}
	since := func(name string) (graph.TableEntry, bool) {
		ti, ok := base.tables[name]
		if !ok {
			return graph.TableEntry{}, false
		}
		return ti.entry, true
	}
	return s.arbitrateRows(ctx, pend, since, head, false) == nil
}

// onConflict reports an INSERT … ON CONFLICT.
func onConflict(p *plan) bool {
	ins := p.node.GetInsertStmt()
	return ins != nil && ins.OnConflictClause != nil
}

// rowLockBytes is the memory one held row or key lock takes (its lock
// table entry, holder set and wake channel, and the owner's entry),
// measured on a 1M-row transaction. A statement's locks past
// bulkLockMin of one table take a bit a row or bulkLockBytes a key
// instead (rowlocks_bulk.go).
const rowLockBytes = 640

// checkLockBudget fails with 53200 when a transaction's row locks and
// pending rows together exceed the session memory limit: the lock table
// lives in memory, so a transaction changing millions of rows is bounded
// by the same budget as its pending rows.
func (s *session) checkLockBudget(o *lockOwner, pend *pendingState) error {
	held := s.backend.rows.heldBytes(o)
	noteLockBytes(held)
	lim := s.memLimit
	if lim <= 0 || held+pend.bytes <= lim {
		return nil
	}
	n := s.backend.rows.heldCount(o)
	return wire.Errorf(pgerr.OutOfMemory, "out of memory").
		WithDetail(fmt.Sprintf("the transaction holds %d row locks; with its pending rows they exceed the session memory limit (%d bytes)", n, lim)).
		WithHint("Commit in smaller transactions, or COPY outside a transaction block (it then streams).")
}

// pendingConflict is the 40001 of a transaction whose changes before
// this statement (pend) already conflict with what committed by head,
// or nil when they still commute with it.
func (s *session) pendingConflict(ctx context.Context, tx *txState, pend *pendingState, head *catalog) error {
	err := s.arbitrateRows(ctx, pend, tx.since, head, false)
	if kc, ok := err.(keyConflict); ok {
		return kc.err
	}
	if we, ok := err.(*wire.Error); ok && we.Code == pgerr.SerializationFailure {
		return we
	}
	return nil
}
