package planner

import (
	"context"

	"github.com/pggraph/pggraph/graph"
)

// earlyHead is a branch head read concurrently with the statement's
// privilege checks (executeWrite). Root.Head is safe for concurrent use;
// the session is not, so only the graph read runs in the goroutine and
// the catalog is built (or found cached) afterwards on the session.
type earlyHead struct {
	done chan struct{}
	sn   *graph.Snapshot
	err  error
}

// readHeadEarly starts reading the head of an autocommit DML statement's
// branch (the one dmlFiresTriggers reads first); nil when the statement
// reads no head there (DDL, graph calls) or its head is not the branch
// head (an explicit transaction's pinned snapshot, AS OF).
func (s *session) readHeadEarly(ctx context.Context, p *plan) *earlyHead {
	if s.tx == nil || !s.tx.implicit || s.asOfActive() || p.targetRelation() == nil {
		return nil
	}
	e := &earlyHead{done: make(chan struct{})}
	root, branch := s.root, s.branch()
	go func() {
		defer close(e.done)
		e.sn, e.err = root.Head(ctx, branch)
	}()
	return e
}

// catalog waits for the head and returns its catalog, or nil when the
// read failed (the caller reads the head again and reports the error
// as s.head does).
func (e *earlyHead) catalog(ctx context.Context, s *session) *catalog {
	if e == nil {
		return nil
	}
	<-e.done
	if e.err != nil {
		return nil
	}
	c, err := s.catalogOf(ctx, e.sn)
	if err != nil {
		return nil
	}
	return c
}
