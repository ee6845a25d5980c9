package recovery

import (
	"context"
	"sync"
	"time"
)

// Owner lease renewal. An armed operation's sidecar carries its owner's
// lease expiry; while the operation is in flight a background renewer
// rewrites the sidecar with a fresh expiry every LeaseDuration/3, so a
// write that runs longer than one lease (a large load, a slow store) is
// never judged expired by a recoverer in another process. Renewal is a
// liveness measure only: safety never depends on it (see "Ownership,
// liveness and fencing" in doc.go).
//
// Rules:
//   - The renewer holds the operation's lease mutex across each sidecar
//     write, and Confirm takes the same mutex, so a renewal never
//     reverts an EffectsConfirmed sidecar to Armed.
//   - Finalize and Abandon stop the renewer (waiting out a write in
//     flight) before anything else, so a renewal never lands after the
//     sidecar delete of a finished write.
//   - The renewer stops for good once its own clock passes the last
//     expiry it wrote (the lease is lost: a recoverer may be acting) and
//     when the operation's context ends.
//   - Abandon (the write failed after arming and will do nothing more)
//     releases the lease: it rewrites the sidecar once with an expiry of
//     now, so recoverers in other processes need not wait out the lease
//     (they fence first, as for any expired owner). Best effort: if the
//     write fails the lease simply runs out.

// lease is the renewal state of one armed operation of this manager.
type lease struct {
	mu sync.Mutex
	// written is the sidecar as last written (phase, write), as bytes:
	// the armed write's PreparedWrite stays the coordinator's to mutate
	// (effects gain their confirmed post-states while the renewer runs),
	// so a renewal re-encodes a decoded copy, never the live value.
	written []byte
	expiry  time.Time
	stopped bool
	cancel  context.CancelFunc
	done    chan struct{}
}

// renewEvery is the renewal period of a lease of duration d.
func renewEvery(d time.Duration) time.Duration {
	p := d / 3
	if p < time.Millisecond {
		p = time.Millisecond
	}
	return p
}

// startLease begins renewing the lease of a freshly armed sidecar.
func (m *Manager) startLease(ctx context.Context, sc *Sidecar, written []byte) {
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	l := &lease{written: written, expiry: sc.Owner.LeaseExpiry, cancel: cancel, done: make(chan struct{})}
	m.mu.Lock()
	if m.leases == nil {
		m.leases = map[string]*lease{}
	}
	m.leases[sc.OperationID] = l
	m.mu.Unlock()
	go m.renew(rctx, ctx, l)
}

func (m *Manager) renew(rctx, opCtx context.Context, l *lease) {
	defer close(l.done)
	t := time.NewTicker(renewEvery(m.opts.LeaseDuration))
	defer t.Stop()
	for {
		select {
		case <-rctx.Done():
			return
		case <-opCtx.Done():
			return
		case <-t.C:
		}
		if !m.renewOnce(rctx, l) {
			return
		}
	}
}

// renewOnce rewrites the sidecar with a fresh expiry; false stops the
// renewer.
func (m *Manager) renewOnce(ctx context.Context, l *lease) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return false
	}
	if !m.opts.Now().Before(l.expiry) {
		// Too late: a recoverer may already have judged the lease
		// expired and fenced the operation. Extending it now could only
		// make a fenced intent look alive.
		l.stopped = true
		m.countRenewal(false, true)
		return false
	}
	next, err := Decode(l.written)
	if err != nil {
		// our own bytes: only a bug gets here; stop renewing and let
		// the lease run out rather than write something else
		l.stopped = true
		m.countRenewal(false, false)
		return false
	}
	next.Owner = m.owner()
	b, err := next.Encode()
	if err == nil {
		err = m.store.Put(ctx, Key(next.OperationID), b)
	}
	if err != nil {
		m.countRenewal(false, false)
		return true // retried at the next tick while the lease still holds
	}
	l.written, l.expiry = b, next.Owner.LeaseExpiry
	m.countRenewal(true, false)
	return true
}

// stopLease stops an operation's renewer and waits until no renewal
// write is in flight; it returns the lease (nil if none).
func (m *Manager) stopLease(op string) *lease {
	m.mu.Lock()
	l := m.leases[op]
	delete(m.leases, op)
	m.mu.Unlock()
	if l == nil {
		return nil
	}
	l.mu.Lock()
	l.stopped = true
	l.mu.Unlock()
	l.cancel()
	<-l.done
	return l
}

// leaseOf returns the live lease of an operation (nil if none).
func (m *Manager) leaseOf(op string) *lease {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.leases[op]
}

func (m *Manager) countRenewal(ok, lost bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case ok:
		m.stats.LeaseRenewals++
	case lost:
		m.stats.LeasesLost++
	default:
		m.stats.LeaseRenewalFailures++
	}
}

// releaseLease marks a stopped lease expired in the sidecar (best
// effort; see the rules above).
func (m *Manager) releaseLease(l *lease) {
	l.mu.Lock()
	defer l.mu.Unlock()
	next, err := Decode(l.written)
	if err != nil {
		return
	}
	next.Owner.LeaseExpiry = m.opts.Now().UTC()
	b, err := next.Encode()
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// only over our own sidecar: a recoverer may have removed it already
	if _, err := m.store.Stat(ctx, Key(next.OperationID)); err != nil {
		return
	}
	_ = m.store.Put(ctx, Key(next.OperationID), b)
}
