package protocol

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/internal/failpoint"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
)

// isManifestCommit matches the commit point of a graph commit: a Lance
// version file of the __manifest dataset (main or a branch tree).
func isManifestCommit(key string) bool {
	return strings.HasPrefix(key, graph.ManifestRoot+"/") && strings.Contains(key, "_versions/") &&
		strings.HasSuffix(key, ".manifest")
}

// Recovery is what the coordinator needs from package recovery (injected
// to keep the layering one-way).
type Recovery interface {
	// Barrier resolves every pending intent that overlaps a write on
	// branch, or fails typed (stage A).
	Barrier(ctx context.Context, branch string) error
	// Arm makes the sidecar of pw durable (stage E).
	Arm(ctx context.Context, pw *PreparedWrite) error
	// Confirm durably records pw's exact confirmed post-states.
	Confirm(ctx context.Context, pw *PreparedWrite) error
	// Finalize deletes the sidecar best effort (stage H).
	Finalize(ctx context.Context, pw *PreparedWrite)
	// Abandon gives up an armed operation after a post-effect failure so
	// the next barrier may resolve it (its sidecar stays).
	Abandon(pw *PreparedWrite)
	// Covering returns the operation id of a pending sidecar naming the
	// table on the Lance branch ("" if none) and whether its owner may
	// still be running.
	Covering(ctx context.Context, t graph.TableKey, lanceBranch string) (op string, live bool, err error)
}

// Writer is one graph-visible operation, driven by an adapter.
type Writer interface {
	Kind() WriterKind
	// Prepare runs without gates against base (stage B). It must fill
	// ReadSet, Effects, Delta and Recovery, pre-mint every transaction
	// UUID, and move no HEAD.
	Prepare(ctx context.Context, pw *PreparedWrite) error
	// Apply performs the effects under the held gates (stage F) and sets
	// each effect's Confirmed post-state.
	Apply(ctx context.Context, pw *PreparedWrite) error
	// Discard drops staged state of an abandoned attempt.
	Discard(pw *PreparedWrite)
}

// Deferrer is implemented by a Writer whose staged and create effects
// are committed by materialization after the manifest CAS (commit path
// v2, doc.go): its Apply stages them and sets their Confirmed post-state
// from an in-memory preview, committing nothing.
type Deferrer interface {
	DefersEffects() bool
}

// Predictor is implemented by a Deferrer that can know a write's exact
// post-states before its staged files are durable (e.g. rows inserted
// from memory). Predict sets every effect's Confirmed and reports true
// when it could; Apply then only waits for the staging and checks the
// preview against the prediction (an error when they differ). The
// coordinator runs Apply while the __manifest files are written and
// holds the CAS until Apply has returned (objstore.Fence): two ordered
// durable rounds before the acknowledgement instead of three.
type Predictor interface {
	Predict(pw *PreparedWrite) bool
}

// CleanBarrier is optionally implemented by a Recovery whose barrier
// can tell that its listing found no pending intent at all (clean): the
// coordinator then reads the base head concurrently with the barrier
// (barrierAndHead). BarrierClean has Barrier's contract otherwise.
type CleanBarrier interface {
	BarrierClean(ctx context.Context, branch string) (clean bool, err error)
}

// HeadProber is optionally implemented by a Writer that holds an open
// handle of an effect's target (e.g. the dataset it staged against), so
// revalidation probes HEAD with one Stat of version pin+1 instead of a
// cold open. ok=false falls back to ProbeHead.
type HeadProber interface {
	ProbeHead(ctx context.Context, pw *PreparedWrite, e Effect) (head uint64, exists, ok bool, err error)
}

// CommitOptions tune one Commit.
type CommitOptions struct {
	Branch  string
	Actor   string
	Message string
	// Application, Client and Process complete the attribution
	// (graph.Commit).
	Application, Client, Process string
	// Strict: the caller has already answered its client (explicit
	// transaction), so any read-set change is a 40001, never a re-prepare.
	Strict bool
	// Base pins the snapshot to prepare against (strict transactions);
	// nil = the branch head after the barrier.
	Base *graph.Snapshot
	// MaxReprepare bounds transparent re-prepares (default 5).
	MaxReprepare int
	// PublishBudget bounds manifest CAS attempts (default 64).
	PublishBudget int
	// CommitID, when set, is the id the commit will carry, minted by a
	// caller that must find its commit in the branch's lineage later
	// (the role catalog's pending changes, docs/architecture.md); empty:
	// a fresh id per attempt.
	CommitID string
	// HeadHint is the head of Branch the caller has just read (a
	// statement's snapshot). The first attempt takes it as its base
	// instead of reading the head again when the barrier finds no intent
	// (barrierAndHead): one dependent request fewer on object storage.
	// Stale at worst, which the CAS arbitrates. Ignored with Base.
	HeadHint *graph.Snapshot
}

// Receipt is what a successful graph commit returns.
type Receipt struct {
	OperationID string
	CommitID    string
	Snapshot    *graph.Snapshot
	Attempts    int
	// DurableRounds is the ordered durable rounds the write waited for
	// (objstore.DurableRounds), set by a caller that counted them
	// (adapters).
	DurableRounds int64
}

// Stats counts coordinator outcomes, so retries are observable.
type Stats struct {
	Commits, Reprepares, ContentionWaits, RecoveryRequired int64
	// MaterializeFailures counts post-commit materializations that failed
	// (left to the next reader; never a user error).
	MaterializeFailures int64
}

// Coordinator runs the write protocol's state machine (docs/write-protocol.md §4) for one root.
type Coordinator struct {
	Root     *graph.Root
	Recovery Recovery
	Gates    *Gates
	// AsyncFinalize makes stage H's sidecar delete run after Commit has
	// returned (see "Commit latency" in doc.go): the acknowledgement no
	// longer waits for the delete's directory fsync. WaitFinalized waits
	// for the deletes in flight.
	AsyncFinalize bool
	// ParallelConfirm overlaps the durable confirmation with staging the
	// __manifest files; the root's store must be objstore.Fenced, which
	// holds the manifest CAS until the confirmation is durable.
	ParallelConfirm bool
	// NoRetryTurns turns retry turns off (turns.go): every retry
	// re-prepares at once, as before (benchmark baseline).
	NoRetryTurns bool
	// NoPublishedPreviews keeps a commit's published versions out of
	// graph.Root's published-table cache, so the next statement
	// materializes (or waits for the materialization of) the version
	// before reading or staging on it: commit path v2 as first built,
	// the A/B benchmark's baseline.
	NoPublishedPreviews bool
	// SequentialRevalidate turns off the overlaps of the v2 path
	// (barrierAndHead, revalidateInRound1): the barrier, the base head,
	// stage D's head and live-HEAD checks and round 1 run one after the
	// other, as before (the A/B benchmark's baseline).
	SequentialRevalidate bool
	// LeaveMaterialization skips the committer's own materialization
	// after the acknowledgement: the next reader or writer of the table
	// (or serve start, Quiesce) materializes the version. For tests of
	// the prefix obligation; never set in production.
	LeaveMaterialization bool

	finalizing                             inFlight
	commits, reprepares, waits, recoveries atomic.Int64
	materializeFailures                    atomic.Int64
}

// WaitFinalized waits until every asynchronous sidecar delete and every
// post-commit materialization started so far has finished.
func (c *Coordinator) WaitFinalized() { c.finalizing.wait() }

// finalize is stage H's sidecar delete, after the CAS.
func (c *Coordinator) finalize(ctx context.Context, pw *PreparedWrite) {
	if !c.AsyncFinalize {
		c.Recovery.Finalize(ctx, pw)
		return
	}
	// The caller's context may end as soon as it has its answer; the
	// delete must still happen (a crash before it is the swept state
	// "CAS succeeded, sidecar remains").
	// not the commit's own wait: the acknowledgement does not wait for it
	dctx := objstore.WithoutDurableRounds(context.WithoutCancel(ctx))
	c.finalizing.add()
	go func() {
		defer c.finalizing.done()
		c.Recovery.Finalize(dctx, pw)
	}()
}

// materialize commits the Lance versions of a published write's
// deferred effects (commit path v2), after the acknowledgement. A
// failure is counted, never a user error: the commit is published, and
// the next reader or writer of the table, or the next serve start,
// materializes the version (graph.Root.Materialize is idempotent).
func (c *Coordinator) materialize(ctx context.Context, pw *PreparedWrite, sn *graph.Snapshot) {
	var entries []graph.TableEntry
	for _, e := range pw.Effects {
		if !e.Deferred {
			continue
		}
		if te, ok := sn.State.Table(e.Table); ok && te.Txn == e.TxnUUID {
			entries = append(entries, te)
			if e.Confirmed != nil && !c.NoPublishedPreviews {
				// before the acknowledgement: the caller's next statement
				// reads and stages on this version at once
				c.Root.RememberPublished(te, e.Confirmed.Preview)
			}
		}
	}
	if len(entries) == 0 || c.LeaveMaterialization {
		return
	}
	run := func(ctx context.Context) {
		for _, te := range entries {
			if _, err := c.Root.Materialize(ctx, te); err != nil {
				c.materializeFailures.Add(1)
			}
		}
	}
	if !c.AsyncFinalize {
		run(ctx)
		return
	}
	// not the commit's own wait: the acknowledgement does not wait for it
	dctx := objstore.WithoutDurableRounds(context.WithoutCancel(ctx))
	c.finalizing.add()
	go func() {
		defer c.finalizing.done()
		run(dctx)
	}()
}

// inFlight counts background tasks; unlike sync.WaitGroup, waiting may
// overlap with new tasks starting (concurrent writers).
type inFlight struct {
	mu   sync.Mutex
	n    int
	idle *sync.Cond
}

func (f *inFlight) add() {
	f.mu.Lock()
	f.n++
	f.mu.Unlock()
}

func (f *inFlight) done() {
	f.mu.Lock()
	f.n--
	if f.n == 0 && f.idle != nil {
		f.idle.Broadcast()
	}
	f.mu.Unlock()
}

func (f *inFlight) wait() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.idle == nil {
		f.idle = sync.NewCond(&f.mu)
	}
	for f.n > 0 {
		f.idle.Wait()
	}
}

// Stats returns the counters.
func (c *Coordinator) Stats() Stats {
	return Stats{Commits: c.commits.Load(), Reprepares: c.reprepares.Load(),
		ContentionWaits: c.waits.Load(), RecoveryRequired: c.recoveries.Load(),
		MaterializeFailures: c.materializeFailures.Load()}
}

// NewCoordinator wires a coordinator; gates are shared per root in the
// process.
func NewCoordinator(root *graph.Root, rec Recovery) *Coordinator {
	return &Coordinator{Root: root, Recovery: rec, Gates: GatesFor(root.Stamp().GraphID)}
}

// Commit runs stages A–H for w.
func (c *Coordinator) Commit(ctx context.Context, w Writer, o CommitOptions) (*Receipt, error) {
	if o.Branch == "" {
		o.Branch = graph.MainBranch
	}
	if o.MaxReprepare <= 0 {
		o.MaxReprepare = 5
	}
	if o.PublishBudget <= 0 {
		o.PublishBudget = 64
	}
	// the retry turns held (turns.go), released when Commit returns
	var turns []GateKey
	releaseTurns := func() {}
	defer func() { releaseTurns() }()
	takeTurns := func(pw *PreparedWrite) error {
		keys := turnKeys(pw)
		if c.NoRetryTurns || len(keys) == 0 || sameKeys(keys, turns) {
			return nil
		}
		releaseTurns()
		releaseTurns, turns = func() {}, nil
		rel, err := c.Gates.Acquire(ctx, keys)
		if err != nil {
			return err
		}
		releaseTurns, turns = rel, keys
		return nil
	}
	for attempt := 1; ; attempt++ {
		rc, pw, retry, err := c.attempt(ctx, w, o)
		o.HeadHint = nil // only the first attempt's base
		if err == nil {
			rc.Attempts = attempt
			if rc.CommitID != "" {
				c.commits.Add(1)
			}
			return rc, nil
		}
		if IsRecoveryRequired(err) {
			c.recoveries.Add(1)
		}
		if IsContention(err) && attempt <= o.MaxReprepare {
			c.waits.Add(1)
			if terr := takeTurns(pw); terr != nil {
				return nil, err
			}
			// a live writer is mid-flight on our table: give it a moment
			select {
			case <-ctx.Done():
				return nil, err
			case <-time.After(time.Duration(attempt*attempt) * 5 * time.Millisecond):
			}
			if !o.Strict {
				o.Base = nil
			}
			continue
		}
		if !retry || o.Strict || attempt > o.MaxReprepare {
			return nil, err
		}
		// Recompute, do not patch (invariant 4): the next attempt
		// re-runs the barrier and Prepare from a fresh base — after
		// this process's other retriers of the same tables.
		o.Base = nil
		c.reprepares.Add(1)
		if terr := takeTurns(pw); terr != nil {
			return nil, err
		}
	}
}

// attempt is one pass; retry says a pre-effect mismatch may re-prepare.
// It returns the prepared write once there is one (for retry turns).
func (c *Coordinator) attempt(ctx context.Context, w Writer, o CommitOptions) (_ *Receipt, _ *PreparedWrite, retry bool, _ error) {
	var pw *PreparedWrite
	rc, retry, err := c.attemptWith(ctx, w, o, &pw)
	return rc, pw, retry, err
}

func (c *Coordinator) attemptWith(ctx context.Context, w Writer, o CommitOptions, pwOut **PreparedWrite) (*Receipt, bool, error) {
	// A: recovery barrier before any base capture; B: prepare against a
	// base captured after it (or, when the barrier found no intent at
	// all, concurrently with it: barrierAndHead).
	base := o.Base
	if base == nil {
		var err error
		if base, err = c.barrierAndHead(ctx, o.Branch, o.HeadHint); err != nil {
			return nil, false, err
		}
	} else if err := c.Recovery.Barrier(ctx, o.Branch); err != nil {
		return nil, false, err
	}
	pw := &PreparedWrite{OperationID: graph.NewID(), WriterKind: w.Kind(), Base: NewBaseView(base),
		Lineage: &LineageIntent{CommitID: commitID(o), RollbackCommitID: graph.NewID(), Actor: o.Actor, Message: o.Message,
			Application: o.Application, Client: o.Client, Process: o.Process}}
	pw.ReadSet.Branch, pw.ReadSet.Incarnation = o.Branch, base.Incarnation
	*pwOut = pw
	if err := w.Prepare(ctx, pw); err != nil {
		return nil, false, err
	}
	if len(pw.Effects) == 0 && len(pw.Delta.Updates) == 0 && !pw.Delta.SchemaChanging() && pw.Delta.NextID == 0 && !pw.Lineage.RecordMerge {
		w.Discard(pw)
		return &Receipt{OperationID: pw.OperationID, Snapshot: base}, false, nil
	}
	// C: ordered gates.
	release, err := c.Gates.Acquire(ctx, pw.Gates())
	if err != nil {
		w.Discard(pw)
		return nil, false, err
	}
	defer release()
	if d, ok := w.(Deferrer); ok && d.DefersEffects() {
		for i := range pw.Effects {
			pw.Effects[i].Deferred = pw.Effects[i].Kind.Deferrable()
		}
	}
	if o.Base == nil && !c.SequentialRevalidate && len(pw.Effects) > 0 && allDeferred(pw.Effects) && !c.Root.KnownNewer(base) {
		// D overlapped with round 1 (revalidateInRound1): nothing
		// before the CAS is referenced, so the CAS arbitrates.
		return c.commitDeferred(ctx, w, pw, o, base, true)
	}
	// D: revalidate every read-set member and live HEAD == pin.
	fresh, err := c.Root.Head(ctx, o.Branch)
	if err != nil {
		w.Discard(pw)
		return nil, false, c.branchErr(o.Branch, err)
	}
	if err := pw.ReadSet.Check(fresh); err != nil {
		w.Discard(pw)
		return nil, true, withOp(err, pw.OperationID)
	}
	if err := c.checkHeads(ctx, w, pw); err != nil {
		w.Discard(pw)
		return nil, IsReadSetChanged(err), err
	}
	if len(pw.Effects) > 0 && allDeferred(pw.Effects) {
		return c.commitDeferred(ctx, w, pw, o, fresh, false)
	}
	if err := c.materializeBases(ctx, pw); err != nil {
		w.Discard(pw)
		return nil, false, withOp(err, pw.OperationID)
	}
	if len(pw.Effects) == 0 {
		// Authority-first (docs/write-protocol.md §4.9): nothing durable precedes the CAS, so
		// no sidecar; a lost arbitration is a safe pre-effect restart.
		sn, err := c.Publish(ctx, pw, o.PublishBudget)
		if err != nil {
			w.Discard(pw)
			return nil, IsReadSetChanged(err), withOp(err, pw.OperationID)
		}
		return &Receipt{OperationID: pw.OperationID, CommitID: pw.Lineage.CommitID, Snapshot: sn}, false, nil
	}
	// E: arm recovery before the first durable effect.
	if err := c.Recovery.Arm(ctx, pw); err != nil {
		w.Discard(pw)
		// An ambiguous put may have left a sidecar; it names no effect
		// that happened, and the barrier finalizes it as empty.
		return nil, false, newErr(KindRecoveryRequired, pw.OperationID, err, "could not record the write intent; nothing was changed")
	}
	if err := failpoint.Inject(failpoint.ProtocolAfterArm); err != nil {
		return nil, false, c.recoveryRequired(pw, err, "injected failure")
	}
	// F: effects. Any failure from here on leaves the sidecar — unless
	// the adapter proves no effect landed (every commit lost its exact
	// slot to another transaction): then the intent is empty, finalized
	// here, and the attempt restarts like a pre-effect conflict.
	if err := w.Apply(ctx, pw); err != nil {
		if errors.Is(err, ErrNoEffect) {
			c.Recovery.Finalize(ctx, pw)
			w.Discard(pw)
			if cause := finalCause(err); cause != nil {
				return nil, false, withOp(cause, pw.OperationID)
			}
			return nil, true, &Error{Kind: KindReadSetChanged, OperationID: pw.OperationID,
				Message: "a concurrent write to the same table won; nothing of this write was applied", Err: err}
		}
		return nil, false, c.recoveryRequired(pw, err, "a table effect failed")
	}
	if err := failpoint.Inject(failpoint.ProtocolAfterEffects); err != nil {
		return nil, false, c.recoveryRequired(pw, err, "injected failure")
	}
	// Confirm runs while the publisher stages the __manifest files the
	// CAS will reference (unreferenced until then); the fence holds the
	// CAS itself until the confirmation is durable, so "confirmed before
	// publish" holds. On a store without the Fenced wrapper, Confirm
	// completes first.
	fence := objstore.NewFence(isManifestCommit)
	pctx := objstore.WithFence(ctx, fence)
	if c.ParallelConfirm {
		go func() { fence.Release(c.confirm(ctx, pw)) }()
	} else if err := c.confirm(ctx, pw); err != nil {
		return nil, false, c.recoveryRequired(pw, err, "could not confirm the effects")
	} else {
		fence.Release(nil)
	}
	// G: one manifest CAS, re-arbitrating the read set each attempt. The
	// first attempt starts from stage D's head instead of probing again:
	// it was arbitrated there, and the CAS at its version+1 fails if
	// anything was published since (then the loop reloads).
	sn, err := publishFrom(pctx, c.Root, pw, o.PublishBudget, "", fresh)
	// never leave with the confirmation still in flight
	if cerr := fence.Wait(context.WithoutCancel(ctx)); cerr != nil && err != nil {
		return nil, false, c.recoveryRequired(pw, cerr, "could not confirm the effects")
	}
	if err != nil {
		return nil, false, c.recoveryRequired(pw, err, "publishing the graph commit failed")
	}
	if err := failpoint.Inject(failpoint.ProtocolAfterPublish); err != nil {
		// a crash between the CAS and the reply: the commit is visible
		// but unacknowledged; the sidecar stays for the barrier
		return nil, false, c.recoveryRequired(pw, err, "injected failure")
	}
	// H: finalize. A failed delete is not a user error.
	c.materialize(ctx, pw, sn)
	c.finalize(ctx, pw)
	return &Receipt{OperationID: pw.OperationID, CommitID: pw.Lineage.CommitID, Snapshot: sn}, false, nil
}

// confirm durably records pw's confirmed post-states. The failpoint
// after it marks the state a crash must never let a reader see twice:
// confirmed, so recovery rolls it forward, but not yet published.
func (c *Coordinator) confirm(ctx context.Context, pw *PreparedWrite) error {
	if err := c.Recovery.Confirm(ctx, pw); err != nil {
		return err
	}
	return failpoint.Inject(failpoint.ProtocolAfterConfirm)
}

// pendingBase returns the base pin of a staged effect when that pin was
// published with a commit record (commit path v2): its Lance version may
// not be materialized yet, and the write may have staged on the
// published preview (graph.Root.OpenTable).
func pendingBase(pw *PreparedWrite, e Effect) (graph.TableEntry, bool) {
	if e.Kind != EffectStaged || pw.Base.Snapshot == nil {
		return graph.TableEntry{}, false
	}
	te, ok := pw.Base.Snapshot.State.Table(e.Table)
	if !ok || te.Txn == "" || te.Version != e.ExpectedVersion || te.Branch != e.LanceBranch {
		return graph.TableEntry{}, false
	}
	return te, true
}

// materializeBases makes every written table's base version exist before
// the write's CAS (the prefix obligation of commit path v2): a write may
// stage on a published version this process has not materialized yet,
// so its own round 1 materializes it, concurrently with its staged files
// (usually it is the committer's materialization already in flight,
// which graph.Root.Materialize shares).
func (c *Coordinator) materializeBases(ctx context.Context, pw *PreparedWrite) error {
	return c.materializeEntries(ctx, pw, c.basesToMaterialize(pw))
}

// basesToMaterialize lists the base pins materializeBases must make
// exist; it reads pw.Effects, so it runs before Apply does (which sets
// each effect's Confirmed).
func (c *Coordinator) basesToMaterialize(pw *PreparedWrite) []graph.TableEntry {
	var todo []graph.TableEntry
	for _, e := range pw.Effects {
		if te, ok := pendingBase(pw, e); ok && !c.Root.Materialized(te) {
			todo = append(todo, te)
		}
	}
	return todo
}

func (c *Coordinator) materializeEntries(ctx context.Context, pw *PreparedWrite, todo []graph.TableEntry) error {
	if len(todo) == 0 {
		return nil
	}
	return objstore.Parallel(ctx, len(todo), 8, func(ctx context.Context, i int) error {
		if _, err := c.Root.Materialize(ctx, todo[i]); err != nil {
			if errors.Is(err, graph.ErrMaterializeConflict) {
				return newErr(KindUncoveredDrift, pw.OperationID, err, "table %s: its pinned version holds another transaction", todo[i].Name)
			}
			return fmt.Errorf("materializing version %d of table %s: %w", todo[i].Version, todo[i].Name, err)
		}
		return nil
	})
}

// applyAndMaterialize runs Apply and materializeBases concurrently; both
// precede the CAS.
func (c *Coordinator) applyAndMaterialize(ctx context.Context, w Writer, pw *PreparedWrite) (applyErr, baseErr error) {
	todo := c.basesToMaterialize(pw) // before Apply writes pw.Effects
	mb := make(chan error, 1)
	go func() { mb <- c.materializeEntries(ctx, pw, todo) }()
	applyErr = w.Apply(ctx, pw)
	return applyErr, <-mb
}

// round1 is applyAndMaterialize and, with revalidate, the live-HEAD
// check of stage D run concurrently with it (revalidateInRound1). A
// failed check is returned as the apply error (it takes precedence: an
// apply that failed because a slot was taken is explained by it).
func (c *Coordinator) round1(ctx context.Context, w Writer, pw *PreparedWrite, revalidate bool) (applyErr, baseErr error) {
	if !revalidate {
		return c.applyAndMaterialize(ctx, w, pw)
	}
	if len(c.basesToMaterialize(pw)) > 0 {
		// This round materializes a base this process published: a
		// concurrent check could see it appear mid-probe and take the
		// cold path (reading the table's manifests). Check first, as
		// stage D before round 1; only this rare case pays the round.
		if err := c.checkHeads(ctx, w, pw); err != nil {
			return err, nil
		}
		return c.applyAndMaterialize(ctx, w, pw)
	}
	heads := make(chan error, 1)
	// checkHeads reads only the effects' identities and pins, on a copy:
	// Apply sets each effect's Confirmed meanwhile
	view := *pw
	view.Effects = append([]Effect(nil), pw.Effects...)
	go func() { heads <- c.checkHeads(ctx, w, &view) }()
	applyErr, baseErr = c.applyAndMaterialize(ctx, w, pw)
	if herr := <-heads; herr != nil {
		return herr, nil
	}
	return applyErr, baseErr
}

func allDeferred(effects []Effect) bool {
	for _, e := range effects {
		if !e.Deferred {
			return false
		}
	}
	return true
}

// commitDeferred is commit path v2 for a write whose every effect is
// deferred (doc.go; docs/architecture.md "Commit path v2"): after stage
// D it stages and previews (Apply commits no version), publishes the
// one manifest CAS — the first durable effect anything references, so
// no sidecar (docs/write-protocol.md §4.9, authority-first) — and materializes the
// table versions after the acknowledgement. Every failure before the
// CAS landed leaves only unreferenced files: a changed read set
// re-prepares (or is 40001 when strict), anything else is returned as is.
//
// With revalidate set, stage D has not run: fresh is the base captured
// in this attempt, and the live-HEAD check (checkHeads) runs in round 1,
// concurrently with the staged files, and must pass before the CAS is
// issued (revalidateInRound1).
func (c *Coordinator) commitDeferred(ctx context.Context, w Writer, pw *PreparedWrite, o CommitOptions, fresh *graph.Snapshot, revalidate bool) (*Receipt, bool, error) {
	if p, ok := w.(Predictor); ok && c.ParallelConfirm && p.Predict(pw) {
		return c.commitPredicted(ctx, w, pw, o, fresh, revalidate)
	}
	err, berr := c.round1(ctx, w, pw, revalidate)
	if err == nil && berr != nil {
		// nothing of this write is referenced: it fails before its CAS
		w.Discard(pw)
		return nil, false, withOp(berr, pw.OperationID)
	}
	if err != nil {
		w.Discard(pw)
		if errors.Is(err, ErrNoEffect) {
			if cause := finalCause(err); cause != nil {
				return nil, false, withOp(cause, pw.OperationID)
			}
			return nil, true, &Error{Kind: KindReadSetChanged, OperationID: pw.OperationID,
				Message: "a concurrent write to the same table won; nothing of this write was applied", Err: err}
		}
		return nil, IsReadSetChanged(err), withOp(err, pw.OperationID)
	}
	if err := failpoint.Inject(failpoint.ProtocolAfterEffects); err != nil {
		// nothing durable is referenced yet: the write simply fails
		w.Discard(pw)
		return nil, false, withOp(err, pw.OperationID)
	}
	sn, err := publishFrom(ctx, c.Root, pw, o.PublishBudget, "", fresh)
	return c.afterDeferredPublish(ctx, w, pw, sn, err)
}

// commitPredicted is commitDeferred for a write whose post-states were
// predicted (Predictor): Apply (waiting for the staged files and
// checking the previews) runs while the publisher writes the __manifest
// data and transaction files; the CAS is held by a fence until Apply has
// returned and is never issued if it failed. So the CAS still follows
// every file it references being durable, and the state it publishes is
// exactly the previewed one.
func (c *Coordinator) commitPredicted(ctx context.Context, w Writer, pw *PreparedWrite, o CommitOptions, fresh *graph.Snapshot, revalidate bool) (*Receipt, bool, error) {
	fence := objstore.NewFence(isManifestCommit)
	applied := make(chan error, 1)
	go func() {
		err, berr := c.round1(ctx, w, pw, revalidate)
		if err == nil && berr != nil {
			err = NoEffectFinal(berr)
		}
		if err == nil {
			err = failpoint.Inject(failpoint.ProtocolAfterEffects)
		}
		fence.Release(err)
		applied <- err
	}()
	sn, err := publishFrom(objstore.WithFence(ctx, fence), c.Root, pw, o.PublishBudget, "", fresh)
	if aerr := <-applied; aerr != nil {
		// the CAS was never issued (the fence failed it): nothing of this
		// write is referenced
		w.Discard(pw)
		if errors.Is(aerr, ErrNoEffect) {
			if cause := finalCause(aerr); cause != nil {
				return nil, false, withOp(cause, pw.OperationID)
			}
			return nil, true, &Error{Kind: KindReadSetChanged, OperationID: pw.OperationID,
				Message: "a concurrent write to the same table won; nothing of this write was applied", Err: aerr}
		}
		return nil, IsReadSetChanged(aerr), withOp(aerr, pw.OperationID)
	}
	return c.afterDeferredPublish(ctx, w, pw, sn, err)
}

// publishError is a failure of the CAS attempt itself (graph.Root.Publish,
// other than a lost slot): whether the version landed is unknown. Every
// other publishFrom error (loading or arbitrating the head after a lost
// slot) happened before any CAS of ours could land.
type publishError struct{ err error }

func (e *publishError) Error() string { return e.err.Error() }
func (e *publishError) Unwrap() error { return e.err }

// afterDeferredPublish finishes a deferred commit after its CAS attempt.
func (c *Coordinator) afterDeferredPublish(ctx context.Context, w Writer, pw *PreparedWrite, sn *graph.Snapshot, err error) (*Receipt, bool, error) {
	if err != nil {
		w.Discard(pw)
		if IsReadSetChanged(err) {
			return nil, true, withOp(err, pw.OperationID)
		}
		var pe *publishError
		if !errors.As(err, &pe) {
			// nothing of this write was published
			return nil, false, withOp(c.branchErr(pw.Base.Branch, err), pw.OperationID)
		}
		// Never acknowledged, even when a read-back finds the version:
		// a put that failed may be visible without being durable (its
		// directory fsync failed), so the outcome is unknown to the
		// client, as PostgreSQL's commit whose reply was lost. If it
		// did land durably it is a valid commit; readers materialize it.
		return nil, false, newErr(KindResolutionUnknown, pw.OperationID, err, "publishing the graph commit failed; whether it was published is unknown")
	}
	if err := failpoint.Inject(failpoint.ProtocolAfterPublish); err != nil {
		// a crash between the CAS and the reply: the commit is visible
		// but unacknowledged; readers materialize its versions
		return nil, false, newErr(KindResolutionUnknown, pw.OperationID, err, "injected failure after the commit was published")
	}
	c.materialize(ctx, pw, sn)
	return &Receipt{OperationID: pw.OperationID, CommitID: pw.Lineage.CommitID, Snapshot: sn}, false, nil
}

// Publish is the publisher's CAS loop: load the head, arbitrate each
// read-set member, apply the delta to the head state and PutIfAbsent
// version N+1; on a lost slot, reload and re-arbitrate. A changed member
// after effects is a recovery case (returned untyped; the caller maps
// it). Exported for recovery's roll-forward.
func (c *Coordinator) Publish(ctx context.Context, pw *PreparedWrite, budget int) (*graph.Snapshot, error) {
	return PublishDelta(ctx, c.Root, pw, budget, "")
}

// PublishDelta is Publish without a coordinator; recovery uses it to
// roll an intent forward with its exact, pre-minted lineage (recoveryKind
// is recorded in the commit).
func PublishDelta(ctx context.Context, root *graph.Root, pw *PreparedWrite, budget int, recoveryKind string) (*graph.Snapshot, error) {
	return publishFrom(ctx, root, pw, budget, recoveryKind, nil)
}

// barrierAndHead runs stage A and captures the base of stage B. When the
// recovery can report that its barrier found no intent at all
// (CleanBarrier), the head is read concurrently with the barrier: an
// intent whose owner is gone that existed when the head was read still
// exists when the barrier looks (only its resolution removes it, and a
// resolution publishes first), so "the barrier found nothing" proves no
// intent it would resolve precedes the head — the head is as good as one
// read after the barrier, and at worst stale, which the read set
// arbitrates on every CAS. (Intents the barrier does not know of are
// treated as live ones: recovery/doc.go, "Finding intents".) Otherwise (an intent was found, resolved or
// left to its live owner) the head is read again after the barrier.
// A hint (CommitOptions.HeadHint), a head the caller read before the
// barrier, stands for the concurrent read by the same argument.
// docs/write-protocol.md §4.1 and §7.
func (c *Coordinator) barrierAndHead(ctx context.Context, branch string, hint *graph.Snapshot) (*graph.Snapshot, error) {
	cb, ok := c.Recovery.(CleanBarrier)
	if ok && !c.SequentialRevalidate && hint != nil && hint.Branch == branch {
		clean, err := cb.BarrierClean(ctx, branch)
		if err != nil {
			return nil, err
		}
		if clean {
			return hint, nil
		}
	} else if ok && !c.SequentialRevalidate {
		type result struct {
			sn  *graph.Snapshot
			err error
		}
		hc := make(chan result, 1)
		go func() {
			sn, err := c.Root.Head(ctx, branch)
			hc <- result{sn, err}
		}()
		clean, err := cb.BarrierClean(ctx, branch)
		h := <-hc
		if err != nil {
			return nil, err
		}
		if clean && h.err == nil {
			return h.sn, nil
		}
	} else if err := c.Recovery.Barrier(ctx, branch); err != nil {
		return nil, err
	}
	sn, err := c.Root.Head(ctx, branch)
	if err != nil {
		return nil, c.branchErr(branch, err)
	}
	return sn, nil
}

// publishFrom is PublishDelta whose first attempt may start from a head
// the caller loaded (nil = load it).
func publishFrom(ctx context.Context, root *graph.Root, pw *PreparedWrite, budget int, recoveryKind string, known *graph.Snapshot) (*graph.Snapshot, error) {
	if budget <= 0 {
		budget = 64
	}
	for i := 0; i < budget; i++ {
		head := known
		known = nil
		if head == nil {
			var err error
			if head, err = root.Head(ctx, pw.Base.Branch); err != nil {
				return nil, err
			}
		}
		if head.Commit.ID == pw.Lineage.CommitID {
			return head, nil // our exact goal is already published
		}
		if err := pw.ReadSet.Check(head); err != nil {
			return nil, err
		}
		st, err := pw.Delta.Apply(head.State, pw.Effects)
		if err != nil {
			return nil, err
		}
		cm := graph.Commit{ID: pw.Lineage.CommitID, Parent: head.Commit.ID, MergedParent: pw.Lineage.MergedParent, Actor: pw.Lineage.Actor,
			Application: pw.Lineage.Application, Client: pw.Lineage.Client, Process: pw.Lineage.Process,
			Message: pw.Lineage.Message, Time: time.Now().UTC(), OperationID: pw.OperationID, WriterKind: string(pw.WriterKind), Recovery: recoveryKind,
			Members: pw.Lineage.Members}
		sn, err := root.Publish(ctx, head, st, cm)
		if err == nil {
			return sn, nil
		}
		var ce *lance.ConflictError
		if errors.As(err, &ce) && ce.Kind == lance.ConflictLost {
			continue
		}
		return nil, &publishError{err}
	}
	return nil, fmt.Errorf("protocol: manifest publish lost %d times in a row", budget)
}

func (c *Coordinator) recoveryRequired(pw *PreparedWrite, cause error, what string) error {
	c.Recovery.Abandon(pw)
	e := newErr(KindRecoveryRequired, pw.OperationID, cause, "%s after the write started; it will be completed or rolled back by recovery", what)
	e.Detail = "operation " + pw.OperationID
	return e
}

func (c *Coordinator) branchErr(branch string, err error) error {
	if graph.IsUnknownBranch(err) {
		return newErr(KindUnknownBranch, "", err, "branch %q does not exist", branch)
	}
	return err
}

func withOp(err error, op string) error {
	var e *Error
	if errors.As(err, &e) {
		e.OperationID = op
	}
	return err
}

// checkHeads compares the live Lance HEAD of every written table with
// its pin. HEAD ahead of the pin is either covered by a pending intent
// (another writer is mid-flight or crashed: re-prepare through the
// barrier) or uncovered drift, which is refused.
func (c *Coordinator) checkHeads(ctx context.Context, w Writer, pw *PreparedWrite) error {
	hp, _ := w.(HeadProber)
	for _, e := range pw.Effects {
		var head uint64
		var exists, ok bool
		var err error
		if hp != nil {
			head, exists, ok, err = hp.ProbeHead(ctx, pw, e)
		}
		if err == nil && !ok {
			head, exists, err = ProbeHead(ctx, c.Root, e)
		}
		if err != nil {
			return err
		}
		want := e.ExpectedVersion
		if _, pending := pendingBase(pw, e); pending && ((exists && head+1 == want) || (!exists && want == 1)) {
			// the base pin is published but not materialized yet; the
			// write materializes it before its CAS (materializeBases)
			continue
		}
		switch {
		case e.Kind == EffectCreate || e.Kind == EffectFirstTouch:
			if !exists {
				continue
			}
			if e.Kind == EffectFirstTouch {
				op, _, err := c.Recovery.Covering(ctx, e.Table, e.LanceBranch)
				if err != nil {
					return err
				}
				if op == "" {
					// A fork no intent covers and the graph does not pin
					// (the table is still inherited here): left by a
					// resolved or fenced writer. Every ref is created after
					// its sidecar, so no live writer owns it; reclaim it.
					if err := c.stillPinned(ctx, pw); err != nil {
						return err
					}
					if err := ReclaimFork(ctx, c.Root, e); err != nil {
						return err
					}
					continue
				}
			}
		case exists && head == want:
			continue
		case exists && head < want:
			return newErr(KindUncoveredDrift, pw.OperationID, nil, "table %s HEAD %d is behind its pinned version %d (invariant violation)", e.Table, head, want)
		}
		op, live, err := c.Recovery.Covering(ctx, e.Table, e.LanceBranch)
		if err != nil {
			return err
		}
		if op != "" && live {
			return &Error{Kind: KindContention, OperationID: pw.OperationID, Member: "table " + e.Table.String(),
				Message: "another writer that may still be running holds an unfinished write to this table", Detail: "operation " + op}
		}
		if op != "" {
			return &Error{Kind: KindReadSetChanged, OperationID: pw.OperationID, Member: "table " + e.Table.String(),
				Message: "another write to this table is in progress or awaiting recovery", Detail: "operation " + op}
		}
		if err := c.stillPinned(ctx, pw); err != nil {
			return err
		}
		return &Error{Kind: KindUncoveredDrift, OperationID: pw.OperationID,
			Message: fmt.Sprintf("table %s has physical versions no graph commit or recovery intent covers (HEAD %d, pinned %d, exists %v)", e.Table, head, want, exists),
			Detail:  "run `pgproxy verify`; an operator must repair it"}
	}
	return nil
}

// stillPinned re-reads the manifest after the sidecar listing. A writer
// deletes its sidecar only after its manifest CAS (and recovery only
// after its publish), so movement observed before a listing that found
// no sidecar is either visible in the manifest now — a read-set change,
// retried — or was made outside the protocol.
func (c *Coordinator) stillPinned(ctx context.Context, pw *PreparedWrite) error {
	fresh, err := c.Root.Head(ctx, pw.Base.Branch)
	if err != nil {
		return err
	}
	return withOp(pw.ReadSet.Check(fresh), pw.OperationID)
}

// ReclaimFork deletes an orphaned first-touch fork ref.
func ReclaimFork(ctx context.Context, root *graph.Root, e Effect) error {
	ds, err := lance.Open(ctx, root.Store(), e.Location, root.DatasetOptions(e.Location, "", 0))
	if err != nil {
		return err
	}
	if err := ds.DeleteBranch(ctx, e.LanceBranch); err != nil && !lance.IsNotFound(err) {
		return err
	}
	return nil
}

// ProbeHead returns the live HEAD of an effect's target ref: its latest
// version number, found without decoding that version's manifest
// (lance.LatestVersion).
func ProbeHead(ctx context.Context, root *graph.Root, e Effect) (uint64, bool, error) {
	v, err := lance.LatestVersion(ctx, root.Store(), e.Location, root.DatasetOptions(e.Location, e.LanceBranch, 0))
	if err != nil {
		if lance.IsNotFound(err) {
			return 0, false, nil
		}
		return 0, false, err
	}
	return v, true, nil
}

// commitID is the id of a commit made with o: the caller's, else a new one.
func commitID(o CommitOptions) string {
	if o.CommitID != "" {
		return o.CommitID
	}
	return graph.NewID()
}
