package planner

import (
	"context"
	"sync"
	"time"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/planner/ddl"
	"github.com/pggraph/pggraph/wire"
)

// advisoryLocks are PostgreSQL advisory locks within this process: a
// lock held by one session blocks other sessions of the same process
// only. Several pgproxy processes over one root do not see each other's
// advisory locks (documented limit); table writes stay safe regardless,
// because commits are arbitrated by the write protocol.
type advisoryLocks struct {
	mu     sync.Mutex
	owner  map[int64]*session
	notify chan struct{} // closed and replaced on every release
}

func newAdvisoryLocks() *advisoryLocks {
	return &advisoryLocks{owner: map[int64]*session{}, notify: make(chan struct{})}
}

// try takes key for s (re-entrant) and reports whether it got it.
func (l *advisoryLocks) try(s *session, key int64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if o, ok := l.owner[key]; ok && o != s {
		return false
	}
	l.owner[key] = s
	return true
}

// lock waits for key until ctx ends.
func (l *advisoryLocks) lock(ctx context.Context, s *session, key int64) error {
	for {
		l.mu.Lock()
		o, ok := l.owner[key]
		if !ok || o == s {
			l.owner[key] = s
			l.mu.Unlock()
			return nil
		}
		ch := l.notify
		l.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return wire.Errorf("57014", "canceling statement due to user request")
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// unlock releases key if s holds it.
func (l *advisoryLocks) unlock(s *session, key int64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.owner[key] != s {
		return false
	}
	delete(l.owner, key)
	close(l.notify)
	l.notify = make(chan struct{})
	return true
}

// releaseAll releases every key in held.
func (l *advisoryLocks) releaseAll(held map[int64]int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	changed := false
	for k := range held {
		delete(l.owner, k)
		changed = true
	}
	clear(held)
	if changed {
		close(l.notify)
		l.notify = make(chan struct{})
	}
}

func (s *session) releaseXactLocks(tx *txState) {
	for _, k := range tx.xactLocks {
		if s.held[k] == 0 {
			s.locks.unlock(s, k)
		}
	}
	tx.xactLocks = nil
}

var advisoryFuncs = map[string]bool{
	"pg_advisory_lock": true, "pg_try_advisory_lock": true, "pg_advisory_unlock": true,
	"pg_advisory_unlock_all": true, "pg_advisory_xact_lock": true, "pg_try_advisory_xact_lock": true,
	"pg_advisory_lock_shared": true, "pg_advisory_unlock_shared": true, "pg_try_advisory_lock_shared": true,
	"pg_advisory_xact_lock_shared": true,
}

// seqFuncs are the sequence functions a SELECT may call at its top level
// (answered by the session from planner/seq, not by exec).
var seqFuncs = map[string]bool{"nextval": true, "currval": true, "setval": true, "lastval": true}

// isAdvisoryCall reports SELECT f(args) [, …] without FROM where every
// item is an advisory lock or sequence function.
func isAdvisoryCall(sel *sqlparse.SelectStmt) bool {
	if len(sel.FromClause) > 0 || len(sel.TargetList) == 0 || sel.WhereClause != nil || len(sel.ValuesLists) > 0 || sel.Op != sqlparse.SetOperation_SETOP_NONE {
		return false
	}
	for _, t := range sel.TargetList {
		fc := t.GetResTarget().GetVal().GetFuncCall()
		if fc == nil {
			return false
		}
		if sch, name := funcName(fc); (sch != "" && sch != "pg_catalog") || (!advisoryFuncs[name] && !seqFuncs[name]) {
			return false
		}
	}
	return true
}

// advisoryKey combines the one- or two-argument key forms.
func advisoryKey(args []any) (int64, error) {
	toInt := func(v any) (int64, error) {
		switch x := v.(type) {
		case int64:
			return x, nil
		case int32:
			return int64(x), nil
		case nil:
			return 0, errNullKey
		}
		return 0, wire.Errorf("42883", "function argument must be an integer")
	}
	switch len(args) {
	case 1:
		return toInt(args[0])
	case 2:
		a, err := toInt(args[0])
		if err != nil {
			return 0, err
		}
		b, err := toInt(args[1])
		if err != nil {
			return 0, err
		}
		return a<<32 | int64(uint32(b)), nil
	}
	return 0, wire.Errorf("42883", "advisory lock functions take one bigint or two integers")
}

var errNullKey = wire.Errorf("22004", "advisory lock key must not be null")

// execAdvisory runs SELECT pg_advisory_…(…) items: the arguments are
// evaluated by exec, then each lock operation runs in order.
func (s *session) execAdvisory(ctx context.Context, p *plan, params []any) (wire.Result, error) {
	sel := p.node.GetSelectStmt()
	cols := make([]wire.Column, len(sel.TargetList))
	row := make([]any, len(sel.TargetList))
	_, cat, _, err := s.readCatalog(ctx)
	if err != nil {
		return nil, err
	}
	for i, t := range sel.TargetList {
		rt := t.GetResTarget()
		fc := rt.GetVal().GetFuncCall()
		_, name := funcName(fc)
		colName := rt.Name
		if colName == "" {
			colName = name
		}
		var args []any
		if len(fc.Args) > 0 {
			txt, err := deparseTargets(wrapTargets(fc.Args))
			if err != nil {
				return nil, err
			}
			res, err := (&exec.Engine{Catalog: cat, MemoryLimit: s.memLimit}).Query(ctx, s.execSession(), "SELECT "+txt, params...)
			if err != nil {
				return nil, toWire(err)
			}
			for _, b := range res.Batches {
				for _, v := range b.Cols {
					if b.N > 0 {
						args = append(args, v.Datum(0))
					}
				}
			}
		}
		if seqFuncs[name] {
			v, err := s.seqCall(ctx, name, args)
			if err != nil {
				return nil, err
			}
			cols[i] = wire.Column{Name: colName, TypeOID: 20, TypeSize: 8, TypeMod: -1}
			row[i] = v
			continue
		}
		var out any
		boolCol := true
		switch name {
		case "pg_advisory_unlock_all":
			s.locks.releaseAll(s.held)
			out, boolCol = nil, false
		default:
			key, err := advisoryKey(args)
			if err != nil {
				return nil, err
			}
			xact := name == "pg_advisory_xact_lock" || name == "pg_try_advisory_xact_lock" || name == "pg_advisory_xact_lock_shared"
			switch name {
			case "pg_advisory_lock", "pg_advisory_lock_shared", "pg_advisory_xact_lock", "pg_advisory_xact_lock_shared":
				if err := s.locks.lock(ctx, s, key); err != nil {
					return nil, err
				}
				out, boolCol = nil, false
			case "pg_try_advisory_lock", "pg_try_advisory_lock_shared", "pg_try_advisory_xact_lock":
				out = s.locks.try(s, key)
				if !out.(bool) {
					break
				}
			case "pg_advisory_unlock", "pg_advisory_unlock_shared":
				ok := s.held[key] > 0
				if ok {
					s.held[key]--
					if s.held[key] == 0 {
						delete(s.held, key)
						if s.tx == nil || !containsKey(s.tx.xactLocks, key) {
							s.locks.unlock(s, key)
						}
					}
				} else if s.info.Notice != nil {
					s.info.Notice(&wire.Error{Severity: "WARNING", Code: "01000", Message: "you don't own a lock of type ExclusiveLock"})
				}
				out = ok
				xact = false
				name = ""
			}
			if name != "" && (out == nil || out == true) {
				if xact && s.tx != nil {
					s.tx.xactLocks = append(s.tx.xactLocks, key)
				} else if !xact {
					s.held[key]++
				}
			}
		}
		typ := uint32(2278) // void
		if boolCol {
			typ = 16
		}
		cols[i] = wire.Column{Name: colName, TypeOID: typ, TypeSize: 4, TypeMod: -1}
		if !boolCol {
			cols[i].TypeSize = 4
			out = ""
		}
		row[i] = out
	}
	return &rowsResult{cols: cols, rows: [][]any{row}, tag: "SELECT 1"}, nil
}

func containsKey(ks []int64, k int64) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

func wrapTargets(args []*sqlparse.Node) []*sqlparse.Node {
	out := make([]*sqlparse.Node, len(args))
	for i, a := range args {
		out[i] = &sqlparse.Node{Node: &sqlparse.Node_ResTarget{ResTarget: &sqlparse.ResTarget{Val: a}}}
	}
	return out
}

// seqCall runs nextval/currval/setval/lastval with evaluated arguments.
func (s *session) seqCall(ctx context.Context, name string, args []any) (any, error) {
	if name == "lastval" {
		v, err := s.seqSess.Lastval()
		return v, seqError(err)
	}
	if len(args) == 0 || args[0] == nil {
		if len(args) == 0 {
			return nil, wire.Errorf("42883", "function %s() does not exist", name)
		}
		return nil, nil // strict: NULL in, NULL out
	}
	seqName, ok := args[0].(string)
	if !ok {
		return nil, wire.Errorf("42883", "function %s(%T) does not exist", name, args[0])
	}
	relname, err := ddl.ParseRegclass(seqName)
	if err != nil {
		return nil, err
	}
	_, base, _, err := s.readCatalog(ctx)
	if err != nil {
		return nil, err
	}
	root, pend, err := s.writeBase(ctx, base)
	if err != nil {
		return nil, err
	}
	w := &writer{s: s, v: newView(root, pend), ctx: ctx}
	spec, err := w.sequence(relname)
	if err != nil {
		return nil, err
	}
	switch name {
	case "nextval":
		if s.readOnly() {
			return nil, wire.Errorf("25006", "cannot execute nextval() in a read-only transaction")
		}
		v, err := s.seqSess.Nextval(ctx, s.seqs, spec)
		return v, seqError(err)
	case "currval":
		v, err := s.seqSess.Currval(spec)
		return v, seqError(err)
	}
	// setval(seq, value [, is_called])
	if len(args) < 2 || args[1] == nil {
		return nil, nil
	}
	v, ok := args[1].(int64)
	if !ok {
		return nil, wire.Errorf("42883", "function setval(regclass, %T) does not exist", args[1])
	}
	called := true
	if len(args) > 2 {
		if b, ok := args[2].(bool); ok {
			called = b
		}
	}
	if s.readOnly() {
		return nil, wire.Errorf("25006", "cannot execute setval() in a read-only transaction")
	}
	r, err := s.seqSess.Setval(ctx, s.seqs, spec, v, called)
	return r, seqError(err)
}

// writeBase is the snapshot catalog and pending state a session
// statement resolves names against.
func (s *session) writeBase(ctx context.Context, _ exec.Catalog) (*catalog, *pendingState, error) {
	if s.tx != nil && !s.tx.implicit {
		b, err := s.txBase(ctx)
		return b, s.tx.pend, err
	}
	_, b, err := s.head(ctx)
	return b, newPendingState(), err
}
