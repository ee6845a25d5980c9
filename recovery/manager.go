package recovery

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/protocol"
)

// Options tune a Manager.
type Options struct {
	// LeaseDuration is how long a sidecar's owner lease runs from arming
	// (default 5 minutes). A foreign-machine owner is trusted until then.
	LeaseDuration time.Duration
	// Now is the clock (tests); default time.Now.
	Now func() time.Time
	// BranchDeleteWait bounds how long a branch delete waits, after
	// sealing the branch, for writers on it that may still be running
	// (default 30s); then it answers 55P03 and the branch stays sealed.
	BranchDeleteWait time.Duration
	// RescanInterval is how often a barrier lists __recovery/ again
	// (default 30s; the first barrier of a manager always lists).
	// Between listings the barrier resolves only the intents this
	// process knows of (known.go); other processes' intents that no
	// write overlaps wait for the next listing.
	RescanInterval time.Duration
}

// Manager is the recovery side of one open root: it writes, confirms and
// deletes the sidecars of its own writes, and resolves other intents at
// the barrier. It implements protocol.Recovery.
type Manager struct {
	root     *graph.Root
	store    objstore.Store
	gates    *protocol.Gates
	instance string
	opts     Options

	known *knownIntents // intents this process knows may be pending (known.go)

	mu       sync.Mutex
	stats    Stats
	leases   map[string]*lease // armed operations in flight, by id (lease.go)
	listedAt time.Time         // the last listing of __recovery/ (zero: none yet)
}

// Stats counts what recovery decided and classified.
type Stats struct {
	Decisions map[Decision]int
	Classes   map[Class]int
	// FinalizeFailures counts sidecar deletes that failed after a
	// successful commit (not user errors).
	FinalizeFailures int
	// LeaseRenewals counts owner-lease renewals written; failures are
	// retried while the lease holds; LeasesLost counts renewers that
	// stopped because their lease had already run out.
	LeaseRenewals, LeaseRenewalFailures, LeasesLost int
}

// New returns a manager for root; it registers a live owner instance.
func New(root *graph.Root, opts Options) *Manager {
	if opts.LeaseDuration <= 0 {
		opts.LeaseDuration = 5 * time.Minute
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.BranchDeleteWait <= 0 {
		opts.BranchDeleteWait = 30 * time.Second
	}
	if opts.RescanInterval <= 0 {
		opts.RescanInterval = 30 * time.Second
	}
	m := &Manager{root: root, store: root.Store(), gates: protocol.GatesFor(root.Stamp().GraphID),
		instance: newInstance(), opts: opts, known: knownFor(root.Stamp().GraphID),
		stats: Stats{Decisions: map[Decision]int{}, Classes: map[Class]int{}}}
	root.SetBranchDeleteGuard(m.awaitBranchWriters)
	return m
}

// Close ends the owner instance: its remaining sidecars (writes that
// failed after an effect) become recoverable by any other manager, and
// their lease renewals stop.
func (m *Manager) Close() {
	m.mu.Lock()
	var ops []string
	for op := range m.leases {
		ops = append(ops, op)
	}
	m.mu.Unlock()
	for _, op := range ops {
		m.stopLease(op)
		m.known.add(Key(op))
	}
	endInstance(m.instance)
}

// Instance is this manager's owner instance id: the Recoverer of its
// audit rows and the Owner.Instance of its sidecars.
func (m *Manager) Instance() string { return m.instance }

// Stats returns a copy of the counters.
func (m *Manager) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := Stats{Decisions: map[Decision]int{}, Classes: map[Class]int{}, FinalizeFailures: m.stats.FinalizeFailures,
		LeaseRenewals: m.stats.LeaseRenewals, LeaseRenewalFailures: m.stats.LeaseRenewalFailures, LeasesLost: m.stats.LeasesLost}
	for k, v := range m.stats.Decisions {
		s.Decisions[k] = v
	}
	for k, v := range m.stats.Classes {
		s.Classes[k] = v
	}
	return s
}

func (m *Manager) count(d Decision, classes map[string]Class) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stats.Decisions[d]++
	for _, c := range classes {
		m.stats.Classes[c]++
	}
}

func (m *Manager) owner() Owner {
	return Owner{Host: hostName, PID: os.Getpid(), BootID: bootID, Instance: m.instance,
		LeaseExpiry: m.opts.Now().Add(m.opts.LeaseDuration).UTC()}
}

// Arm writes the sidecar of pw with PutIfAbsent (stage E). It returns
// only when the sidecar is durable, and starts renewing the owner lease
// until Finalize or Abandon (or ctx ends).
func (m *Manager) Arm(ctx context.Context, pw *protocol.PreparedWrite) error {
	sc := &Sidecar{FormatVersion: SidecarVersion, OperationID: pw.OperationID, WriterKind: pw.WriterKind,
		Branch: pw.Base.Branch, Owner: m.owner(), Phase: Armed, CreatedAt: m.opts.Now().UTC(), Write: pw}
	b, err := sc.Encode()
	if err != nil {
		return err
	}
	setInFlight(m.instance, pw.OperationID, true)
	if err := m.store.PutIfAbsent(ctx, Key(pw.OperationID), b); err != nil {
		// The put may have landed anyway (ambiguous failure): give the
		// operation up so the barrier may resolve it.
		setInFlight(m.instance, pw.OperationID, false)
		m.known.add(Key(pw.OperationID))
		return err
	}
	m.startLease(ctx, sc, b)
	return nil
}

// Abandon marks an armed operation as no longer in flight (its write
// failed after arming): the next barrier, in this process or another,
// resolves its sidecar.
func (m *Manager) Abandon(pw *protocol.PreparedWrite) {
	// release before leaving the in-flight set, so no recoverer in this
	// process can have removed the sidecar the release rewrites
	if l := m.stopLease(pw.OperationID); l != nil {
		m.releaseLease(l)
	}
	m.known.add(Key(pw.OperationID))
	setInFlight(m.instance, pw.OperationID, false)
}

// Confirm atomically replaces the sidecar with its EffectsConfirmed form
// carrying every exact post-state.
func (m *Manager) Confirm(ctx context.Context, pw *protocol.PreparedWrite) error {
	for i, e := range pw.Effects {
		if e.Confirmed == nil {
			return fmt.Errorf("recovery: effect %d of %s has no confirmed post-state", i, pw.OperationID)
		}
	}
	sc := &Sidecar{FormatVersion: SidecarVersion, OperationID: pw.OperationID, WriterKind: pw.WriterKind,
		Branch: pw.Base.Branch, Owner: m.owner(), Phase: EffectsConfirmed, CreatedAt: m.opts.Now().UTC(), Write: pw}
	b, err := sc.Encode()
	if err != nil {
		return err
	}
	// serialize with the renewer: a renewal must never revert the
	// confirmed sidecar to its armed form
	if l := m.leaseOf(pw.OperationID); l != nil {
		l.mu.Lock()
		defer l.mu.Unlock()
		if !m.opts.Now().Before(l.expiry) {
			// Same rule as the renewer: past its lease the owner may
			// have been judged expired, and a recoverer may have read
			// the Armed sidecar and be rolling it back; confirming now
			// could make a sibling recoverer roll the intent forward
			// instead (two directions for one intent).
			l.stopped = true
			return fmt.Errorf("%w: operation %s, lease ended %s", ErrLeaseLost, pw.OperationID, l.expiry.Format(time.RFC3339Nano))
		}
		if err := m.store.Put(ctx, Key(pw.OperationID), b); err != nil {
			return err
		}
		l.written, l.expiry = b, sc.Owner.LeaseExpiry
		return nil
	}
	return m.store.Put(ctx, Key(pw.OperationID), b)
}

// Finalize deletes the sidecar after a successful commit. A failure is
// counted, not returned: the next barrier proves the intent published
// and removes it.
func (m *Manager) Finalize(ctx context.Context, pw *protocol.PreparedWrite) {
	defer setInFlight(m.instance, pw.OperationID, false)
	m.stopLease(pw.OperationID) // no renewal may land after the delete
	if err := m.store.Delete(ctx, Key(pw.OperationID)); err != nil && !objstore.IsNotFound(err) {
		m.known.add(Key(pw.OperationID)) // the next barrier converges it
		m.mu.Lock()
		m.stats.FinalizeFailures++
		m.mu.Unlock()
		return
	}
	m.known.forget(Key(pw.OperationID)) // a listing may have found it in flight
}

// read returns the sidecar at key (nil when it vanished: a concurrent
// completion, which is benign).
func (m *Manager) read(ctx context.Context, key string) (*Sidecar, error) {
	b, err := m.store.Get(ctx, key)
	if objstore.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	sc, err := Decode(b)
	if err != nil {
		var se *SidecarError
		if errors.As(err, &se) && se.Op == "" {
			se.Op = strings.TrimSuffix(strings.TrimPrefix(key, graph.RecoveryDir), ".json")
		}
		return nil, err
	}
	return sc, nil
}

// Pending returns every pending sidecar (for verify); unreadable ones
// are returned as errors keyed by object key.
func (m *Manager) Pending(ctx context.Context) ([]*Sidecar, map[string]error, error) {
	keys, err := m.list(ctx)
	if err != nil {
		return nil, nil, err
	}
	var out []*Sidecar
	bad := map[string]error{}
	for _, k := range keys {
		sc, err := m.read(ctx, k)
		if err != nil {
			bad[k] = err
			continue
		}
		if sc != nil {
			out = append(out, sc)
		}
	}
	return out, bad, nil
}

// Covering returns the operation id of a pending sidecar with an effect
// on table t at Lance branch b ("" if none). An unreadable sidecar covers
// everything: it cannot be proven not to.
func (m *Manager) Covering(ctx context.Context, t graph.TableKey, b string) (string, bool, error) {
	keys, err := m.list(ctx)
	if err != nil {
		return "", false, err
	}
	for _, k := range keys {
		sc, err := m.read(ctx, k)
		if err != nil {
			return strings.TrimSuffix(strings.TrimPrefix(k, graph.RecoveryDir), ".json"), false, nil
		}
		if sc == nil {
			continue
		}
		for _, e := range sc.Write.Effects {
			if e.Table == t && e.LanceBranch == b {
				return sc.OperationID, liveness(sc.Owner, sc.OperationID, m.opts.Now()) == OwnerAlive, nil
			}
		}
	}
	return "", false, nil
}

// Barrier resolves every pending intent whose owner is gone (stage A).
// Intents of live owners are in-flight writes: they are left alone (a
// later overlap shows up as covered drift at revalidation). An intent
// that cannot be resolved fails the write with a typed error.
func (m *Manager) Barrier(ctx context.Context, branch string) error {
	_, err := m.BarrierClean(ctx, branch)
	return err
}

// BarrierClean is Barrier that also reports whether it knew of no
// pending intent at all (protocol.CleanBarrier): then the coordinator
// may have read its base head concurrently with the barrier. It lists
// __recovery/ only when a listing is due (barrierKeys); otherwise it
// sends no request when no intent is known.
func (m *Manager) BarrierClean(ctx context.Context, branch string) (clean bool, _ error) {
	keys, err := m.barrierKeys(ctx)
	if err != nil {
		return false, protocol.Errorf(protocol.KindRecoveryRequired, err, "cannot list pending recovery intents")
	}
	return len(keys) == 0, m.resolveOverlapping(ctx, branch, keys)
}

// resolveOverlapping resolves the listed intents for a write on branch.
func (m *Manager) resolveOverlapping(ctx context.Context, branch string, keys []string) error {
	for _, k := range keys {
		rep, err := m.resolveKey(ctx, k)
		if err == nil {
			continue
		}
		// An unresolvable intent blocks the writes it overlaps: its own
		// branch, or every branch when it is unreadable or changes the
		// catalog. Writes on other branches proceed.
		if rep.Branch == "" || rep.Branch == branch || rep.SchemaChanging {
			return err
		}
	}
	return nil
}

// Recover resolves every pending intent it may act on and reports each
// decision (pgproxy recover, graph.recover()).
func (m *Manager) Recover(ctx context.Context) ([]Report, error) {
	keys, err := m.list(ctx)
	if err != nil {
		return nil, err
	}
	var out []Report
	var firstErr error
	for _, k := range keys {
		r, err := m.resolveKey(ctx, k)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		out = append(out, r)
	}
	return out, firstErr
}

func (m *Manager) resolveKey(ctx context.Context, key string) (Report, error) {
	op := strings.TrimSuffix(strings.TrimPrefix(key, graph.RecoveryDir), ".json")
	sc, err := m.read(ctx, key)
	if err != nil {
		e := protocol.Errorf(protocol.KindRecoveryRequired, err, "recovery intent %s cannot be read; an operator must inspect %s", op, key)
		e.OperationID = op
		return Report{OperationID: op, Decision: Refused, Detail: err.Error()}, e
	}
	if sc == nil {
		m.known.forget(key)
		return Report{OperationID: op, Decision: Vanished}, nil
	}
	return m.resolve(ctx, sc)
}

// Inspection is a read-only view of one pending intent (pgproxy verify).
type Inspection struct {
	Key      string
	Sidecar  *Sidecar // nil when unreadable
	Err      error    // why it is unreadable
	Liveness Liveness
	Classes  map[string]Class
}

// Inspect classifies every pending intent without acting on any (no
// gates, no writes).
func (m *Manager) Inspect(ctx context.Context) ([]Inspection, error) {
	keys, err := m.list(ctx)
	if err != nil {
		return nil, err
	}
	var out []Inspection
	for _, k := range keys {
		in := Inspection{Key: k, Classes: map[string]Class{}}
		sc, err := m.read(ctx, k)
		if err != nil {
			in.Err = err
			out = append(out, in)
			continue
		}
		if sc == nil {
			continue
		}
		in.Sidecar = sc
		in.Liveness = liveness(sc.Owner, sc.OperationID, m.opts.Now())
		for _, e := range sc.Write.Effects {
			c, _, err := classify(ctx, m.root, sc.OperationID, e)
			if err != nil {
				in.Err = err
				break
			}
			in.Classes[e.Table.String()] = c
		}
		out = append(out, in)
	}
	return out, nil
}

func (l Liveness) String() string {
	switch l {
	case OwnerAlive:
		return "owner alive"
	case OwnerDead:
		return "owner gone"
	case OwnerExpired:
		return "owner lease expired"
	}
	return "unknown"
}
