package recovery

import (
	"context"
	"fmt"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/internal/failpoint"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/protocol"
)

// RollbackProp marks a Restore that recovery committed for an operation:
// its value is the operation id, an exact identity (operation ids are
// never reused).
const RollbackProp = "pggraph.rollback_of"

// Class is the exact-identity classification of one effect.
type Class string

// Classes.
const (
	NoMovement  Class = "no_movement"  // HEAD == expected
	Landed      Class = "landed"       // expected+1 is our planned transaction
	RolledBack  Class = "rolled_back"  // our transaction, then our restore
	Fenced      Class = "fenced"       // our restore occupies expected+1
	Superseded  Class = "superseded"   // another transaction holds expected+1: ours can never land
	Foreign     Class = "foreign"      // our effect buried under foreign movement: never adopted
	Violation   Class = "violation"    // HEAD behind the pin, or the table vanished
	CreatedOnly Class = "created_only" // a created dataset nobody registered
	RefOnly     Class = "ref_only"     // first touch: our fork ref exists, HEAD not moved
)

// Decision is what recovery did with one intent.
type Decision string

// Decisions.
const (
	RolledForward   Decision = "rolled_forward"
	RolledBackDec   Decision = "rolled_back"
	Converged       Decision = "converged" // the exact goal was already published
	AlreadyRolled   Decision = "already_rolled_back"
	OrphanedBranch  Decision = "orphaned_branch_discarded" // its branch was deleted
	Refused         Decision = "refused"
	SkippedLive     Decision = "skipped_live_owner"
	Vanished        Decision = "vanished"
	EmptyIntentDone Decision = "empty_intent_finalized"
)

// Report describes one resolution.
type Report struct {
	OperationID string
	WriterKind  protocol.WriterKind
	Branch      string // "" when the sidecar is unreadable
	// SchemaChanging intents overlap every write.
	SchemaChanging bool
	Decision       Decision
	Classes        map[string]Class // by table key
	Fenced         bool
	Detail         string
}

func (m *Manager) gateKeys(sc *Sidecar) []protocol.GateKey {
	var g []protocol.GateKey
	if sc.Write.Delta.SchemaChanging() {
		g = append(g, protocol.SchemaGate())
	}
	g = append(g, protocol.BranchUseGate(sc.Branch))
	for _, e := range sc.Write.Effects {
		g = append(g, protocol.TableGate(sc.Branch, e.Table))
	}
	return g
}

func (m *Manager) resolve(ctx context.Context, sc *Sidecar) (Report, error) {
	rep := Report{OperationID: sc.OperationID, WriterKind: sc.WriterKind, Branch: sc.Branch,
		SchemaChanging: sc.Write.Delta.SchemaChanging(), Classes: map[string]Class{}}
	lv := liveness(sc.Owner, sc.OperationID, m.opts.Now())
	if lv == OwnerAlive {
		rep.Decision = SkippedLive
		return rep, nil
	}
	release, err := m.gates.Acquire(ctx, m.gateKeys(sc))
	if err != nil {
		return rep, err
	}
	defer release()
	// Re-read under the gates: a local owner may have finished meanwhile.
	key := Key(sc.OperationID)
	sc, err = m.read(ctx, key)
	if err != nil || sc == nil {
		if err == nil {
			m.known.forget(key)
		}
		rep.Decision = Vanished
		return rep, err
	}
	if head, err := m.root.Head(ctx, sc.Branch); graph.IsUnknownBranch(err) || err == nil && sc.Write.Base.Incarnation != "" && head.Incarnation != sc.Write.Base.Incarnation {
		// The branch was deleted (and maybe re-created): nothing of the
		// intent can become visible any more. Its forks are not touched
		// here — a fork named like the branch may now belong to a new
		// incarnation; branch delete and create reclaim stale forks.
		rep.Decision = OrphanedBranch
		return m.finish(ctx, sc, rep)
	} else if err != nil {
		return rep, m.required(sc, err, "cannot read the branch head")
	}
	pub, rolled, err := m.published(ctx, sc)
	if err != nil {
		return rep, m.required(sc, err, "cannot read the manifest")
	}
	if pub || rolled {
		rep.Decision = Converged
		if rolled {
			rep.Decision = AlreadyRolled
		}
		return m.finish(ctx, sc, rep)
	}
	if lv == OwnerExpired {
		conv, err := m.fenceManifest(ctx, sc)
		if err != nil {
			return rep, m.required(sc, err, "fencing the expired owner failed")
		}
		rep.Fenced = true
		if conv {
			rep.Decision = Converged
			return m.finish(ctx, sc, rep)
		}
	}
	cls := make([]Class, len(sc.Write.Effects))
	heads := make([]uint64, len(sc.Write.Effects))
	allLanded := true
	for i, e := range sc.Write.Effects {
		c, h, err := classify(ctx, m.root, sc.OperationID, e)
		if err != nil {
			return rep, m.required(sc, err, "cannot classify table "+e.Table.String())
		}
		cls[i], heads[i] = c, h
		rep.Classes[e.Table.String()] = c
		if c == Foreign || c == Violation {
			// a sibling recoverer may have resolved the intent since we
			// read it, and writers moved on: that is no refusal
			if o, oerr := m.outcome(ctx, sc); oerr == nil && (o.commit || o.rollback) {
				rep.Decision = Converged
				if o.rollback {
					rep.Decision = AlreadyRolled
				}
				return m.finish(ctx, sc, rep)
			}
			rep.Decision = Refused
			rep.Detail = fmt.Sprintf("table %s: %s (HEAD %d, expected %d); not adopted, not rolled back", e.Table, c, h, e.ExpectedVersion)
			m.count(Refused, rep.Classes)
			_ = m.audit(ctx, sc, rep)
			return rep, m.required(sc, nil, rep.Detail)
		}
		if c == Superseded && e.Kind == protocol.EffectFirstTouch {
			// another first toucher's fork: not ours, nothing to undo
			cls[i] = NoMovement
		}
		allLanded = allLanded && ready(e, c, h)
	}
	// One direction per intent, whichever recoverer decides first
	// (decide): a sibling that read the sidecar before a late
	// confirmation would otherwise roll back what this one rolls forward.
	want := decisionRollBack
	if sc.Phase == EffectsConfirmed && allLanded {
		want = decisionRollForward
	}
	dir, err := m.decide(ctx, sc, want)
	if err != nil {
		return rep, m.required(sc, err, "recording the recovery direction failed")
	}
	// the intent may have been resolved between our reads and the record
	if o, oerr := m.outcome(ctx, sc); oerr != nil {
		return rep, m.required(sc, oerr, "cannot read the manifest")
	} else if o.commit || o.rollback {
		rep.Decision = Converged
		if o.rollback {
			rep.Decision = AlreadyRolled
		}
		return m.finish(ctx, sc, rep)
	}
	if dir == decisionRollForward && want != decisionRollForward {
		// a sibling read the confirmed sidecar; so must we
		if allLanded, err = m.confirmedLanded(ctx, sc); err != nil {
			return rep, err
		}
		if !allLanded {
			return rep, m.required(sc, nil, "recovery recorded a roll-forward, but the intent's effects are not all confirmed and landed")
		}
	}
	if dir == decisionRollForward {
		done, err := m.rollForward(ctx, sc, &rep)
		if err != nil {
			return rep, err
		}
		if done {
			return m.finish(ctx, sc, rep)
		}
	}
	if err := m.rollback(ctx, sc, cls, heads); err != nil {
		// another recoverer of this intent (another process) may have
		// rolled it back meanwhile (its restores and ours are the same
		// and adopt each other's; a lost race ends here)
		if o, oerr := m.outcome(ctx, sc); oerr == nil && o.rollback {
			rep.Decision = AlreadyRolled
			return m.finish(ctx, sc, rep)
		}
		return rep, m.required(sc, err, "rollback failed")
	}
	rep.Decision = RolledBackDec
	if len(sc.Write.Effects) == 0 || allNoMovement(cls) {
		rep.Decision = EmptyIntentDone
	}
	return m.finish(ctx, sc, rep)
}

// DecisionDir holds one direction record per intent being resolved
// (decisionKey). It is outside RecoveryDir: it is not an intent.
const DecisionDir = "__recovery_decisions/"

func decisionKey(op string) string { return DecisionDir + op }

// Recorded recovery directions.
const (
	decisionRollForward = "roll_forward"
	decisionRollBack    = "roll_back"
)

// decide records want as the intent's direction with PutIfAbsent and
// returns the recorded one (an earlier recoverer's, if any). Why: every
// input of the choice is fixed once the owner is gone or fenced except
// the sidecar's phase — an owner past its lease may still land its
// confirmation (a stalled put) after one recoverer read Armed (roll
// back) and before another reads EffectsConfirmed (roll forward). The
// first record wins and every sibling follows it. A roll-forward that
// then loses its arbitration to a real read-set change falls back to a
// rollback; that change is permanent, so every sibling falls back too.
func (m *Manager) decide(ctx context.Context, sc *Sidecar, want string) (string, error) {
	key := decisionKey(sc.OperationID)
	err := m.store.PutIfAbsent(ctx, key, []byte(want))
	if err == nil {
		return want, nil
	}
	if !objstore.IsExists(err) {
		return "", err
	}
	b, err := m.store.Get(ctx, key)
	if objstore.IsNotFound(err) {
		// a sibling finished (and removed the record) in between; the
		// caller's outcome check finds its result
		return want, nil
	}
	if err != nil {
		return "", err
	}
	switch d := string(b); d {
	case decisionRollForward, decisionRollBack:
		return d, nil
	default:
		return "", fmt.Errorf("recovery: direction record %s holds %q", key, d)
	}
}

// confirmedLanded re-reads the sidecar and reports whether it is
// EffectsConfirmed with every effect landed at its confirmed version
// (then sc takes the confirmed write).
func (m *Manager) confirmedLanded(ctx context.Context, sc *Sidecar) (bool, error) {
	fresh, err := m.read(ctx, Key(sc.OperationID))
	if err != nil || fresh == nil || fresh.Phase != EffectsConfirmed {
		return false, err
	}
	for _, e := range fresh.Write.Effects {
		c, h, err := classify(ctx, m.root, fresh.OperationID, e)
		if err != nil {
			return false, m.required(sc, err, "cannot classify table "+e.Table.String())
		}
		if !ready(e, c, h) {
			return false, nil
		}
	}
	// keep the epochs this resolution adopted from a fence
	fresh.Write.ReadSet = sc.Write.ReadSet
	*sc = *fresh
	return true, nil
}

// rollForward publishes the intent's exact confirmed delta. done=false
// means a read-set member really changed (not merely a sibling
// recoverer's fence of this intent): the caller compensates instead.
func (m *Manager) rollForward(ctx context.Context, sc *Sidecar, rep *Report) (done bool, err error) {
	for try := 0; try < 8; try++ {
		_, err := protocol.PublishDelta(ctx, m.root, sc.Write, 64, string(RolledForward))
		if err == nil {
			rep.Decision = RolledForward
			return true, nil
		}
		if !protocol.IsReadSetChanged(err) {
			return false, m.required(sc, err, "roll-forward publish failed")
		}
		// A read-set member changed. Someone may have published our
		// exact goal (convergence); a sibling recoverer may have fenced
		// this intent (adopt its epochs and retry); otherwise the
		// confirmed delta is no longer valid: compensate.
		h, herr := m.outcome(ctx, sc)
		if herr != nil {
			return false, m.required(sc, herr, "cannot read the manifest")
		}
		switch {
		case h.commit:
			rep.Decision = Converged
			return true, nil
		case h.rollback:
			rep.Decision = AlreadyRolled
			return true, nil
		case !adoptFence(sc, h.fence):
			return false, nil
		}
	}
	return false, m.required(sc, nil, "roll-forward kept losing its arbitration to fences")
}

// ready reports whether an effect is where a roll-forward needs it: a
// committed effect landed at its confirmed version; a deferred one
// (commit path v2) not moved at all — its version is materialized only
// after the roll-forward publishes its pin — or already materialized.
func ready(e protocol.Effect, c Class, h uint64) bool {
	if e.Confirmed == nil {
		return false
	}
	if e.Kind == protocol.EffectCreate {
		return c == CreatedOnly && h == 1 || e.Deferred && c == NoMovement
	}
	if e.Deferred {
		return c == NoMovement || c == Landed && e.Confirmed.Version == h
	}
	return c == Landed && e.Confirmed.Version == h
}

func allNoMovement(cls []Class) bool {
	for _, c := range cls {
		if c != NoMovement && c != Superseded {
			return false
		}
	}
	return true
}

// finish audits the decision and removes the sidecar. An audit failure
// keeps the sidecar (the decision is re-derived next time).
func (m *Manager) finish(ctx context.Context, sc *Sidecar, rep Report) (Report, error) {
	if err := m.audit(ctx, sc, rep); err != nil {
		return rep, m.required(sc, err, "recording the recovery audit row failed")
	}
	m.count(rep.Decision, rep.Classes)
	// the direction record first: a crash before the sidecar delete
	// leaves the sidecar, whose next resolution finds the outcome
	_ = m.store.Delete(ctx, decisionKey(sc.OperationID))
	if err := m.store.Delete(ctx, Key(sc.OperationID)); err != nil {
		m.mu.Lock()
		m.stats.FinalizeFailures++
		m.mu.Unlock()
	} else {
		m.known.forget(Key(sc.OperationID))
	}
	return rep, nil
}

func (m *Manager) required(sc *Sidecar, cause error, why string) error {
	e := protocol.Errorf(protocol.KindRecoveryRequired, cause, "an interrupted write (operation %s) could not be resolved: %s", sc.OperationID, why)
	e.OperationID = sc.OperationID
	e.Detail = "operation " + sc.OperationID
	return e
}

// published reports whether the intent's commit id or its rollback
// commit id is on the branch since its base version (exact identity,
// never version arithmetic).
func (m *Manager) published(ctx context.Context, sc *Sidecar) (commit, rollback bool, err error) {
	h, err := m.outcome(ctx, sc)
	return h.commit, h.rollback, err
}

// intentHistory is what the branch records about one intent since its
// base: its commit, its rollback commit, and the newest fence commit a
// recoverer published for it (nil if none).
type intentHistory struct {
	commit, rollback bool
	fence            *graph.Snapshot
}

// outcome walks the branch from its head down to the intent's base
// version and reports the intent's own commits, by exact identity.
func (m *Manager) outcome(ctx context.Context, sc *Sidecar) (intentHistory, error) {
	var h intentHistory
	head, err := m.root.Head(ctx, sc.Branch)
	if err != nil {
		return h, err
	}
	for v := head.Version; v > sc.Write.Base.ManifestVersion; v-- {
		sn := head
		if v != head.Version {
			if sn, err = m.root.SnapshotAt(ctx, sc.Branch, v); err != nil {
				if lance.IsNotFound(err) {
					// pruned by a manifest retention: only versions older
					// than every pending intent's base, or listed before
					// this intent armed, are pruned — never its commit
					continue
				}
				return h, err
			}
		}
		switch {
		case sn.Commit.ID == sc.Write.Lineage.CommitID:
			h.commit = true
			return h, nil
		case sn.Commit.ID == sc.Write.Lineage.RollbackCommitID:
			h.rollback = true
			return h, nil
		case h.fence == nil && sn.Commit.Recovery == fenceRecovery && sn.Commit.OperationID == sc.OperationID:
			h.fence = sn
		}
	}
	return h, nil
}

// fenceRecovery is the Recovery mark of a fence commit.
const fenceRecovery = "fence"

// adoptFence makes sc's read set carry the epochs the newest fence of
// this same intent published, and reports whether any member changed.
// Why: several recoverers (processes) may resolve one intent at once and
// judge its owner differently (its own process sees an abandoned
// operation as gone, another sees a live pid whose lease was released as
// expired and fences). A fence bumps the epochs so the old owner can
// never publish; a recoverer rolling the intent forward acts for the
// intent, not as its owner, so it must not lose its arbitration to a
// sibling recoverer's fence — else it rolls back (restoring tables)
// while the fencer rolls forward, and its restores stack on the
// published versions as uncovered drift. Epochs are bumped only by
// fences, and only a fence naming this operation is adopted.
func adoptFence(sc *Sidecar, fence *graph.Snapshot) bool {
	if fence == nil {
		return false
	}
	changed := false
	for j, mb := range sc.Write.ReadSet.Tables {
		if !mb.Written || !mb.Present {
			continue
		}
		te, ok := fence.State.Table(mb.Table)
		if !ok || te.Epoch == mb.Epoch {
			continue
		}
		sc.Write.ReadSet.Tables[j].Epoch = te.Epoch
		changed = true
	}
	return changed
}

// classify finds where one effect stands, by exact transaction identity.
func classify(ctx context.Context, root *graph.Root, op string, e protocol.Effect) (Class, uint64, error) {
	ds, err := lance.Open(ctx, root.Store(), e.Location, root.DatasetOptions(e.Location, e.LanceBranch, 0))
	if err != nil {
		if lance.IsNotFound(err) {
			if e.Kind == protocol.EffectStaged {
				return Violation, 0, nil
			}
			return NoMovement, 0, nil
		}
		return "", 0, err
	}
	head := ds.Version()
	if e.Kind == protocol.EffectFirstTouch {
		// A fork ref is created only after its sidecar is durable and
		// only by the writer whose CreateBranch won, so a ref at the fork
		// version under our pending intent is ours.
		switch {
		case head == e.ExpectedVersion:
			return RefOnly, head, nil
		case head < e.ExpectedVersion:
			return Violation, head, nil
		}
		t, err := ds.Transaction(ctx, e.ExpectedVersion+1)
		if err != nil {
			return "", head, err
		}
		switch {
		case t.UUID != e.TxnUUID:
			return Superseded, head, nil
		case head == e.ExpectedVersion+1:
			return Landed, head, nil
		}
		return Foreign, head, nil
	}
	if e.Kind == protocol.EffectCreate {
		t, err := ds.Transaction(ctx, 1)
		if err != nil {
			return "", head, err
		}
		if t.UUID == e.TxnUUID {
			return CreatedOnly, head, nil
		}
		return Foreign, head, nil
	}
	switch {
	case head == e.ExpectedVersion:
		return NoMovement, head, nil
	case head < e.ExpectedVersion:
		return Violation, head, nil
	}
	if e.Deferred {
		// commit path v2: our version exists only if our commit was
		// published and materialized; otherwise others may have written
		// the table since (their materializations), which is no foreign
		// movement over an effect of ours — ours never moved anything
		t, err := ds.Transaction(ctx, e.ExpectedVersion+1)
		if err != nil {
			return "", head, err
		}
		if t.UUID == e.TxnUUID {
			return Landed, head, nil
		}
		return Superseded, head, nil
	}
	var seq []string
	for v := e.ExpectedVersion + 1; v <= head && v <= e.ExpectedVersion+3; v++ {
		t, err := ds.Transaction(ctx, v)
		if err != nil {
			return "", head, err
		}
		switch {
		case t.UUID == e.TxnUUID:
			seq = append(seq, "ours")
		case t.Properties[RollbackProp] == op:
			seq = append(seq, "restore")
		case v == e.ExpectedVersion+1:
			// exact commits only use read_version+1: with that slot taken
			// by another transaction, ours never landed and never will
			return Superseded, head, nil
		default:
			return Foreign, head, nil
		}
	}
	if head > e.ExpectedVersion+2 {
		return Foreign, head, nil
	}
	switch fmt.Sprint(seq) {
	case "[ours]":
		return Landed, head, nil
	case "[ours restore]":
		return RolledBack, head, nil
	case "[restore]":
		return Fenced, head, nil
	}
	return Foreign, head, nil
}

// restore commits a Restore of the expected version exactly on top of
// the classified HEAD (marked with the operation id). Another recoverer
// of the same intent may race it: on a lost slot the table is
// reclassified, and a restore already there (ours or the other
// recoverer's, same operation id) is adopted instead of stacking a
// second one.
func restore(ctx context.Context, root *graph.Root, op string, e protocol.Effect, head uint64) (uint64, error) {
	for i := 0; i < 4; i++ {
		ds, err := lance.Open(ctx, root.Store(), e.Location, root.DatasetOptions(e.Location, e.LanceBranch, head))
		if err != nil {
			return 0, err
		}
		st, err := ds.StageRestore(ctx, e.ExpectedVersion, lance.StageOptions{Properties: map[string]string{RollbackProp: op}})
		if err != nil {
			return 0, err
		}
		nd, err := st.Commit(ctx, lance.CommitOptions{Mode: lance.CommitExact})
		if err == nil {
			return nd.Version(), nil
		}
		if !lance.IsConflict(err) {
			return 0, err
		}
		c, h, cerr := classify(ctx, root, op, e)
		switch {
		case cerr != nil:
			return 0, cerr
		case c == RolledBack || c == Fenced:
			return h, nil
		case c == Landed || c == NoMovement:
			head = h
		default:
			return 0, fmt.Errorf("recovery: table %s moved by a foreign writer during rollback (%s): %w", e.Table, c, err)
		}
	}
	return 0, fmt.Errorf("recovery: could not restore table %s", e.Table)
}

// dropFork deletes a first-touch fork ref of a table dataset.
func dropFork(ctx context.Context, root *graph.Root, e protocol.Effect) error {
	ds, err := lance.Open(ctx, root.Store(), e.Location, root.DatasetOptions(e.Location, "", 0))
	if err != nil {
		return err
	}
	if err := ds.DeleteBranch(ctx, e.LanceBranch); err != nil && !lance.IsNotFound(err) {
		return err
	}
	return nil
}

// rollback compensates: restore every table our transaction reached,
// occupy the next slot of every untouched table (so a pending commit of
// the owner can never land), then publish the restored HEADs so pin ==
// HEAD. A created, unregistered dataset is left as unreachable garbage
// (its location is never reused).
//
// The untouched tables are occupied whatever the owner's liveness: the
// compensation must be the same for every recoverer of the intent.
// Recoverers in several processes may resolve one intent at once and
// judge its owner differently (its own process sees an abandoned
// operation as gone; another process sees a live pid with a released
// lease as expired). If only the fencer occupied the slots, its restore
// could land after the other's rollback commit had already been
// published without that table: a HEAD one past its pin that no intent
// covers (adapters TestKillNineLoop; recovery
// TestSiblingRecoverersAgreeOnRollback).
func (m *Manager) rollback(ctx context.Context, sc *Sidecar, cls []Class, heads []uint64) error {
	pins := map[graph.TableKey]uint64{}
	allocated := false
	for i, e := range sc.Write.Effects {
		if e.Kind == protocol.EffectCreate {
			// the dataset stays unregistered garbage, but its ids must
			// never be allocated again
			allocated = allocated || cls[i] == CreatedOnly || e.Deferred
			continue
		}
		if e.Deferred {
			// commit path v2: nothing of it was committed before the CAS,
			// and its slot must stay free — a concurrent writer may
			// publish that very version (slot exclusivity,
			// docs/architecture.md); its staged files are unreferenced
			continue
		}
		if e.Kind == protocol.EffectFirstTouch {
			// the graph still pins the inherited version: dropping our
			// fork (ref first, then its tree) restores pin == HEAD
			if cls[i] == RefOnly || cls[i] == Landed {
				if err := dropFork(ctx, m.root, e); err != nil {
					return err
				}
			}
			continue
		}
		switch cls[i] {
		case Landed:
			v, err := restore(ctx, m.root, sc.OperationID, e, heads[i])
			if err != nil {
				return err
			}
			pins[e.Table] = v
		case NoMovement:
			if e.Kind == protocol.EffectStaged {
				v, err := restore(ctx, m.root, sc.OperationID, e, heads[i])
				if err != nil {
					return err
				}
				pins[e.Table] = v
			}
		case RolledBack, Fenced:
			pins[e.Table] = heads[i]
		}
	}
	if len(pins) == 0 && !allocated {
		return nil
	}
	if err := failpoint.Inject(failpoint.RecoveryAfterRestore); err != nil {
		return err
	}
	return m.publishPins(ctx, sc, pins)
}

// publishPins publishes the rollback commit: each restored table's pin
// moves to its restored HEAD (same content as the old pin), and the id
// allocator moves past any ids a rolled-back create consumed.
func (m *Manager) publishPins(ctx context.Context, sc *Sidecar, pins map[graph.TableKey]uint64) error {
	for i := 0; i < 64; i++ {
		// another recoverer of the same intent may have published it
		if _, rolled, err := m.published(ctx, sc); err != nil || rolled {
			return err
		}
		head, err := m.root.Head(ctx, sc.Branch)
		if err != nil {
			return err
		}
		st := head.State.Clone()
		for _, e := range sc.Write.Effects {
			v, ok := pins[e.Table]
			if !ok {
				continue
			}
			te, ok := st.Table(e.Table)
			if !ok {
				// registered by the intent itself (a merge adopting a
				// table onto its fork's parent version): the registration
				// is rolled back with it; the restore alone puts HEAD back
				// on the version the other branches pin
				continue
			}
			if te.Version != e.ExpectedVersion || te.Branch != e.LanceBranch {
				return fmt.Errorf("recovery: table %s was republished (pin %d) while rolling back", e.Table, te.Version)
			}
			te.Version = v
			st.Put(te)
		}
		if sc.Write.Delta.NextID > st.Schema.NextID {
			st.Schema.NextID = sc.Write.Delta.NextID
		}
		cm := graph.Commit{ID: sc.Write.Lineage.RollbackCommitID, Parent: head.Commit.ID, Actor: "pggraph:recovery",
			Message: "roll back interrupted operation " + sc.OperationID, Time: m.opts.Now().UTC(),
			OperationID: sc.OperationID, WriterKind: string(sc.WriterKind), Recovery: string(RolledBackDec)}
		if _, err := m.root.Publish(ctx, head, st, cm); err != nil {
			if lance.IsConflict(err) {
				continue
			}
			return err
		}
		return nil
	}
	return fmt.Errorf("recovery: rollback publish kept losing the manifest slot")
}

// fenceManifest publishes a metadata-only commit that bumps the epoch of
// every table the intent writes. The owner's publisher arbitrates epochs,
// so once this lands the old owner can never publish its delta; if the
// owner's goal is found published first, that is convergence.
func (m *Manager) fenceManifest(ctx context.Context, sc *Sidecar) (converged bool, err error) {
	for i := 0; i < 64; i++ {
		h, err := m.outcome(ctx, sc)
		if err != nil || h.commit || h.rollback {
			// converged, or another recoverer already rolled it back
			// (the caller's classification then finds its restores)
			return h.commit, err
		}
		if h.fence != nil {
			// another recoverer fenced this intent: its fence already
			// keeps the old owner from publishing; a second one would
			// only invalidate that recoverer's arbitration
			adoptFence(sc, h.fence)
			return false, nil
		}
		head, err := m.root.Head(ctx, sc.Branch)
		if err != nil {
			return false, err
		}
		st := head.State.Clone()
		for j, mb := range sc.Write.ReadSet.Tables {
			if !mb.Written || !mb.Present {
				continue
			}
			te, ok := st.Table(mb.Table)
			if !ok {
				continue
			}
			te.Epoch++
			st.Put(te)
			sc.Write.ReadSet.Tables[j].Epoch = te.Epoch
		}
		cm := graph.Commit{ID: graph.NewID(), Parent: head.Commit.ID, Actor: "pggraph:recovery",
			Message: "fence expired owner of operation " + sc.OperationID, Time: m.opts.Now().UTC(),
			OperationID: sc.OperationID, WriterKind: string(sc.WriterKind), Recovery: fenceRecovery}
		if _, err := m.root.Publish(ctx, head, st, cm); err != nil {
			if lance.IsConflict(err) {
				continue
			}
			return false, err
		}
		return false, nil
	}
	return false, fmt.Errorf("recovery: fence publish kept losing the manifest slot")
}
