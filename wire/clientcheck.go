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
// its transaction.

// clientWatch checks one statement's client until stopped.
type clientWatch struct {
	mu      sync.Mutex
	t       *time.Timer
	stopped bool
}

// watchClient starts checking raw while the statement of cancel runs.
func watchClient(raw net.Conn, every time.Duration, cancel context.CancelCauseFunc) *clientWatch {
	w := &clientWatch{}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.t = time.AfterFunc(every, func() {
		if peerClosed(raw) {
			cancel(errClientGone)
			return
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		if !w.stopped {
			w.t.Reset(every)
		}
	})
	return w
}

func (w *clientWatch) stop() {
	w.mu.Lock()
	w.stopped = true
	w.t.Stop()
	w.mu.Unlock()
}
