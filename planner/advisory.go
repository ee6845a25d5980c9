package planner

import (
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// Advisory locks are exec's (exec/advisory.go), wherever a query calls
// them: the Backend owns one exec.AdvisoryLocks space for its graph,
// each session one exec.AdvisorySession in it, handed to every query
// as exec.Session.Advisory (execSession). The session releases transaction
// holds (pg_advisory_xact_lock…) when its transaction ends — COMMIT,
// ROLLBACK, or the end of an autocommit statement or pipeline — and
// every hold when it closes. Locks are per process: sessions of other
// pgproxy processes over the same root do not see them (table writes
// stay safe regardless: commits are arbitrated by the write protocol).

// newAdvisorySession joins the backend's lock space; unlock warnings
// become the client's WARNING notices.
func (s *session) newAdvisorySession(space *exec.AdvisoryLocks) *exec.AdvisorySession {
	a := space.Session()
	a.PID = int32(s.info.ProcessID)
	a.Warn = func(msg string) {
		if s.info.Notice != nil {
			s.info.Notice(&wire.Error{Severity: "WARNING", Code: pgerr.Warning, Message: msg})
		}
	}
	return a
}

// sessionSeqs is the session's sequence functions, which execSession
// lends every exec query with the advisory locks (exec.Session.Sequences
// and Advisory); made on first use.
func (s *session) sessionSeqs() *sessionSequences {
	if s.sequences == nil {
		s.sequences = &sessionSequences{s: s}
	}
	return s.sequences
}

// endXactLocks releases the transaction-scoped advisory holds.
func (s *session) endXactLocks() {
	if s.advisory != nil {
		s.advisory.ReleaseXact()
	}
}

// activityForExec is the server's sessions for pg_stat_activity.
func (s *session) activityForExec() []exec.Activity {
	if s.info.Activity == nil {
		return nil
	}
	acts := s.info.Activity()
	out := make([]exec.Activity, len(acts))
	for i, a := range acts {
		out[i] = exec.Activity{PID: a.PID, User: a.User, Database: a.Database, ApplicationName: a.ApplicationName,
			ClientAddr: a.ClientAddr, ClientPort: a.ClientPort, BackendStart: a.BackendStart, XactStart: a.XactStart,
			QueryStart: a.QueryStart, StateChange: a.StateChange, State: a.State, Query: a.Query,
			WaitEventType: a.WaitEventType, WaitEvent: a.WaitEvent}
	}
	return out
}
