package wire

import (
	"fmt"
	"time"
)

// Signalling other sessions: pg_cancel_backend and pg_terminate_backend
// (SessionInfo.Signal), with PostgreSQL's rules. A session may signal
// the sessions of its own role; a superuser may signal any session, and
// only a superuser may signal a superuser's session. (Every pgproxy role
// is a superuser today — is_superuser reports on — so the 42501 answers
// are what a future non-superuser role gets.) The CancelRequest message
// needs no role: its secret key is the permission.

// signalBackend cancels the running statement of session pid or ends the
// session. false (with a WARNING to from) when there is no such session;
// with wait > 0 and terminate, false (WARNING) if the session has not
// ended within wait.
func (s *Server) signalBackend(from *conn, pid int32, terminate bool, wait time.Duration) (bool, error) {
	s.mu.Lock()
	var t *conn
	if pid > 0 {
		t = s.conns[uint32(pid)]
	}
	s.mu.Unlock()
	if t == nil {
		from.notice(&Error{Severity: SeverityWarning, Code: CodeWarning, Message: fmt.Sprintf("PID %d is not a PostgreSQL backend process", pid)})
		return false, nil
	}
	if err := maySignal(from.user, from.superuser(), t.user, t.superuser(), terminate); err != nil {
		return false, err
	}
	if !terminate {
		t.cancelStatement(ErrCancelRequested)
		return true, nil
	}
	t.terminate()
	if wait <= 0 || t == from {
		return true, nil
	}
	select {
	case <-t.done:
		return true, nil
	case <-time.After(wait):
		from.notice(&Error{Severity: SeverityWarning, Code: CodeWarning,
			Message: fmt.Sprintf("backend with PID %d did not terminate within %d milliseconds", pid, wait.Milliseconds())})
		return false, nil
	}
}

// maySignal applies PostgreSQL's permission rules (pg_signal_backend).
func maySignal(fromUser string, fromSuper bool, toUser string, toSuper bool, terminate bool) *Error {
	switch {
	case toSuper && !fromSuper && terminate:
		return Errorf(CodeInsufficientPrivilege, "must be a superuser to terminate superuser process")
	case toSuper && !fromSuper:
		return Errorf(CodeInsufficientPrivilege, "must be a superuser to cancel superuser query")
	case !fromSuper && fromUser != toUser && terminate:
		return Errorf(CodeInsufficientPrivilege, "must be a member of the role whose process is being terminated or member of pg_signal_backend")
	case !fromSuper && fromUser != toUser:
		return Errorf(CodeInsufficientPrivilege, "must be a member of the role whose query is being canceled or member of pg_signal_backend")
	}
	return nil
}

// superuser reports whether the session's role is a superuser: every
// role is (is_superuser is on for all).
func (c *conn) superuser() bool { return true }

// terminate ends the session as pg_terminate_backend does: a running
// statement is cancelled with FATAL 57P01, a waiting connection wakes
// and ends with it.
func (c *conn) terminate() {
	c.mu.Lock()
	c.terminated = true
	f := c.stmtCancel
	if f == nil {
		c.woken = true
		c.nc.SetReadDeadline(time.Now())
	}
	c.mu.Unlock()
	if f != nil {
		f(ErrShutdown)
	}
}

// errTerminated is what a terminated session ends with.
func errTerminated() *Error {
	return &Error{Severity: SeverityFatal, Code: CodeAdminShutdown, Message: "terminating connection due to administrator command"}
}
