package planner

import (
	"time"

	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/observe"
	"github.com/pggraph/pggraph/wire"
)

// A writing statement (INSERT, UPDATE, DELETE, MERGE) is a long
// operation like a COPY: it appears in graph.progress while it runs, with
// the rows its query has produced so far and its phase, and — when the
// session set graph.progress_interval — sends a progress NOTICE at that
// interval from its own goroutine (the session's, between batches).

// startProgress registers the statement in graph.progress (nil for the
// statements that are not row writes: Done and the counters accept nil).
func (w *writer) startProgress(p *plan) *observe.Progress {
	rv := p.targetRelation()
	if rv == nil {
		return nil
	}
	w.progress = observe.StartProgress(&observe.Progress{PID: int32(w.s.info.ProcessID), Database: w.s.info.Database,
		Command: p.stmtName(), Relation: rv.GetRelname()})
	return w.progress
}

// progressRows returns the row counter of the query about to run, and
// what to call when it has run: the progress's for the statement's first
// query, else ones that do nothing.
func (w *writer) progressRows() (count func(n int), finished func()) {
	if w.progress == nil || w.progressCounted || w.describe {
		return func(int) {}, func() {}
	}
	w.progressCounted = true
	p := w.progress
	p.SetPhase("reading rows")
	var interval time.Duration
	if w.s.info.Settings != nil {
		interval = w.s.info.Settings.Duration("graph.progress_interval")
	}
	count = func(n int) {
		p.AddRows(int64(n), 0)
		if w.s.info.NoticeNow != nil && p.NoticeDue(time.Now(), interval) {
			w.s.info.NoticeNow(&wire.Error{Severity: wire.SeverityNotice, Message: p.Snapshot().Message()})
		}
	}
	return count, func() { p.SetPhase("checking and writing rows") }
}

// targetRelation is the table an INSERT, UPDATE, DELETE or MERGE writes
// (nil for other statements).
func (p *plan) targetRelation() *sqlparse.RangeVar {
	switch p.kind {
	case stmtInsert:
		return p.node.GetInsertStmt().GetRelation()
	case stmtUpdate:
		return p.node.GetUpdateStmt().GetRelation()
	case stmtDelete:
		return p.node.GetDeleteStmt().GetRelation()
	case stmtMerge:
		return p.node.GetMergeStmt().GetRelation()
	}
	return nil
}
