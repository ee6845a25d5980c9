package planner

import (
	"context"
	"errors"

	"github.com/pggraph/pggraph/access"
	"github.com/pggraph/pggraph/graph"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// Role statements inside a transaction block (CREATE/ALTER/DROP ROLE,
// GRANT/REVOKE role, GRANT … ON DATABASE|SCHEMA, ALTER DEFAULT
// PRIVILEGES) are transactional, as PostgreSQL's: each is applied to
// the transaction's own copy of the role catalog when it runs (its
// errors and notices come then, and the transaction's later statements
// see the change: privilege checks, pg_roles, SET ROLE), and the list
// of them is kept. COMMIT publishes them as one new catalog version,
// applying them again, in order, to the newest catalog (recompute,
// never patch: package access); ROLLBACK, or ROLLBACK TO a savepoint
// taken before them, forgets them. Nobody else sees them before COMMIT.
//
// COMMIT of a transaction that also writes the graph makes the two one
// visibility point: the role changes are published as a pending catalog
// version naming the graph commit by an id minted first, and take
// effect exactly when that commit is on the branch (access/pending.go,
// docs/architecture.md); a failed commit (40001) leaves them unseen and
// decided away.

// stagedRole is one role statement of the transaction.
type stagedRole struct {
	node *q.Node
	sql  string
}

// txRoleCatalog is cur with the transaction's role statements applied
// (cached per catalog version and statement count).
func (s *session) txRoleCatalog(ctx context.Context, cur *access.Catalog) (*access.Catalog, error) {
	tx := s.tx
	if tx == nil || len(tx.roles) == 0 {
		return cur, nil
	}
	if tx.roleCat != nil && tx.roleCatOf == cur.Version && tx.roleCatN == len(tx.roles) {
		return tx.roleCat, nil
	}
	next, err := s.applyRoles(cur, tx.roles, nil)
	if err != nil {
		return nil, err
	}
	tx.roleCat, tx.roleCatOf, tx.roleCatN = next, cur.Version, len(tx.roles)
	return next, nil
}

// applyRoles applies role statements to a copy of cur (seeding a root
// without roles, as the first published change does).
func (s *session) applyRoles(cur *access.Catalog, stmts []stagedRole, notice func(*wire.Error)) (*access.Catalog, error) {
	next := cur.Clone()
	if cur.Bootstrap() {
		if err := s.seedRoles(next); err != nil {
			return nil, err
		}
		// a copy, not a published version: not the bootstrap state
		// either, so the transaction's checks use it
		next.Version = cur.Version + 1
	}
	if notice == nil {
		notice = func(*wire.Error) {}
	}
	for _, st := range stmts {
		rc := &roleChange{s: s, c: next, sql: st.sql, notice: notice}
		if err := rc.apply(st.node); err != nil && err != access.ErrNoChange {
			return nil, err
		}
	}
	return next, nil
}

// stageRole runs a role statement inside a transaction block.
func (s *session) stageRole(ctx context.Context, p *plan, tag string) (wire.Result, error) {
	c, err := s.roleCatalog(ctx) // the transaction's view, earlier statements applied
	if err != nil {
		return nil, err
	}
	var notices []*wire.Error
	st := stagedRole{node: p.node, sql: p.sql}
	next, err := s.applyRoles(c, []stagedRole{st}, func(e *wire.Error) { notices = append(notices, e) })
	if err != nil {
		return nil, err
	}
	s.tx.roles = append(s.tx.roles, st)
	s.tx.roleCat, s.tx.roleCatN = next, len(s.tx.roles)
	if cur, err := s.access.Current(ctx); err == nil {
		s.tx.roleCatOf = cur.Version
	} else {
		s.tx.roleCat = nil
	}
	for _, n := range notices {
		if s.info.Notice != nil {
			s.info.Notice(n)
		}
	}
	return &tagResult{tag: tag}, nil
}

// publishTxRoles publishes the transaction's role statements at COMMIT
// of a transaction that makes no graph commit (s.tx is still the
// transaction, so checks such as DROP ROLE's dependents see its pending
// writes).
func (s *session) publishTxRoles(ctx context.Context, tx *txState) error {
	if len(tx.roles) == 0 || s.access == nil {
		return nil
	}
	_, err := s.access.Update(ctx, s.seedRoles, s.replayRoles(tx))
	return roleCatalogError(err)
}

// stageTxRoles publishes the transaction's role statements as a pending
// version that takes effect with the transaction's graph commit, whose
// id it mints (access/pending.go); settleTxRoles decides it.
func (s *session) stageTxRoles(ctx context.Context, tx *txState) error {
	if len(tx.roles) == 0 || s.access == nil {
		return nil
	}
	head, err := s.root.Head(ctx, tx.base.sn.Branch)
	if err != nil {
		return writeError(err)
	}
	p := s.access.NewPending(head.Branch, head.Incarnation, head.Version, graph.NewID())
	if _, err := s.access.Stage(ctx, s.seedRoles, s.replayRoles(tx), p); err != nil {
		return roleCatalogError(err)
	}
	tx.rolePending = p
	return nil
}

// settleTxRoles publishes the decision of the transaction's pending role
// version once its graph commit is made (ok) or failed (then the graph
// decides: a failed write is recovered before its lineage is asked). A
// decision not published here is taken by the next reader or writer of
// the catalog from the lineage, so COMMIT's answer does not depend on it.
func (s *session) settleTxRoles(ctx context.Context, tx *txState, ok bool) {
	_ = s.access.Settle(context.WithoutCancel(ctx), tx.rolePending.CommitID, ok)
}

// roleCommitID is the id the transaction's graph commit must carry ("":
// any).
func (tx *txState) roleCommitID() string {
	if tx.rolePending == nil {
		return ""
	}
	return tx.rolePending.CommitID
}

// roleLease refuses to stage the graph commit of pending role changes
// whose owner lease ran out (another process may have decided them).
func (tx *txState) roleLease() error {
	if tx.rolePending == nil || access.LeaseHeld(tx.rolePending) {
		return nil
	}
	return wire.Errorf(pgerr.SerializationFailure, "could not serialize access due to concurrent update").
		WithDetail("The transaction's role changes waited too long for its commit.")
}

// replayRoles applies the transaction's role statements, in order, to
// the newest catalog (recompute, never patch).
func (s *session) replayRoles(tx *txState) func(*access.Catalog) error {
	return func(c *access.Catalog) error {
		for _, st := range tx.roles {
			rc := &roleChange{s: s, c: c, sql: st.sql, notice: func(*wire.Error) {}}
			if err := rc.apply(st.node); err != nil && err != access.ErrNoChange {
				return err
			}
		}
		return nil
	}
}

// roleCatalogError is the SQL error of a failed role catalog change.
func roleCatalogError(err error) error {
	switch {
	case err == nil || errors.Is(err, access.ErrNoChange):
		return nil
	case errors.Is(err, access.ErrPendingBusy):
		return wire.Errorf(pgerr.LockNotAvailable, "could not change the role catalog: another transaction is committing role changes")
	}
	if _, ok := err.(*wire.Error); ok {
		return err
	}
	return wire.Errorf(pgerr.IOError, "could not publish the role catalog").WithDetail(err.Error())
}
