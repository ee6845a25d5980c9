package planner

import (
	"context"
	"errors"
	"github.com/pggraph/pggraph/access"
	"slices"
	"strings"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/planner/ddl"
	"github.com/pggraph/pggraph/protocol"
	"github.com/pggraph/pggraph/wire"
)

// txState is the session's open transaction. wire keeps the PostgreSQL
// state machine (idle, implicit, block, failed) and calls the hooks; this
// is the data behind it.
//
// An explicit transaction pins its base snapshot at its first statement
// (not at BEGIN, as PostgreSQL takes its snapshot at the first query),
// runs every statement against base + pending changes (READ COMMITTED:
// a new base per statement), and publishes the pending changes at COMMIT
// as one graph write, arbitrated at row level (commitRows) or, with DDL,
// strictly: any change since the pin to a table it read or wrote fails
// COMMIT with 40001.
//
// An implicit (autocommit) transaction publishes each writing statement
// at once, before answering, so a read-set change before the effects is
// re-prepared transparently (bounded) instead of failing. A writing
// statement that shares its implicit transaction with others (an
// extended-protocol pipeline before Sync, wire.InPipeline, or a
// multi-statement simple query) turns it into a pending one like an
// explicit block: everything publishes at Commit (Sync / end of query)
// as one commit, and an error rolls it all back.
type txState struct {
	implicit bool
	readOnly bool
	iso      string     // isolation level, fixed at the first statement (isolation.go)
	owner    *lockOwner // row and key locks held (rowlocks.go)
	base     *catalog   // nil until the first statement
	// pinned is the last base pinned (READ COMMITTED re-pins per
	// statement; base is nil in between)
	pinned *catalog
	pend   *pendingState
	saves  []savepoint
	// roles are the transaction's role statements, published at COMMIT
	// (roles_txn.go); roleCat caches the catalog they make, built on
	// version roleCatOf from roleCatN of them
	roles     []stagedRole
	roleCat   *access.Catalog
	roleCatOf uint64
	roleCatN  int
	// rolePending marks the role catalog version COMMIT published for
	// them, taking effect with the graph commit it names
	rolePending *access.Pending
}

type savepoint struct {
	name  string
	pend  *pendingState
	roles int // len(roles) when it was taken
}

// Begin implements wire.Session.
func (s *session) Begin(_ context.Context, opts wire.TxOptions) error {
	s.tx = &txState{implicit: opts.Implicit, readOnly: opts.ReadOnly, pend: newPendingState()}
	return nil
}

// txBase pins the transaction's snapshot at its first statement.
func (s *session) txBase(ctx context.Context) (*catalog, error) {
	if s.tx.base != nil {
		return s.tx.base, nil
	}
	_, c, err := s.head(ctx)
	if err != nil {
		return nil, err
	}
	if tx := s.tx; tx.pinned != nil && tx.pend.rowLevel() {
		// a new snapshot of a READ COMMITTED transaction: the rows it
		// deletes may have moved (a compaction since its last one)
		from := func(name string) (graph.TableEntry, bool) {
			if e, ok := tx.pend.since[name]; ok {
				return e, true
			}
			return pinsOf(tx.pinned)(name)
		}
		pend, err := s.rebaseDeletes(ctx, tx.pend, from, c)
		if err != nil {
			return nil, err
		}
		tx.pend = pend
	}
	s.tx.base, s.tx.pinned = c, c
	if s.tx.iso == "" {
		s.tx.iso = s.isolation()
	}
	if s.tx.serializable() && s.tx.pend.at == nil {
		// reads without pending writes run on c itself (no view): the
		// read set's pins come from it (readset.go)
		s.tx.pend.at = c
	}
	return c, nil
}

// Commit implements wire.Session: an explicit transaction's pending
// changes become one graph commit (nothing to do for autocommit: each
// statement already published).
func (s *session) Commit(ctx context.Context) error {
	s.endTxCursors()
	tx := s.tx
	if tx == nil {
		return nil
	}
	defer s.endPending(tx.pend)
	defer s.endXactLocks()
	// row locks end after the publish: a waiter wakes up to the new rows
	defer s.backend.rows.releaseAll(tx.owner)
	// role statements (roles_txn.go) are published while s.tx is still
	// the transaction, so their checks see its pending writes
	defer func() { s.tx = nil }()
	roles := !tx.implicit && len(tx.roles) > 0
	if tx.implicit || tx.base == nil || (!tx.pend.hasWrites() && len(tx.pend.locks) == 0) {
		if roles {
			return s.publishTxRoles(ctx, tx)
		}
		return nil
	}
	// temporary tables stay the session's, never published; they take
	// their new state only when the rest committed (temp_tables.go)
	temp, err := s.splitTemp(ctx, tx.base, tx.pend)
	if err != nil {
		return err
	}
	if !tx.pend.hasWrites() && len(tx.pend.locks) == 0 {
		s.installTemp(temp)
		if roles {
			return s.publishTxRoles(ctx, tx)
		}
		return nil
	}
	if !tx.pend.hasWrites() {
		// FOR UPDATE/SHARE without writes: the locked tables must be
		// unchanged at COMMIT (optimistic locking).
		if err := s.verifyUnchanged(ctx, tx); err != nil {
			return err
		}
		s.installTemp(temp)
		if roles {
			return s.publishTxRoles(ctx, tx)
		}
		return nil
	}
	if err := (&writer{s: s, v: newView(tx.base, tx.pend), ctx: ctx}).checkMinOut(); err != nil {
		return err
	}
	if roles {
		// the role changes take effect with the graph commit
		// (roles_txn.go): published pending on it, decided after it
		if err := s.stageTxRoles(ctx, tx); err != nil {
			return err
		}
	}
	s.tx = nil
	var rc *protocol.Receipt
	switch {
	case tx.pend.merge != nil:
		rc, err = s.publishMerge(ctx, tx)
	case tx.pend.rowLevel():
		rc, err = s.commitRows(ctx, tx)
	default:
		rc, err = s.g.Write(ctx, s.writeOptions(adapters.WriteOptions{Branch: tx.base.sn.Branch, Message: s.commitMessage(), Strict: true, Base: tx.base.sn, CommitID: tx.roleCommitID()}),
			func(ctx context.Context, st *adapters.Stage) error {
				if err := tx.roleLease(); err != nil {
					return err
				}
				return flush(st, tx.pend)
			})
	}
	if tx.rolePending != nil {
		s.settleTxRoles(ctx, tx, err == nil)
	}
	if err != nil {
		return writeError(err)
	}
	s.committed(rc)
	s.installTemp(temp)
	return nil
}

// verifyUnchanged fails with 40001 when a table the transaction locked
// moved since its snapshot.
func (s *session) verifyUnchanged(ctx context.Context, tx *txState) error {
	head, err := s.root.Head(ctx, tx.base.sn.Branch)
	if err != nil {
		return writeError(err)
	}
	for name := range tx.pend.locks {
		was, ok1 := tx.base.sn.State.TableByName(name)
		now, ok2 := head.State.TableByName(name)
		if ok1 && ok2 && was.Version != now.Version && was.Incarnation == now.Incarnation && was.Branch == now.Branch {
			// compactions move rows without changing them
			if tc, err := s.committedSince(ctx, was, now); err == nil && tc.onlyMoved() {
				continue
			}
		}
		if ok1 != ok2 || (ok1 && (was.Version != now.Version || was.Incarnation != now.Incarnation || was.Branch != now.Branch)) {
			return wire.Errorf(pgerr.SerializationFailure, "could not serialize access due to concurrent update").
				WithDetail("table \"" + name + "\" locked FOR UPDATE/SHARE changed since the transaction's snapshot")
		}
	}
	return nil
}

// Rollback implements wire.Session.
func (s *session) Rollback(context.Context) error {
	s.endTxCursors()
	s.endXactLocks()
	if s.tx != nil {
		s.backend.rows.releaseAll(s.tx.owner)
		s.endPending(s.tx.pend)
	}
	s.tx = nil
	return nil
}

// Savepoint implements wire.Session: a copy of the pending state.
func (s *session) Savepoint(_ context.Context, name string) error {
	if s.tx == nil {
		return nil
	}
	s.tx.saves = append(s.tx.saves, savepoint{name: name, pend: s.tx.pend.clone(), roles: len(s.tx.roles)})
	return nil
}

// ReleaseSavepoint implements wire.Session: the savepoint and every later
// one are forgotten; the changes stay.
func (s *session) ReleaseSavepoint(_ context.Context, name string) error {
	if s.tx == nil {
		return nil
	}
	if i := s.findSave(name); i >= 0 {
		s.tx.saves = s.tx.saves[:i]
	}
	return nil
}

// RollbackToSavepoint implements wire.Session: the pending state returns
// to the copy taken at the savepoint, which stays defined. Reads made
// after it stay in the read set (they were answered).
func (s *session) RollbackToSavepoint(_ context.Context, name string) error {
	if s.tx == nil {
		return nil
	}
	i := s.findSave(name)
	if i < 0 {
		return nil
	}
	reads, locks, since, readLog := s.tx.pend.reads, s.tx.pend.locks, s.tx.pend.since, s.tx.pend.readLog
	s.tx.pend = s.tx.saves[i].pend.clone()
	s.tx.roles, s.tx.roleCat = s.tx.roles[:s.tx.saves[i].roles], nil // roles_txn.go
	for k, e := range since {
		if _, ok := s.tx.pend.since[k]; !ok {
			if s.tx.pend.since == nil {
				s.tx.pend.since = map[string]graph.TableEntry{}
			}
			s.tx.pend.since[k] = e
		}
	}
	for k := range reads {
		s.tx.pend.markRead(k)
	}
	// the rolled-back statements' reads stay in the read set, as they
	// were recorded (a superset of the savepoint's)
	s.tx.pend.readLog, s.tx.pend.stmtLog = cloneReadLog(readLog), nil
	for k := range locks {
		s.tx.pend.markLock(k)
	}
	s.tx.pend.bump()
	s.tx.saves = s.tx.saves[:i+1]
	return nil
}

func (s *session) findSave(name string) int {
	for i := len(s.tx.saves) - 1; i >= 0; i-- {
		if s.tx.saves[i].name == name {
			return i
		}
	}
	return -1
}

// Close implements wire.Session.
func (s *session) Close() error {
	s.closed = true
	if s.releaseLogin != nil {
		s.releaseLogin()
		s.releaseLogin = nil
	}
	s.stopRunner()
	s.endXactLocks()
	defer s.endTemp()
	if s.tx != nil && s.backend != nil {
		s.backend.rows.releaseAll(s.tx.owner)
	}
	if s.tx != nil {
		s.endPending(s.tx.pend)
	}
	s.tx = nil
	if s.advisory != nil {
		s.advisory.Close()
	}
	return nil
}

// flush stages a pending state: deletes by address in the base version,
// inserts as Arrow batches, and a probe for every table read.
func flush(st *adapters.Stage, pend *pendingState) error {
	for _, p := range pend.tables {
		p.flushed = false
	}
	if err := flushDDL(st, pend); err != nil {
		return err
	}
	names := make([]string, 0, len(pend.tables))
	for n := range pend.tables {
		names = append(names, n)
	}
	slices.Sort(names)
	written := map[string]bool{}
	for _, n := range names {
		p := pend.tables[n]
		if p.empty() {
			continue
		}
		written[n] = true
		switch p.mode {
		case modeReplaced:
			if p.flushed {
				continue
			}
		case modeTruncated:
			if err := st.Truncate(n); err != nil {
				return err
			}
		}
		if p.deleted.len() > 0 && p.mode == modeRows {
			addrs := slices.AppendSeq(make([]uint64, 0, p.deleted.len()), p.deleted.all())
			if err := st.Delete(n, addrs); err != nil {
				return err
			}
		}
		switch {
		case p.hasStaged():
			// streamed from the staged file record by record; not a
			// group-commit member (its key claims would read every row)
			if err := st.Insert(n, adapters.Batches(p.schema, p.inserts...)); err != nil {
				return err
			}
		case len(p.inserts) > 0:
			if err := st.InsertBatches(n, p.schema, p.inserts...); err != nil {
				return err
			}
		}
	}
	touched := map[string]bool{} // the DDL itself puts these in the read set
	for _, ch := range pend.ddl {
		switch c := ch.(type) {
		case *ddl.CreateTable:
			touched[c.Name] = true
		case *ddl.DropTable:
			touched[c.Name] = true
		case *ddl.AlterTable:
			touched[c.Name], touched[c.NewName] = true, true
		}
	}
	for n := range pend.reads {
		if written[n] || touched[n] {
			continue
		}
		if _, ok := st.Base().State.TableByName(n); !ok {
			continue
		}
		if err := st.Probe(n); err != nil {
			return err
		}
	}
	return nil
}

// commitMessage is SET graph.commit_message (consumed by the next commit).
func (s *session) commitMessage() string {
	if s.info.Settings == nil {
		return ""
	}
	m, _ := s.info.Settings.Get("graph.commit_message")
	return m
}

// committed records a successful commit: SHOW graph.last_commit answers
// its id, and the commit message is consumed.
func (s *session) committed(rc *protocol.Receipt) {
	if s.info.Settings == nil || rc == nil {
		return
	}
	_, _ = s.info.Settings.Set("graph.last_commit", rc.CommitID, false)
	if m, ok := s.info.Settings.Get("graph.commit_message"); ok && m != "" {
		_, _ = s.info.Settings.Set("graph.commit_message", "", false)
	}
}

// writeError maps a write-path error to the client's SQLSTATE and a
// PostgreSQL-style message.
func writeError(err error) error {
	var we *wire.Error
	if errors.As(err, &we) {
		return err
	}
	var pe *protocol.Error
	if errors.As(err, &pe) {
		code := pe.SQLState()
		msg := pe.Message
		detail := pe.Detail
		switch pe.Kind {
		case protocol.KindReadSetChanged:
			msg = "could not serialize access due to concurrent update"
			// the protocol's message names the table by its SQL name;
			// Member holds internal table ids, which never reach clients
			detail = pe.Message
			if strings.Contains(detail, "table  ") {
				detail = "a table the transaction read or wrote was dropped or replaced since its snapshot"
			}
		case protocol.KindRecoveryRequired, protocol.KindUncoveredDrift:
			if pe.OperationID != "" {
				detail = "operation " + pe.OperationID
			}
		}
		w := wire.Errorf(code, "%s", msg)
		w.Detail, w.Cause = detail, err
		return w
	}
	if c := protocol.SQLState(err); c != pgerr.InternalError {
		return wire.Errorf(c, "%s", err.Error())
	}
	// (the cause names object keys, internal paths: it goes to the log,
	// not to the client; a storage failure in it becomes 53100/58030)
	return &wire.Error{Code: pgerr.InternalError, Message: "the write failed", Cause: err}
}

// commitMaxReprepare bounds how often a COMMIT is staged again because
// a table it touches moved between staging and the manifest CAS (each
// time re-arbitrated at row level against the newer head).
const commitMaxReprepare = 64

// commitRows publishes a transaction whose changes are rows only (no
// DDL, no truncation or rewrite): arbitrated at row level against every
// head it is staged on (writeset.go) and staged anew on that head
// (recompute, never patch: the pending rows are the transaction's
// logical changes; deletes name row addresses, which no commit reuses).
func (s *session) commitRows(ctx context.Context, tx *txState) (*protocol.Receipt, error) {
	since := tx.since
	// concurrent COMMITs share one graph commit where no member can
	// invalidate another unseen (group.go); each member is arbitrated
	// against the group's base by the function below
	group := !tx.serializable() && groupable(tx.base, tx.pend) && tx.rolePending == nil
	return s.g.Write(ctx, s.writeOptions(adapters.WriteOptions{Branch: tx.base.sn.Branch, Message: s.commitMessage(), MaxReprepare: commitMaxReprepare, Group: group, CommitID: tx.roleCommitID()}),
		func(ctx context.Context, st *adapters.Stage) error {
			if err := tx.roleLease(); err != nil {
				return err
			}
			head, err := s.catalogOf(ctx, st.Base())
			if err != nil {
				return err
			}
			if err := s.arbitrateRows(ctx, tx.pend, since, head, tx.serializable()); err != nil {
				if kc, ok := err.(keyConflict); ok {
					return kc.err
				}
				return err
			}
			// deletes name rows by address: where they live on head
			pend, err := s.rebaseDeletes(ctx, tx.pend, since, head)
			if err != nil {
				return err
			}
			return flush(st, pend)
		})
}

// since is the pin at which the transaction first read or wrote a table
// (row-level arbitration compares what committed after it).
func (tx *txState) since(name string) (graph.TableEntry, bool) {
	if e, ok := tx.pend.since[name]; ok {
		return e, true
	}
	ti, ok := tx.base.tables[name]
	if !ok {
		return graph.TableEntry{}, false
	}
	return ti.entry, true
}
