package adapters

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/protocol"
)

// StageFunc fills a Stage against the attempt's base snapshot. It runs
// once per prepared attempt (again after a transparent re-prepare), so it
// must recompute everything from the base it is given: validators, row
// addresses, probes.
type StageFunc func(ctx context.Context, s *Stage) error

// mutationWriter is the Mutation (and SchemaApply) adapter: one staged
// Lance transaction per touched table, committed exactly at pin+1.
type mutationWriter struct {
	root            *graph.Root
	store           objstore.Store
	maxRowsPerFile  uint64
	maxBytesPerFile int64
	fn              StageFunc
	mu              sync.Mutex
	staged          map[string]map[graph.TableKey]*lance.Staged // by operation id
	// first-touch tables keep their logical input until Apply
	pending map[string]map[graph.TableKey]*tableOps
	// predicted: each effect's row count known before its files are
	// written (by operation id; absent = unknown)
	predicted map[string]map[graph.TableKey]uint64
	// fragments: each table's fragment count at its confirmed post-state
	// (what the automatic Optimize trigger looks at)
	fragments map[graph.TableKey]int
	// heads (may be nil) shares committed dataset handles across writes
	heads *committedHeads
	// bg: each attempt's background staging (by operation id);
	// stageSync stages inside Prepare instead (benchmark baseline)
	bg        map[string]*backgroundStaging
	stageSync bool
	legacy    bool // commit before the CAS (Options.LegacyCommitPath)
}

func newMutationWriter(root *graph.Root, fn StageFunc) *mutationWriter {
	return &mutationWriter{root: root, store: root.Store(), fn: fn, staged: map[string]map[graph.TableKey]*lance.Staged{},
		pending: map[string]map[graph.TableKey]*tableOps{}}
}

func (w *mutationWriter) Kind() protocol.WriterKind { return Mutation }

// stageOptions are the Lance staging options of one transaction: its
// pre-minted UUID and the data file cut (the unit of write memory).
func (w *mutationWriter) stageOptions(txn string) lance.StageOptions {
	return lance.StageOptions{UUID: txn, MaxRowsPerFile: w.maxRowsPerFile, MaxBytesPerFile: w.maxBytesPerFile}
}

// Prepare runs the caller's staging function and stages one Lance
// transaction per touched table against its pinned version. No HEAD
// moves: staged files are reclaimable if the attempt restarts.
func (w *mutationWriter) Prepare(ctx context.Context, pw *protocol.PreparedWrite) error {
	base := pw.Base.Snapshot
	st := newStage(base)
	if err := w.fn(ctx, st); err != nil {
		return err
	}
	if len(st.members) > 0 {
		// a group commit: its id and attribution are its first member's
		pw.Lineage.Members = append([]graph.CommitMember(nil), st.members...)
		m := st.members[0]
		pw.Lineage.CommitID, pw.Lineage.Actor, pw.Lineage.Application = m.ID, m.Actor, m.Application
		pw.Lineage.Client, pw.Lineage.Process, pw.Lineage.Message = m.Client, m.Process, m.Message
	}
	pw.ReadSet.Schema = base.State.Schema.Identity()
	pw.Recovery.Strategy = protocol.RollBackArmedForwardConfirmed
	pw.WriterKind = st.writerKind()
	staged := map[graph.TableKey]*lance.Staged{}
	predicted := map[graph.TableKey]uint64{}
	var jobs []stageJob
	schemaRow := base.State.Schema
	for _, p := range st.pending {
		if p.dropped {
			continue
		}
		// a new table gets a fresh id; a replacement (ALTER rewrite,
		// TRUNCATE) keeps the id and gets a new incarnation
		// a table created off main gets a random id, its OID the counter
		// value main would have used (graph.BranchID)
		var id uint64
		var oid uint32
		switch {
		case p.replaces != nil:
			id, oid = p.replaces.ID, p.replaces.OID
		case base.Branch != graph.MainBranch:
			id, oid = freshTableID(), uint32(graph.FirstUserOID+schemaRow.Allocate())
		default:
			id = schemaRow.Allocate()
		}
		inc := schemaRow.Allocate()
		def := p.def
		def.Columns = append([]graph.ColumnDef(nil), def.Columns...)
		for i := range def.Columns {
			if def.Columns[i].ID == 0 {
				if p.replaces != nil {
					// a column added by a rewrite: a random id, unique
					// across branches (freshColumnID)
					def.Columns[i].ID = freshColumnID()
				} else {
					def.Columns[i].ID = schemaRow.Allocate()
				}
			}
		}
		key := graph.TableKey{ID: id, Incarnation: inc}
		txn := uuid.NewString()
		entry := graph.TableEntry{ID: id, Incarnation: inc, OID: oid, Name: p.name, Kind: p.kind, Def: def,
			Location: datasetLocation(key, txn), State: graph.Live}
		as, err := physicalSchema(def)
		if err != nil {
			return protocol.Errorf(protocol.KindInvalidDefinition, err, "invalid definition of %q", p.name)
		}
		sources, name := p.ops.inserts, p.name
		jobs = append(jobs, stageJob{key: key, open: func(context.Context) (*lance.Dataset, error) {
			return lance.New(w.store, entry.Location, w.root.DatasetOptions(entry.Location, "", 0)), nil
		}, stage: func(ctx context.Context, ds *lance.Dataset) (*lance.Staged, error) {
			rdr := newChain(ctx, as, sources)
			defer rdr.Release()
			s, err := ds.StageOverwrite(ctx, rdr, w.stageOptions(txn))
			return s, wrapStageErr(name, err)
		}})
		pw.Effects = append(pw.Effects, protocol.Effect{Table: key, Location: entry.Location, Kind: protocol.EffectCreate,
			ExpectedVersion: 0, TxnUUID: txn, Post: protocol.PostExact, RollbackSafe: true})
		if n, ok := p.ops.predictedRows(0); ok {
			predicted[key] = n
		}
		pw.Delta.Registrations = append(pw.Delta.Registrations, entry)
		pw.Delta.Updates = append(pw.Delta.Updates, protocol.TableUpdate{Table: key})
		pw.ReadSet.AddTable(base.State, key, true)
	}
	for _, k := range st.redefOf {
		r := st.redefs[k]
		pw.Delta.Redefinitions = append(pw.Delta.Redefinitions, protocol.Redefinition{Table: k, Name: r.name, Kind: r.kind, Def: r.def})
		pw.ReadSet.AddTable(base.State, k, false)
	}
	lanceBranch := ""
	if pw.Base.Branch != graph.MainBranch {
		lanceBranch = pw.Base.Branch
	}
	pending := map[graph.TableKey]*tableOps{}
	for _, k := range st.order {
		o := st.ops[k]
		e, _ := base.State.Table(k)
		if len(o.inserts) == 0 && len(o.deletes) == 0 && o.compact == nil {
			continue
		}
		if e.Branch != lanceBranch {
			// First touch on this graph branch: the table is inherited at
			// (e.Branch, e.Version). Keep the logical input and pre-mint
			// the transaction id; the fork ref is created only after the
			// sidecar is durable (Apply).
			pending[k] = o
			pw.Effects = append(pw.Effects, protocol.Effect{Table: k, Location: e.Location, LanceBranch: lanceBranch,
				ParentBranch: e.Branch, ParentVersion: e.Version, Kind: protocol.EffectFirstTouch,
				ExpectedVersion: e.Version, TxnUUID: uuid.NewString(), Post: protocol.PostExact, RollbackSafe: true})
			pw.Delta.Updates = append(pw.Delta.Updates, protocol.TableUpdate{Table: k, Branch: lanceBranch})
			pw.ReadSet.AddTable(base.State, k, true)
			continue
		}
		txn := uuid.NewString()
		if o.compact != nil || o.onlyLoads() {
			// Optimize stages its Rewrite, and Load streams its rows, in
			// Apply: under the held table gate and after the sidecar is
			// durable. Both take longer than a small write, so staged here
			// they would lose their read set to every concurrent writer of
			// the table (a consumed COPY stream cannot re-prepare: 40001);
			// under the gate those writers wait for them instead, and a
			// read-set change before the stream is read re-prepares.
			pending[k] = o
			pw.Effects = append(pw.Effects, protocol.Effect{Table: k, Location: e.Location, LanceBranch: e.Branch,
				Kind: protocol.EffectStaged, ExpectedVersion: e.Version, TxnUUID: txn, Post: protocol.PostExact, RollbackSafe: true})
			pw.Delta.Updates = append(pw.Delta.Updates, protocol.TableUpdate{Table: k, Branch: e.Branch})
			pw.ReadSet.AddTable(base.State, k, true)
			continue
		}
		if n, ok := o.predictedRows(e.RowCount); ok {
			predicted[k] = n
		}
		jobs = append(jobs, stageJob{key: k, open: func(ctx context.Context) (*lance.Dataset, error) {
			return w.heads.open(ctx, w, e)
		}, stage: func(ctx context.Context, ds *lance.Dataset) (*lance.Staged, error) {
			s, err := stageOps(ctx, ds, o, w.stageOptions(txn))
			return s, wrapStageErr(e.Name, err)
		}, predict: o.predictedWithDeletes})
		pw.Effects = append(pw.Effects, protocol.Effect{Table: k, Location: e.Location, LanceBranch: e.Branch,
			Kind: protocol.EffectStaged, ExpectedVersion: e.Version, TxnUUID: txn, Post: protocol.PostExact, RollbackSafe: true})
		pw.Delta.Updates = append(pw.Delta.Updates, protocol.TableUpdate{Table: k, Branch: e.Branch})
		pw.ReadSet.AddTable(base.State, k, true)
	}
	// Open every target now (revalidation probes HEAD on these handles);
	// stage them in parallel (independent datasets) in the background:
	// see backgroundStaging.
	bases := make([]*lance.Dataset, len(jobs))
	counts := make([]uint64, len(jobs))
	known := make([]bool, len(jobs))
	if err := objstore.Parallel(ctx, len(jobs), 8, func(ctx context.Context, i int) error {
		ds, err := jobs[i].open(ctx)
		bases[i] = ds
		// deletes whose rows are certainly live in the base: the
		// post-state row count is known before the files are written
		// (Predict)
		if err == nil && ds != nil && jobs[i].predict != nil {
			counts[i], known[i] = jobs[i].predict(ctx, ds)
		}
		return err
	}); err != nil {
		return err
	}
	for i, j := range jobs {
		if known[i] {
			predicted[j.key] = counts[i]
		}
	}
	bg := &backgroundStaging{done: make(chan struct{}), bases: map[graph.TableKey]*lance.Dataset{}}
	for i, j := range jobs {
		bg.bases[j.key] = bases[i]
	}
	if w.stageSync || len(jobs) == 0 {
		bg.run(ctx, jobs, bases, staged)
		if bg.err != nil {
			return bg.err // nothing committed: staged files are unreferenced garbage
		}
	} else {
		go bg.run(ctx, jobs, bases, staged)
	}
	for k := range st.probes {
		pw.ReadSet.AddTable(base.State, k, false)
	}
	for _, k := range st.drops {
		pw.Delta.Tombstones = append(pw.Delta.Tombstones, k)
		pw.ReadSet.AddTable(base.State, k, false)
	}
	if schemaRow.NextID != base.State.Schema.NextID {
		pw.Delta.NextID = schemaRow.NextID
	}
	w.mu.Lock()
	w.staged[pw.OperationID] = staged
	w.pending[pw.OperationID] = pending
	if w.predicted == nil {
		w.predicted = map[string]map[graph.TableKey]uint64{}
	}
	w.predicted[pw.OperationID] = predicted
	if w.bg == nil {
		w.bg = map[string]*backgroundStaging{}
	}
	w.bg[pw.OperationID] = bg
	w.mu.Unlock()
	return nil
}

// backgroundStaging writes an attempt's staged files (Lance data,
// deletion and transaction files) while the coordinator takes the gates,
// revalidates and makes the sidecar durable, instead of before. Those
// files are referenced by nothing until their table's exact commit in
// Apply, which waits for them: docs/write-protocol.md §3 allows reclaimable uncommitted
// files before or after the sidecar, and no HEAD moves before Apply. A
// staging failure found in Apply landed nothing, so it is returned as
// protocol.NoEffectFinal (the empty intent is finalized, the error
// reaches the caller unchanged, as it did from Prepare). Discard waits
// for the staging so no write of an abandoned attempt outlives it.
type backgroundStaging struct {
	done  chan struct{}
	err   error
	bases map[graph.TableKey]*lance.Dataset
}

func (b *backgroundStaging) run(ctx context.Context, jobs []stageJob, bases []*lance.Dataset, staged map[graph.TableKey]*lance.Staged) {
	defer close(b.done)
	results := make([]*lance.Staged, len(jobs))
	b.err = objstore.Parallel(ctx, len(jobs), 8, func(ctx context.Context, i int) error {
		s, err := jobs[i].stage(ctx, bases[i])
		results[i] = s
		return err
	})
	if b.err == nil {
		for i, j := range jobs {
			staged[j.key] = results[i]
		}
	}
}

// background returns the attempt's staging (nil if none).
func (w *mutationWriter) background(pw *protocol.PreparedWrite) *backgroundStaging {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.bg[pw.OperationID]
}

// datasetLocation is where a new table incarnation's dataset is created:
// the table key plus the creating transaction, so two writers in
// different processes that prepared against the same base (and so
// allocated the same ids) never create the same dataset — the manifest
// CAS (schema identity) picks one, and the loser's dataset is an
// unregistered leftover its recovery classifies as its own
// (created_only), never as foreign movement.
func datasetLocation(k graph.TableKey, txn string) string {
	return graph.TablesDir + k.String() + "-" + strings.ReplaceAll(txn, "-", "")[:12] + ".lance"
}

// stageOps stages one table's logical changes on ds.
func stageOps(ctx context.Context, ds *lance.Dataset, o *tableOps, opts lance.StageOptions) (*lance.Staged, error) {
	if o.compact != nil {
		return ds.StageCompaction(ctx, *o.compact, opts)
	}
	if len(o.inserts) > 0 {
		rdr := newChain(ctx, ds.Schema(), o.inserts)
		defer rdr.Release()
		if len(o.deletes) > 0 {
			return ds.StageUpdate(ctx, o.deletes, rdr, opts)
		}
		return ds.StageAppend(ctx, rdr, opts)
	}
	return ds.StageDelete(ctx, o.deletes, opts)
}

// firstTouch forks the table's Lance branch from the inherited version
// and stages the retained changes on it (called under the held gates,
// after the sidecar is durable). created reports whether the ref is ours.
func (w *mutationWriter) firstTouch(ctx context.Context, e protocol.Effect, o *tableOps, inherited graph.TableEntry) (s *lance.Staged, created bool, err error) {
	// the inherited pin may not be materialized yet (commit path v2)
	if _, err := w.root.Materialize(ctx, inherited); err != nil {
		return nil, false, err
	}
	parent, err := lance.Open(ctx, w.store, e.Location, w.root.DatasetOptions(e.Location, e.ParentBranch, e.ParentVersion))
	if err != nil {
		return nil, false, err
	}
	fork, err := parent.CreateBranch(ctx, e.LanceBranch, e.ParentVersion)
	if err != nil {
		return nil, false, err
	}
	s, err = stageOps(ctx, fork, o, w.stageOptions(e.TxnUUID))
	return s, true, err
}

// stageJob stages one table's transaction.
type stageJob struct {
	key   graph.TableKey
	open  func(ctx context.Context) (*lance.Dataset, error)
	stage func(ctx context.Context, ds *lance.Dataset) (*lance.Staged, error)
	// predict, when set, may know the post-state row count from the
	// opened base (tableOps.predictedWithDeletes)
	predict func(ctx context.Context, ds *lance.Dataset) (uint64, bool)
}

func wrapStageErr(table string, err error) error {
	if err == nil {
		return nil
	}
	if lance.IsNotFound(err) || errorsIsInvalid(err) {
		return protocol.Errorf(protocol.KindInvalid, err, "cannot stage the change to %q: %v", table, err)
	}
	return err
}

func errorsIsInvalid(err error) bool { return errors.Is(err, lance.ErrInvalidArgument) }

// Apply commits every staged transaction exactly at its read version + 1
// (zero transparent retries), in parallel, and records each exact
// post-state. A lost slot is not retried: after arming, it is a recovery
// case.
func (w *mutationWriter) Apply(ctx context.Context, pw *protocol.PreparedWrite) error {
	if bg := w.background(pw); bg != nil {
		<-bg.done
		if bg.err != nil {
			w.Discard(pw)
			return protocol.NoEffectFinal(bg.err)
		}
	}
	w.mu.Lock()
	delete(w.bg, pw.OperationID)
	staged := w.staged[pw.OperationID]
	pending := w.pending[pw.OperationID]
	delete(w.staged, pw.OperationID)
	delete(w.pending, pw.OperationID)
	delete(w.predicted, pw.OperationID)
	w.mu.Unlock()
	if staged == nil {
		return fmt.Errorf("adapters: no staged transactions for %s", pw.OperationID)
	}
	if err := w.stageLate(ctx, pw, staged, pending); err != nil {
		return err
	}
	// outcome per effect: 0 not attempted, 1 landed, 2 lost the slot to
	// another transaction (ours can then never land: exact commits only
	// ever use read_version+1), 3 anything else (ambiguous)
	outcome := make([]int, len(pw.Effects))
	err := objstore.Parallel(ctx, len(pw.Effects), 8, func(ctx context.Context, i int) error {
		e := &pw.Effects[i]
		s := staged[e.Table]
		if e.Kind == protocol.EffectFirstTouch {
			var created bool
			var err error
			inherited, _ := pw.Base.Snapshot.State.Table(e.Table)
			s, created, err = w.firstTouch(ctx, *e, pending[e.Table], inherited)
			if err != nil {
				outcome[i] = 3
				if !created && lance.IsExists(err) {
					outcome[i] = 2 // a concurrent first toucher owns the ref
				}
				if created && pending[e.Table].onlyLoads() {
					// a load's stream failed on our new fork (bad COPY
					// data): nothing was committed on it, so dropping
					// the ref — recovery's action for ref_only — leaves
					// no effect, and the stream's error is final
					if derr := protocol.ReclaimFork(ctx, w.root, *e); derr == nil {
						outcome[i] = 0
						te, _ := pw.Base.Snapshot.State.Table(e.Table)
						return protocol.NoEffectFinal(wrapStageErr(te.Name, err))
					}
				}
				return err
			}
		}
		if s == nil || s.UUID != e.TxnUUID {
			outcome[i] = 3
			return fmt.Errorf("adapters: effect %s has no staged transaction %s", e.Table, e.TxnUUID)
		}
		if e.Deferred {
			// commit path v2: no version is committed before the CAS; the
			// exact post-state is the manifest the materialization builds
			nd, err := s.Preview(ctx)
			if err != nil {
				return err // nothing landed (outcome stays 0)
			}
			w.noteFragments(e.Table, len(nd.Fragments()))
			if c := e.Confirmed; c != nil {
				// predicted (Predict): the CAS, held until Apply returns,
				// must publish exactly what the preview built
				if c.Version != nd.Version() || c.RowCount != nd.CountRows() {
					// nothing landed and re-preparing would predict the same
					return protocol.NoEffectFinal(fmt.Errorf("adapters: table %s: predicted post-state version %d with %d rows, staged %d with %d", e.Table, c.Version, c.RowCount, nd.Version(), nd.CountRows()))
				}
				c.Preview = nd
				return nil
			}
			e.Confirmed = &protocol.Confirmed{Version: nd.Version(), RowCount: nd.CountRows(), Preview: nd}
			return nil
		}
		nd, err := s.Commit(ctx, lance.CommitOptions{Mode: lance.CommitExact})
		if err != nil {
			var ce *lance.ConflictError
			if errors.As(err, &ce) && ce.Kind == lance.ConflictLost && ce.Winner != nil && ce.Winner.UUID != e.TxnUUID {
				outcome[i] = 2
			} else {
				outcome[i] = 3
			}
			return err
		}
		outcome[i] = 1
		if nd.Version() != e.ExpectedVersion+1 {
			return fmt.Errorf("adapters: table %s landed at %d, outside the declared exact post-state %d", e.Table, nd.Version(), e.ExpectedVersion+1)
		}
		e.Confirmed = &protocol.Confirmed{Version: nd.Version(), RowCount: nd.CountRows()}
		w.heads.remember(nd, e.Location, e.LanceBranch)
		w.noteFragments(e.Table, len(nd.Fragments()))
		return nil
	})
	if err != nil {
		noEffect := true
		for _, o := range outcome {
			if o == 1 || o == 3 {
				noEffect = false
			}
		}
		switch {
		case noEffect && errors.Is(err, protocol.ErrNoEffect):
			return err // keeps a NoEffectFinal marker
		case noEffect:
			return fmt.Errorf("%w: %v", protocol.ErrNoEffect, err)
		case errors.Is(err, protocol.ErrNoEffect):
			// another effect landed: this is no empty intent
			return fmt.Errorf("adapters: %v", err)
		}
	}
	return err
}

// noteFragments records a table's fragment count at its post-state (the
// automatic Optimize trigger reads it).
func (w *mutationWriter) noteFragments(k graph.TableKey, n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fragments == nil {
		w.fragments = map[graph.TableKey]int{}
	}
	w.fragments[k] = n
}

// Predict sets every effect's post-state from the row counts known in
// Prepare, before its files are written (protocol.Predictor), when all
// of them are known and deferred; Apply then checks the preview against
// them.
func (w *mutationWriter) Predict(pw *protocol.PreparedWrite) bool {
	w.mu.Lock()
	pred := w.predicted[pw.OperationID]
	w.mu.Unlock()
	for _, e := range pw.Effects {
		if _, ok := pred[e.Table]; !ok || !e.Deferred || e.Confirmed != nil {
			return false
		}
	}
	for i := range pw.Effects {
		e := &pw.Effects[i]
		e.Confirmed = &protocol.Confirmed{Version: e.ExpectedVersion + 1, RowCount: pred[e.Table]}
	}
	return true
}

// DefersEffects: staged and create effects are committed by
// materialization after the manifest CAS (protocol.Deferrer).
func (w *mutationWriter) DefersEffects() bool { return !w.legacy }

// stageLate stages the effects kept for Apply on existing refs (Optimize
// rewrites, Load streams), all before any commit: HEAD == pin was
// revalidated under the held gate, so a failure here lands nothing. A
// load's failure (bad COPY data, a validator's error, a consumed
// stream) is final — the stream cannot be replayed — and is returned as
// is; a compaction's restarts the attempt. Streaming a load takes a
// while, so the read set is checked again afterwards: a change (a probed
// table another writer committed meanwhile) restarts the attempt before
// any effect, and the re-prepared attempt answers 40001 when it finds
// the stream consumed.
func (w *mutationWriter) stageLate(ctx context.Context, pw *protocol.PreparedWrite, staged map[graph.TableKey]*lance.Staged, pending map[graph.TableKey]*tableOps) error {
	var late []int
	loads := false
	for i, e := range pw.Effects {
		if e.Kind == protocol.EffectStaged && staged[e.Table] == nil && pending[e.Table] != nil {
			late = append(late, i)
			loads = loads || pending[e.Table].compact == nil
		}
	}
	if len(late) == 0 {
		return nil
	}
	var mu sync.Mutex
	err := objstore.Parallel(ctx, len(late), 8, func(ctx context.Context, j int) error {
		e := pw.Effects[late[j]]
		o := pending[e.Table]
		te, _ := pw.Base.Snapshot.State.Table(e.Table)
		ds, err := w.heads.open(ctx, w, te)
		if err != nil {
			return err
		}
		s, err := stageOps(ctx, ds, o, w.stageOptions(e.TxnUUID))
		if err != nil {
			if o.compact == nil {
				te, _ := pw.Base.Snapshot.State.Table(e.Table)
				return protocol.NoEffectFinal(wrapStageErr(te.Name, err))
			}
			return err
		}
		mu.Lock()
		staged[e.Table] = s
		mu.Unlock()
		return nil
	})
	if err != nil {
		if errors.Is(err, protocol.ErrNoEffect) {
			return err
		}
		return fmt.Errorf("%w: %v", protocol.ErrNoEffect, err)
	}
	if !loads {
		return nil
	}
	fresh, err := w.root.Head(ctx, pw.Base.Branch)
	if err != nil {
		return fmt.Errorf("%w: %v", protocol.ErrNoEffect, err)
	}
	if err := pw.ReadSet.Check(fresh); err != nil {
		return fmt.Errorf("%w: %v", protocol.ErrNoEffect, err)
	}
	return nil
}

// ProbeHead answers revalidation for staged effects from the dataset
// they were staged against: Latest probes version pin+1 only.
func (w *mutationWriter) ProbeHead(ctx context.Context, pw *protocol.PreparedWrite, e protocol.Effect) (uint64, bool, bool, error) {
	if e.Kind != protocol.EffectStaged {
		return 0, false, false, nil
	}
	w.mu.Lock()
	var base *lance.Dataset
	if bg := w.bg[pw.OperationID]; bg != nil {
		base = bg.bases[e.Table]
	}
	w.mu.Unlock()
	if base == nil {
		return 0, false, false, nil
	}
	ds, err := base.Latest(ctx)
	if err != nil {
		return 0, false, false, err
	}
	return ds.Version(), true, true, nil
}

// Discard forgets an abandoned attempt's staged transactions (their
// files are unreferenced and reclaimable).
func (w *mutationWriter) Discard(pw *protocol.PreparedWrite) {
	if bg := w.background(pw); bg != nil {
		<-bg.done
	}
	w.mu.Lock()
	delete(w.bg, pw.OperationID)
	delete(w.staged, pw.OperationID)
	delete(w.pending, pw.OperationID)
	delete(w.predicted, pw.OperationID)
	w.mu.Unlock()
}
