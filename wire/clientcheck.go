package wire

import (
	"context"
	"net"
	"sync"
	"time"
)

// Client disconnects during a statement. Nothing reads the socket while a
// statement runs, so a client that went away would go unnoticed until
// the statement's first write — a long aggregate or cross join would run
// to its end. While a statement runs, the socket is looked at every
// Config.ClientCheckInterval (as PostgreSQL's
// client_connection_check_interval does, but on by default) without
// consuming anything; when the peer has closed, the statement is
// cancelled (cause errClientGone) and the connection ends, rolling back
// its transaction. statement_timeout rides the same timer.
//
// One timer per connection, armed lazily: starting a statement costs no
// timer operation while the timer is already pending (adding a timer
// wakes the runtime's network poller thread, a futex wake per statement
// that cost a prepared point lookup about a tenth of its CPU). When the
// timer fires between statements it is not re-armed, so an idle
// connection holds no pending timer. The first check of a statement
// therefore comes at most one interval after it started (possibly
// sooner), and then every interval; a statement_timeout is kept exactly:
// the timer is moved earlier when the deadline comes before it, and the
// deadline is compared with the clock whenever it fires.

// stmtWatch is a connection's statement timer (client checks and
// statement_timeout).
type stmtWatch struct {
	raw   net.Conn
	every time.Duration // Config.ClientCheckInterval; 0: no client checks

	mu       sync.Mutex
	t        *time.Timer // created on first use
	when     time.Time   // when t fires; zero: not pending
	seq      uint64      // counts statements, so a late firing cancels only its own
	cancel   context.CancelCauseFunc
	deadline time.Time // statement_timeout of the running statement; zero: none
	check    bool      // the running statement's client is checked (not during startup)
	closed   bool
}

// start registers the statement of cancel (timeout 0: none; check: look
// at the client every interval).
func (w *stmtWatch) start(cancel context.CancelCauseFunc, timeout time.Duration, check bool) {
	check = check && w.every > 0
	if !check && timeout <= 0 {
		w.mu.Lock()
		w.seq++
		w.cancel, w.deadline, w.check = cancel, time.Time{}, false
		w.mu.Unlock()
		return
	}
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seq++
	w.cancel, w.deadline, w.check = cancel, time.Time{}, check
	if timeout > 0 {
		w.deadline = now.Add(timeout)
	}
	w.armLocked(now)
}

// stop ends the running statement's watch (the timer stays pending; it
// lapses at its next firing).
func (w *stmtWatch) stop() {
	w.mu.Lock()
	w.cancel, w.deadline, w.check = nil, time.Time{}, false
	w.mu.Unlock()
}

// close stops the timer for good (the connection ended).
func (w *stmtWatch) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed, w.cancel = true, nil
	if w.t != nil {
		w.t.Stop()
	}
}

// armLocked makes the timer fire no later than the running statement
// needs: the next client check or its deadline, whichever comes first.
func (w *stmtWatch) armLocked(now time.Time) {
	if w.closed || w.cancel == nil {
		return
	}
	var need time.Time
	if w.check {
		need = now.Add(w.every)
	}
	if !w.deadline.IsZero() && (need.IsZero() || w.deadline.Before(need)) {
		need = w.deadline
	}
	if need.IsZero() || (!w.when.IsZero() && !w.when.After(need)) {
		return // nothing to watch, or the pending firing is soon enough
	}
	w.when = need
	if w.t == nil {
		w.t = time.AfterFunc(need.Sub(now), w.fire)
		return
	}
	w.t.Reset(need.Sub(now))
}

// fire runs on the timer's goroutine.
func (w *stmtWatch) fire() {
	w.mu.Lock()
	w.when = time.Time{}
	cancel, seq, deadline, check := w.cancel, w.seq, w.deadline, w.check
	w.mu.Unlock()
	if cancel == nil {
		return // between statements: lapse until the next one
	}
	now := time.Now()
	if !deadline.IsZero() && !now.Before(deadline) {
		w.mu.Lock()
		if w.seq == seq && w.cancel != nil {
			w.cancel(ErrStatementTimeout)
			w.deadline = time.Time{} // once; the client checks go on
		}
		w.mu.Unlock()
	}
	if check && peerClosed(w.raw) {
		w.cancelIf(seq, errClientGone)
	}
	w.mu.Lock()
	w.armLocked(time.Now())
	w.mu.Unlock()
}

// cancelIf cancels the statement numbered seq if it is still running.
func (w *stmtWatch) cancelIf(seq uint64, cause error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.seq == seq && w.cancel != nil {
		w.cancel(cause)
	}
}
