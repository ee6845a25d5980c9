package planner

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5/pgtype"
	"google.golang.org/protobuf/proto"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/wire"
)

// SELECT … FOR UPDATE / FOR NO KEY UPDATE / FOR SHARE / FOR KEY SHARE
// [NOWAIT | SKIP LOCKED] in an explicit transaction, over one table:
// the rows it returns are locked in the row-lock table (rowlocks.go) in
// PostgreSQL's strength, in the query's order, until the transaction
// ends. A LIMIT counts only the rows returned (SKIP LOCKED skips locked
// rows before the limit, as job queues expect). A wait for a row makes
// the query run again on a new snapshot (READ COMMITTED) or fail with
// 40001 when the row was changed (REPEATABLE READ, SERIALIZABLE). Other
// shapes (joins, OFFSET, set operations, an expression LIMIT) keep the
// table-level optimistic lock.

// lockingShape is what a handled locking SELECT needs.
type lockingShape struct {
	sql      string // the query with _rowaddr first, without locking or LIMIT
	table    string
	mode     lockMode
	noWait   bool
	skip     bool
	limit    int64 // -1: none
	limitArg int   // 1-based parameter of LIMIT $n (0: none)
}

func lockingSelectShape(p *plan) (*lockingShape, bool) {
	sel := p.node.GetSelectStmt()
	if sel == nil || len(sel.LockingClause) != 1 || len(sel.FromClause) != 1 || sel.WithClause != nil ||
		sel.Op != sqlparse.SetOperation_SETOP_NONE || len(sel.GroupClause) > 0 || len(sel.DistinctClause) > 0 ||
		sel.LimitOffset != nil || len(sel.ValuesLists) > 0 || sel.HavingClause != nil {
		return nil, false
	}
	rv := sel.FromClause[0].GetRangeVar()
	if rv == nil || (rv.Schemaname != "" && rv.Schemaname != "public") {
		return nil, false
	}
	lc := sel.LockingClause[0].GetLockingClause()
	if lc == nil {
		return nil, false
	}
	sh := &lockingShape{table: rv.Relname, limit: -1}
	switch lc.Strength {
	case sqlparse.LockClauseStrength_LCS_FORKEYSHARE:
		sh.mode = lockKeyShare
	case sqlparse.LockClauseStrength_LCS_FORSHARE:
		sh.mode = lockShare
	case sqlparse.LockClauseStrength_LCS_FORNOKEYUPDATE:
		sh.mode = lockNoKeyUpdate
	default:
		sh.mode = lockUpdate
	}
	sh.noWait = lc.WaitPolicy == sqlparse.LockWaitPolicy_LockWaitError
	sh.skip = lc.WaitPolicy == sqlparse.LockWaitPolicy_LockWaitSkip
	if lc := sel.LimitCount; lc != nil {
		switch {
		case lc.GetAConst() != nil && lc.GetAConst().GetIval() != nil:
			sh.limit = int64(lc.GetAConst().GetIval().GetIval())
		case lc.GetAConst() != nil && lc.GetAConst().GetIsnull():
		case lc.GetParamRef() != nil:
			sh.limitArg = int(lc.GetParamRef().GetNumber())
		default:
			return nil, false
		}
	}
	alias := rv.Relname
	if rv.Alias != nil && rv.Alias.Aliasname != "" {
		alias = rv.Alias.Aliasname
	}
	addr, err := parseExpr(quoteIdent(alias) + "._rowaddr")
	if err != nil {
		return nil, false
	}
	clone := proto.Clone(p.node).(*sqlparse.Node)
	cs := clone.GetSelectStmt()
	cs.LockingClause, cs.LimitCount = nil, nil
	cs.LimitOption = sqlparse.LimitOption_LIMIT_OPTION_DEFAULT
	cs.TargetList = append([]*sqlparse.Node{{Node: &sqlparse.Node_ResTarget{ResTarget: &sqlparse.ResTarget{Val: addr}}}}, cs.TargetList...)
	if sh.sql, err = deparseStmt(clone); err != nil {
		return nil, false
	}
	return sh, true
}

// lockingSelect runs a handled locking SELECT (ok false: not handled).
func (s *session) lockingSelect(ctx context.Context, p *plan, params []any) (wire.Result, bool, error) {
	sh, ok := lockingSelectShape(p)
	if !ok {
		return nil, false, nil
	}
	limit := sh.limit
	if sh.limitArg > 0 {
		if sh.limitArg > len(params) {
			return nil, false, nil
		}
		if params[sh.limitArg-1] != nil {
			n, err := strconv.ParseInt(fmt.Sprint(params[sh.limitArg-1]), 10, 64)
			if err != nil {
				return nil, false, nil
			}
			limit = n
		}
	}
	tx := s.tx
	if tx.owner == nil {
		tx.owner = &lockOwner{}
	}
	locks := &s.backend.rows
	wait := s.lockWaitOf(sh.table, nil)
	wait.noWait, wait.skipLocked = sh.noWait, sh.skip
	for round := 0; ; round++ {
		base, err := s.txBase(ctx)
		wait.relOID = s.lockWaitOf(sh.table, base).relOID
		if err != nil {
			return nil, true, err
		}
		ti, ok := base.tables[sh.table]
		if !ok {
			return nil, false, nil
		}
		tx.pend.markRead(sh.table)
		w := &writer{s: s, v: newView(base, tx.pend), params: params, ctx: ctx, sql: p.sql}
		rows, ecols, err := w.query(sh.sql)
		if err != nil {
			return nil, true, err
		}
		var taken []string
		var keep []int32
		locked := &pendingTable{deleted: &addrBits{}}
		waited := false
		n := 0
		if len(rows) > 0 {
			n = rows[0].N
		}
		for i := 0; i < n && (limit < 0 || int64(len(keep)) < limit); i++ {
			a := uint64(rows[0].I[i])
			if a&pendingAddrBit != 0 {
				keep = append(keep, int32(i)) // the transaction's own new row
				continue
			}
			key := rowLockKey(base.sn.Branch, ti.entry.ID, ti.entry.Incarnation, a)
			tk, skipped, w8, err := locks.acquire(ctx, tx.owner, []string{key}, sh.mode, wait)
			taken = append(taken, tk...)
			if err != nil {
				return nil, true, err
			}
			if w8 {
				waited = true
				break
			}
			if skipped[key] {
				continue
			}
			locked.deleted.add(a)
			keep = append(keep, int32(i))
		}
		if !waited {
			if locked.deleted.len() == 0 {
				return lockedRows(s, ecols, rows, keep), true, nil
			}
			// a row locked now may have been changed by a commit after
			// the snapshot (its writer released before we asked)
			_, head, err := s.head(ctx)
			if err != nil {
				return nil, true, err
			}
			d := &pendingState{}
			d.setTable(sh.table, locked)
			conflict := s.arbitrateRows(ctx, d, func(name string) (graph.TableEntry, bool) {
				t, ok := base.tables[name]
				return t.entry, ok
			}, head, false)
			if conflict == nil {
				return lockedRows(s, ecols, rows, keep), true, nil
			}
			if !tx.perStatement() {
				locks.release(tx.owner, taken)
				return nil, true, conflict
			}
		}
		// READ COMMITTED runs again on a new snapshot; REPEATABLE READ
		// on its own, where a row the holder changed is then a conflict
		locks.release(tx.owner, taken)
		if tx.perStatement() {
			tx.base = nil
		}
		if round >= maxLockRounds {
			return nil, true, serializationFailure(fmt.Sprintf("rows of table %q kept changing while they were being locked", sh.table))
		}
	}
}

// lockedRows is the locking SELECT's answer: the kept rows without
// their address column.
func lockedRows(s *session, ecols []exec.Column, rows []*exec.Vec, keep []int32) wire.Result {
	out := &writeOut{tag: fmt.Sprintf("SELECT %d", len(keep)), cols: columns(ecols[1:])}
	cc := &cellCodec{m: pgtype.NewMap(), loc: s.location(), style: s.dateStyle()}
	for _, i := range keep {
		row := make([]any, len(rows)-1)
		for c, v := range rows[1:] {
			row[c] = cc.value(v, int(i))
		}
		out.rows = append(out.rows, row)
	}
	return out.result()
}
