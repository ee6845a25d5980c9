package adapters

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/google/uuid"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/observe"
	"github.com/pggraph/pggraph/protocol"
)

// The BranchMerge adapter (registry kind "branch_merge", entry point
// Graph.Merge) merges a source graph branch into a target branch as one
// graph commit on the target whose lineage records the source head as
// merged parent.
//
// Bases. mergeBase (merge_base.go) finds the newest target version that
// is the fork point, the previous merge of this source, or a target
// commit the source merged in (catch-up merges are followed); the
// target and source snapshots there are the two sides' bases. A
// branch's history continues into its parent's up to its fork, so a
// branch of a branch merges too. Merge bases need the merged parent
// recorded in each merge commit.
//
// Rules, per table of the source (tables only the target changed are
// kept as they are):
//   - the same pin and definition on both sides: nothing to do (e.g. a
//     table both branches took in from a common parent);
//   - unchanged on the source since its base: nothing to do;
//   - created on the source: registered on the target with the same
//     stable id and incarnation (pointer adoption when its data lives on
//     the dataset's main Lance branch or on the target's own branch;
//     otherwise registered at the version its source fork started from,
//     and the fork's rows replayed onto it); a live target table of the
//     same name, or the same id registered on both sides, is a conflict;
//   - dropped on the source: tombstoned on the target, unless the target
//     changed the table (conflict);
//   - catalog change (rename, definition) on the source: applied as a
//     redefinition; when the target changed the catalog entry too, the
//     two are merged part by part (merge_definition.go), a part both
//     changed differently being a conflict;
//   - rows changed on one side of a table the other side re-columned
//     (a new incarnation with the same id): the rows merge into the
//     other incarnation with columns lined up by id
//     (merge_recolumn.go); re-columned on both sides: the two merge
//     into a new incarnation (merge_recolumn_both.go);
//   - rows changed on the source: the row delta since the source base
//     (merge_delta.go: rows gone, rows added, found by comparing
//     fragments by id and data-file identity) is replayed onto
//     the target's table as one staged Lance transaction (deletes +
//     appends; a first touch when the target branch inherits the table);
//     a row gone and an identical row added cancel out, so rows the
//     source took in from the target by an earlier merge are not
//     replayed back.
//     Deleted rows are matched on the target by whole-row value; a row
//     the source deleted or updated that the target no longer has means
//     both changed it: a conflict, unless both updated it in different
//     columns (merged per column: merge_columns.go). With a primary key,
//     every added key is checked against the target's keys: a duplicate
//     is a conflict;
//   - rows changed on both sides: allowed only for a table with a
//     primary key (the two checks above then prove the changes disjoint
//     at row level); without one the table is a conflict.
//
// Every conflict is collected and reported at once as a 40001 whose
// cause is a *MergeConflictError naming the tables (IsMergeConflict);
// nothing is written. Constraints across the two sides' changes (foreign
// keys, UNIQUE, CHECK) are the SQL layer's: a MergeCheck it registered
// (merge_check.go) sees the merged result before anything is written.
// Cost: O(history) to find the bases, O(changed fragments) to diff, and
// a scan of the target table for every replayed table with deletions or
// a primary key.
//
// Protocol: ReadSet = target incarnation, schema identity and head
// commit (any target commit since Prepare re-prepares the merge, which
// reclassifies against the new target), plus each written table. The
// source is read at its captured head (immutable pins): a later source
// commit is simply not part of this merge. Effects are Mutation's
// (one staged transaction per table, exact commit at pin+1; first touch
// sidecar → fork ref → stage → commit), so recovery is Mutation's:
// armed → roll back, confirmed → roll forward. Registrations and
// tombstones ride in the same manifest CAS.

// MergeConflict is one table the merge cannot combine.
type MergeConflict struct {
	Table  string
	Reason string
}

// MergeConflictError lists every conflict of a refused merge.
type MergeConflictError struct {
	From, Into string
	Conflicts  []MergeConflict
}

func (e *MergeConflictError) Error() string {
	var parts []string
	for _, c := range e.Conflicts {
		parts = append(parts, fmt.Sprintf("%s (%s)", c.Table, c.Reason))
	}
	return fmt.Sprintf("merge of %q into %q conflicts on %s", e.From, e.Into, strings.Join(parts, "; "))
}

// IsMergeConflict reports whether err is a refused merge.
func IsMergeConflict(err error) bool {
	var e *MergeConflictError
	return errors.As(err, &e)
}

// Merge merges branch from into branch into ("" = main) as one graph
// commit on into (see the rules above). Nothing to merge returns a
// receipt without a commit id.
func (g *Graph) Merge(ctx context.Context, from, into, message string) (*protocol.Receipt, error) {
	return g.MergeWith(ctx, MergeOptions{From: from, Into: into, Message: message})
}

// MergeOptions are Merge's arguments with the merge commit's attribution
// (as WriteOptions').
type MergeOptions struct {
	From, Into, Message        string
	Actor, Application, Client string
	// Strategy resolves rows both sides changed (same primary key): ""
	// refuses them (a conflict), MergeOurs keeps the target's row,
	// MergeTheirs takes the source's. Constraints are checked on the
	// result either way.
	Strategy string
	// CommitID is the id the merge commit will carry
	// (protocol.CommitOptions).
	CommitID string
}

// branches is the merge's source and target ("" = main); merging a
// branch into itself is refused.
func (o MergeOptions) branches() (from, into string, err error) {
	from, into = o.From, o.Into
	if from == "" {
		from = graph.MainBranch
	}
	if into == "" {
		into = graph.MainBranch
	}
	if from == into {
		return "", "", protocol.Errorf(protocol.KindInvalid, nil, "cannot merge branch %q into itself", from)
	}
	return from, into, nil
}

// Merge strategies (MergeOptions.Strategy).
const (
	MergeOurs   = "ours"
	MergeTheirs = "theirs"
)

// MergeWith is Merge with attribution.
func (g *Graph) MergeWith(ctx context.Context, o MergeOptions) (*protocol.Receipt, error) {
	from, into, err := o.branches()
	if err != nil {
		return nil, err
	}
	message := o.Message
	if message == "" {
		message = fmt.Sprintf("merge %s into %s", from, into)
	}
	p := observe.StartProgress(&observe.Progress{Command: "MERGE", Database: into, Relation: from})
	defer p.Done()
	switch o.Strategy {
	case "", MergeOurs, MergeTheirs:
	default:
		return nil, protocol.Errorf(protocol.KindInvalid, nil, "unknown merge strategy %q (ours or theirs)", o.Strategy)
	}
	w := &mergeWriter{g: g, from: from, into: into, strategy: o.Strategy,
		staged: map[string]map[graph.TableKey]*lance.Staged{}, plans: map[string]map[graph.TableKey]*tableOps{}}
	return g.commit(ctx, w, g.attribute(protocol.CommitOptions{Branch: into, Message: message}, o.Actor, o.Application, o.Client))
}

type mergeWriter struct {
	g          *Graph
	from, into string
	strategy   string // MergeOptions.Strategy
	mu         sync.Mutex
	staged     map[string]map[graph.TableKey]*lance.Staged // by operation id
	plans      map[string]map[graph.TableKey]*tableOps     // first touches, staged in Apply
	// staging (StageMerge, merge_stage.go): classify and collect row
	// conflicts, stage and write nothing
	staging bool
	// publish (PublishMerge): the source as it was staged, and the
	// session's final rows, which replace the computed replays
	source *graph.Snapshot
	rows   map[graph.TableKey]*MergedRows
	// staged is the staging run's outcome
	stagedPlan *mergePlan
	// stagedBoth: publishing, the incarnations staging wrote for tables
	// re-columned on both sides, by stable id (merge_recolumn_both.go)
	stagedBoth map[uint64]graph.TableEntry
}

func (w *mergeWriter) Kind() protocol.WriterKind { return BranchMerge }

func lanceBranchOf(b string) string {
	if b == graph.MainBranch {
		return ""
	}
	return b
}

func defEqual(a, b graph.TableDef) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func samePin(a, b graph.TableEntry) bool {
	return a.Location == b.Location && a.Branch == b.Branch && a.Version == b.Version
}

func sameCatalog(a, b graph.TableEntry) bool {
	return a.Name == b.Name && a.Kind == b.Kind && a.State == b.State && defEqual(a.Def, b.Def)
}

// Prepare classifies every source table against the bases and stages
// the replays (first touches keep their plan until Apply).
func (w *mergeWriter) Prepare(ctx context.Context, pw *protocol.PreparedWrite) error {
	target := pw.Base.Snapshot
	source := w.source
	if source == nil {
		var err error
		if source, err = w.g.Root.Head(ctx, w.from); err != nil {
			return branchErr(w.from, err)
		}
	}
	tb, sb, err := w.g.mergeBase(ctx, target, source)
	if err != nil {
		return err
	}
	pw.WriterKind = BranchMerge
	pw.Recovery.Strategy = protocol.RollBackArmedForwardConfirmed
	pw.ReadSet.Schema = target.State.Schema.Identity()
	pw.ReadSet.Head = target.Commit.ID
	pw.Lineage.MergedParent = source.Commit.ID
	// a source that moved since the base is recorded as merged even when
	// its changes are all on the target already (no table changes)
	pw.Lineage.RecordMerge = sb.Commit.ID != source.Commit.ID
	p := &mergePlan{w: w, pw: pw, target: target, targetLB: lanceBranchOf(w.into), sourceLB: lanceBranchOf(w.from),
		staged: map[graph.TableKey]*lance.Staged{}, plans: map[graph.TableKey]*tableOps{}, rows: map[graph.TableKey]*MergedRows{},
		source: source, sb: sb, recol: map[graph.TableKey]*recolumned{}, recolIDs: map[uint64]bool{}, both: map[uint64]bool{}, bothEntries: map[uint64]graph.TableEntry{}}
	if err := p.recolumnedOnBoth(ctx, sb, tb); err != nil {
		return err
	}
	if err := p.recolumnedOnSource(ctx, sb, tb); err != nil {
		return err
	}
	for _, s := range source.State.Tables {
		if err := p.table(ctx, s, sb, tb); err != nil {
			return err
		}
	}
	if w.rows != nil {
		if err := p.publishRows(ctx); err != nil {
			return err
		}
	}
	p.checkNames()
	if len(p.unsupported) > 0 {
		sort.Slice(p.unsupported, func(i, j int) bool { return p.unsupported[i].Table < p.unsupported[j].Table })
		var parts []string
		for _, c := range p.unsupported {
			parts = append(parts, fmt.Sprintf("table %q %s", c.Table, c.Reason))
		}
		hint := ""
		if len(p.unsupportedHints) > 0 {
			hint = ". " + strings.Join(p.unsupportedHints, " ")
		}
		return protocol.Errorf(protocol.KindUnsupported, nil, "merge of %q into %q: %s is not supported%s", w.from, w.into, strings.Join(parts, "; "), hint)
	}
	if len(p.conflicts) > 0 {
		sort.Slice(p.conflicts, func(i, j int) bool { return p.conflicts[i].Table < p.conflicts[j].Table })
		ce := &MergeConflictError{From: w.from, Into: w.into, Conflicts: p.conflicts}
		return protocol.Errorf(protocol.KindReadSetChanged, ce, "%s", ce.Error())
	}
	if w.staging {
		w.stagedPlan = p
		return nil
	}
	if check := mergeCheckOf(w.g); check != nil {
		if err := check(ctx, p.result()); err != nil {
			return err
		}
	}
	if len(pw.Delta.Registrations) > 0 && source.State.Schema.NextID > max(target.State.Schema.NextID, pw.Delta.NextID) {
		pw.Delta.NextID = source.State.Schema.NextID
	}
	p.assignOIDs()
	w.mu.Lock()
	w.staged[pw.OperationID] = p.staged
	w.plans[pw.OperationID] = p.plans
	w.mu.Unlock()
	return nil
}

// mergePlan is one Prepare's classification state.
type mergePlan struct {
	w                  *mergeWriter
	pw                 *protocol.PreparedWrite
	target             *graph.Snapshot
	targetLB, sourceLB string
	staged             map[graph.TableKey]*lance.Staged
	plans              map[graph.TableKey]*tableOps
	rows               map[graph.TableKey]*MergedRows // replayed deltas (merge checks)
	conflicts          []MergeConflict
	unsupported        []MergeConflict // cases the merge cannot combine yet (0A000)
	unsupportedHints   []string        // how to get out of them (sentences)
	source             *graph.Snapshot
	sb                 *graph.Snapshot // the source's base
	rowConflicts       []RowConflict   // staging: rows both sides changed
	// recol: the target's row changes merged into incarnations the source
	// re-columned, by the source's incarnation (merge_recolumn.go);
	// recolIDs: the stable ids of those tables
	recol    map[graph.TableKey]*recolumned
	recolIDs map[uint64]bool
	// both: the stable ids of tables re-columned on both sides, merged
	// into a new incarnation (merge_recolumn_both.go); bothEntries those
	// incarnations
	both        map[uint64]bool
	bothEntries map[uint64]graph.TableEntry
}

func (p *mergePlan) conflict(table, f string, a ...any) {
	p.conflicts = append(p.conflicts, MergeConflict{Table: table, Reason: fmt.Sprintf(f, a...)})
}

// checkNames finds live-name collisions in the merged catalog: a table
// the source registers or renames whose name another live target table
// keeps (a table the source replaced — ALTER rewrite, TRUNCATE — is
// tombstoned in the same merge and frees its name).
func (p *mergePlan) checkNames() {
	live := map[string]graph.TableKey{}
	for _, e := range p.target.State.Tables {
		if e.State == graph.Live {
			live[e.Name] = e.Key()
		}
	}
	drop := func(k graph.TableKey) {
		for n, o := range live {
			if o == k {
				delete(live, n)
			}
		}
	}
	for _, k := range p.pw.Delta.Tombstones {
		drop(k)
	}
	claim := func(name string, k graph.TableKey) {
		if o, ok := live[name]; ok && o != k {
			if o.ID == k.ID {
				p.conflict(name, "rewritten on both branches (ALTER TABLE that rewrites rows, or TRUNCATE)%s", p.bothRewrites(k, o))
			} else {
				p.conflict(name, "a different table of that name was created on %s", p.w.into)
			}
			return
		}
		live[name] = k
	}
	for _, r := range p.pw.Delta.Redefinitions {
		drop(r.Table)
	}
	for _, r := range p.pw.Delta.Redefinitions {
		claim(r.Name, r.Table)
	}
	for _, r := range p.pw.Delta.Registrations {
		claim(r.Name, r.Key())
	}
}

// bothRewrites describes, in SQL terms, how the source's incarnation sk
// and the target's tk of one table changed its columns since the
// source's base.
func (p *mergePlan) bothRewrites(sk, tk graph.TableKey) string {
	base, ok := liveEntryWithID(&p.sb.State, sk.ID)
	s, sok := p.source.State.Table(sk)
	t, tok := p.target.State.Table(tk)
	if !ok || !sok || !tok {
		return ""
	}
	return fmt.Sprintf(": on %s %s; on %s %s — one side's ALTER TABLE must be re-applied after merging the other",
		p.w.from, defChange(base, s), p.w.into, defChange(base, t))
}

// table classifies one source table.
func (p *mergePlan) table(ctx context.Context, s graph.TableEntry, sb, tb *graph.Snapshot) error {
	k := s.Key()
	if p.both[k.ID] {
		return nil // merged by recolumnedOnBoth
	}
	sbE, sbOK := sb.State.Table(k)
	if sbOK && samePin(s, sbE) && sameCatalog(s, sbE) {
		return nil // unchanged on the source
	}
	t, tOK := p.target.State.Table(k)
	if tOK && samePin(s, t) && sameCatalog(s, t) {
		return nil // the target already holds exactly the source's table
	}
	tbE, tbOK := tb.State.Table(k)
	tgtChanged := tOK != tbOK || tOK && !(samePin(t, tbE) && sameCatalog(t, tbE))
	switch {
	case !sbOK: // created on the source
		if s.State != graph.Live {
			return nil
		}
		if tOK {
			if liveWithID(&sb.State, k.ID) {
				p.conflict(s.Name, "rewritten on both branches (ALTER TABLE that rewrites rows, or TRUNCATE)%s", p.bothRewrites(k, k))
				return nil
			}
			// only tables both branches created before a table created
			// off main got a random id (graph.BranchID) share one
			p.conflict(s.Name, "the same table id was registered on both branches (a table created on %s and one on %s before table ids were unique per branch): re-create the table on a branch other than main (CREATE TABLE … AS) and merge again", p.w.from, p.w.into)
			return nil
		}
		reg := s
		if s.Branch == "" || s.Branch == p.targetLB {
			p.pw.Delta.Registrations = append(p.pw.Delta.Registrations, reg)
			p.pw.ReadSet.AddTable(p.target.State, k, false)
			if rc := p.recol[k]; rc != nil {
				delete(p.recol, k)
				return p.applyRecolumned(ctx, reg, rc)
			}
			return nil
		}
		if s.Branch != p.sourceLB {
			p.conflict(s.Name, "its data lives on branch %q, neither the source nor the target", s.Branch)
			return nil
		}
		ref, err := lance.GetBranch(ctx, p.w.g.Root.Store(), s.Location, s.Branch)
		if err != nil {
			return err
		}
		parent := ref.ParentBranchName()
		if parent != "" && parent != p.targetLB {
			p.conflict(s.Name, "its source fork starts on branch %q", parent)
			return nil
		}
		reg.Branch, reg.Version = parent, ref.ParentVersion
		pds, err := p.w.g.openPin(ctx, pinOf(reg))
		if err != nil {
			return err
		}
		reg.RowCount = pds.CountRows()
		p.pw.Delta.Registrations = append(p.pw.Delta.Registrations, reg)
		return p.replay(ctx, reg, pinOf(reg), pinOf(s), s.Def.PrimaryKey)
	case s.State != graph.Live: // dropped on the source
		if sbE.State != graph.Live {
			return nil
		}
		if tgtChanged {
			if liveWithID(&p.source.State, k.ID) {
				if p.recolIDs[k.ID] {
					// re-columned on the source, rows changed on the target:
					// the target's changes are merged into the source's
					// incarnation (recolumnedOnSource), this one goes
					p.pw.Delta.Tombstones = append(p.pw.Delta.Tombstones, k)
					p.pw.ReadSet.AddTable(p.target.State, k, false)
					return nil
				}
				if tOK && t.State == graph.Live && !sameCatalog(t, tbE) {
					p.conflict(s.Name, "its definition changed on both branches: %s re-columned it (ALTER TABLE that rewrites rows, or TRUNCATE) while %s altered it (%s)",
						p.w.from, p.w.into, defChange(tbE, t))
					return nil
				}
				p.unsupported = append(p.unsupported, MergeConflict{Table: s.Name, Reason: fmt.Sprintf(
					"rewritten on %s (ALTER TABLE that rewrites rows, or TRUNCATE) while %s changed it: merging changes into a rewritten table", p.w.from, p.w.into)})
				return nil
			}
			p.conflict(s.Name, "dropped on %s but changed on %s", p.w.from, p.w.into)
			return nil
		}
		p.pw.Delta.Tombstones = append(p.pw.Delta.Tombstones, k)
		p.pw.ReadSet.AddTable(p.target.State, k, false)
		return nil
	}
	if !tOK || t.State != graph.Live {
		if t2, ok := liveEntryWithID(&p.target.State, k.ID); ok {
			return p.intoRecolumned(ctx, s, sbE, t2)
		}
		if liveWithID(&p.target.State, k.ID) {
			p.unsupported = append(p.unsupported, MergeConflict{Table: s.Name, Reason: fmt.Sprintf(
				"rewritten on %s (ALTER TABLE that rewrites rows, or TRUNCATE) while %s changed it: merging changes into a rewritten table", p.w.into, p.w.from)})
			return nil
		}
		p.conflict(s.Name, "changed on %s but dropped on %s", p.w.from, p.w.into)
		return nil
	}
	if !sameCatalog(s, sbE) {
		def := s
		if !sameCatalog(t, tbE) {
			// both changed the definition: merged part by part
			// (merge_definition.go)
			if !sameCatalog(sbE, tbE) {
				p.conflict(s.Name, "its definition changed on both branches since different bases")
				return nil
			}
			var cs []string
			if def, cs = mergeDefinition(sbE, s, t); len(cs) > 0 {
				p.conflict(s.Name, "its definition changed on both branches: %s", strings.Join(cs, "; "))
				return nil
			}
		}
		p.pw.Delta.Redefinitions = append(p.pw.Delta.Redefinitions, protocol.Redefinition{Table: k, Name: def.Name, Kind: def.Kind, Def: def.Def})
		p.pw.ReadSet.AddTable(p.target.State, k, false)
	}
	if samePin(s, sbE) {
		return nil
	}
	if tgtChanged && !samePin(t, tbE) && len(s.Def.PrimaryKey) == 0 {
		// both changed rows of a table without a primary key: rows are
		// merged by value (merge_keyless.go)
		if !tbOK {
			p.conflict(s.Name, "rows changed on both branches and the table has no primary key (and no base on %s)", p.w.into)
			return nil
		}
		return p.replayKeyless(ctx, t, pinOf(tbE), pinOf(sbE), pinOf(s))
	}
	return p.replay(ctx, t, pinOf(sbE), pinOf(s), s.Def.PrimaryKey)
}

// replayInputs opens what a replay of the row delta from base to src
// onto entry onto reads: base and src, the target, and the delta; ok
// false when there is nothing to replay (a staged merge being published
// carries the session's rows; an empty delta).
func (p *mergePlan) replayInputs(ctx context.Context, onto graph.TableEntry, base, src pin) (old, cur, tds *lance.Dataset, d rowDelta, ok bool, err error) {
	if p.w.rows != nil {
		return nil, nil, nil, d, false, nil // publishing a staged merge: its rows are the session's (publishRows)
	}
	g := p.w.g
	if old, err = g.openPin(ctx, base); err != nil {
		return
	}
	if cur, err = g.openPin(ctx, src); err != nil {
		return
	}
	if d, err = deltaOf(ctx, old, cur); err != nil || d.empty() {
		return
	}
	tds, err = g.openPin(ctx, pinOf(onto))
	return old, cur, tds, d, err == nil, err
}

// replay stages the row delta from base to src (one physical lineage)
// onto the target entry onto.
func (p *mergePlan) replay(ctx context.Context, onto graph.TableEntry, base, src pin, pk []string) error {
	old, cur, tds, d, ok, err := p.replayInputs(ctx, onto, base, src)
	// the target's changes merged into this incarnation the source
	// re-columned (merge_recolumn.go) ride with its replay
	extra := p.recol[onto.Key()]
	delete(p.recol, onto.Key())
	if err != nil {
		return err
	}
	if !ok {
		if extra != nil {
			return p.applyRecolumned(ctx, onto, extra)
		}
		return nil
	}
	if !tds.Schema().Equal(cur.Schema()) {
		p.conflict(onto.Name, "its physical schemas differ between the branches")
		return nil
	}
	var pkIdx []int
	if len(pk) > 0 {
		if pkIdx, err = colIndexes(tds.Schema(), pk); err != nil {
			return err
		}
	}
	resolve := (p.w.strategy != "" || p.w.staging) && pkIdx != nil
	want := map[string]int{}
	wantPK := map[string]string{}   // whole-row key → primary key
	baseAddr := map[string]uint64{} // primary key → base row address
	if len(d.deleted) > 0 {
		if err := forEachRow(ctx, old, lanceScan(d.deleted), func(rec arrow.RecordBatch, i int, addr uint64) error {
			key := rowKey(rec, i, dataCols(rec))
			want[key]++
			if pkIdx != nil {
				wantPK[key] = rowKey(rec, i, pkIdx)
				baseAddr[wantPK[key]] = addr
			}
			return nil
		}); err != nil {
			return err
		}
	}
	// A row gone and an identical row added cancel out (a compaction, or
	// the target's own rows the source took in through an earlier merge):
	// nothing to replay for them.
	var kept []uint64
	var keptKeys []string
	if len(d.added) > 0 {
		if err := forEachRow(ctx, cur, lanceScan(d.added), func(rec arrow.RecordBatch, i int, addr uint64) error {
			if key := rowKey(rec, i, dataCols(rec)); want[key] > 0 {
				want[key]--
				return nil
			}
			kept = append(kept, addr)
			if pkIdx != nil {
				keptKeys = append(keptKeys, rowKey(rec, i, pkIdx))
			}
			return nil
		}); err != nil {
			return err
		}
	}
	for k, n := range want {
		if n == 0 {
			delete(want, k)
		}
	}
	keyOfAddr := map[uint64]string{} // source rows' keys (extra)
	if extra != nil && pkIdx != nil {
		for i, a := range kept {
			keyOfAddr[a] = keptKeys[i]
		}
	}
	var dels []uint64
	keys := map[string]bool{}
	keyAddr := map[string]uint64{} // target rows by primary key
	if len(want) > 0 || pkIdx != nil && (len(kept) > 0 || extra != nil) {
		// whole rows are read only to match deletions; a key check alone
		// reads just the key columns (rowKey over the same values, so the
		// keys compare equal to keptKeys)
		scan, keyIdx := lance.ScanOptions{}, pkIdx
		if len(want) == 0 {
			scan.Columns = pk
			keyIdx = make([]int, len(pk))
			for i := range keyIdx {
				keyIdx[i] = i
			}
		}
		if err := forEachRow(ctx, tds, scan, func(rec arrow.RecordBatch, i int, addr uint64) error {
			if len(want) > 0 {
				if key := rowKey(rec, i, dataCols(rec)); want[key] > 0 {
					want[key]--
					dels = append(dels, addr)
					return nil
				}
			}
			if pkIdx != nil {
				k := rowKey(rec, i, keyIdx)
				keys[k] = true
				keyAddr[k] = addr
			}
			return nil
		}); err != nil {
			return err
		}
	}
	// a row both sides deleted is no conflict: the source's deletion
	// has nothing left to delete
	if pkIdx != nil && len(want) > 0 {
		srcKeys := make(map[string]bool, len(keptKeys))
		for _, k := range keptKeys {
			srcKeys[k] = true
		}
		for key, n := range want {
			if n <= 0 {
				continue
			}
			if _, inTarget := keyAddr[wantPK[key]]; !inTarget && !srcKeys[wantPK[key]] {
				delete(want, key)
			}
		}
	}
	// rows both sides updated in different columns merge
	// (merge_columns.go); what is left conflicts
	var merged arrow.RecordBatch
	if pkIdx != nil && len(want) > 0 && len(kept) > 0 {
		cm, err := mergeColumns(ctx, old, cur, tds, want, wantPK, baseAddr, kept, keptKeys, keyAddr)
		if err != nil {
			return err
		}
		kept, keptKeys, merged = cm.kept, cm.keptKeys, cm.added
		dels = append(dels, cm.dels...)
	}
	var staged arrow.RecordBatch
	if p.w.staging && resolve {
		sr, err := p.stageConflicts(ctx, onto.Name, old, cur, tds, want, wantPK, baseAddr, kept, keptKeys, keyAddr)
		if err != nil {
			return err
		}
		// the staged per-column merges come after the source's rows and
		// the clean per-column merges in the table's added rows
		before := len(sr.kept)
		if merged != nil {
			before += int(merged.NumRows())
		}
		for _, rc := range sr.conflicts {
			if rc.StagedRow >= 0 {
				rc.StagedRow += before
			}
			p.rowConflicts = append(p.rowConflicts, rc)
		}
		kept, staged = sr.kept, sr.added
		dels = append(dels, sr.dels...)
	} else if resolve {
		kept, dels = p.resolveRows(want, wantPK, kept, keptKeys, keyAddr, dels)
	} else {
		for _, n := range want {
			if n > 0 {
				p.conflict(onto.Name, "rows that %s deleted or updated were also changed on %s", p.w.from, p.w.into)
				return nil
			}
		}
		for _, k := range keptKeys {
			if keys[k] {
				p.conflict(onto.Name, "a primary key added on %s exists on %s", p.w.from, p.w.into)
				return nil
			}
			keys[k] = true
		}
	}
	if extra != nil {
		// the target's merged rows replace the source's with their keys
		var k2 []uint64
		for _, a := range kept {
			if !extra.delKeys[keyOfAddr[a]] {
				k2 = append(k2, a)
			}
		}
		kept = k2
		for k := range extra.delKeys {
			if a, ok := keyAddr[k]; ok {
				dels = append(dels, a)
			}
		}
		// without a primary key: the target's deleted copies by value
		// (merge_recolumn_keyless.go)
		vd, err := valueDeletes(ctx, tds, extra, dels)
		if err != nil {
			return err
		}
		dels = append(dels, vd...)
	}
	var inserts []Source
	if len(kept) > 0 {
		inserts = []Source{rowsAt(cur, kept)}
	}
	if extra != nil && extra.added != nil {
		inserts = append(inserts, Batches(cur.Schema(), extra.added))
	}
	if merged != nil {
		inserts = append(inserts, Batches(cur.Schema(), merged))
	}
	if staged != nil {
		inserts = append(inserts, Batches(cur.Schema(), staged))
	}
	if len(dels) == 0 && len(inserts) == 0 {
		return nil
	}
	mr := &MergedRows{Deleted: dels}
	switch len(inserts) {
	case 0:
	case 1:
		mr.Added = inserts[0]
	default:
		mr.Added = concatSources(cur.Schema(), inserts...)
	}
	p.rows[onto.Key()] = mr
	if p.w.staging {
		return nil // staging writes nothing
	}
	return p.stageRows(ctx, onto, tds, &tableOps{inserts: inserts, deletes: dels})
}

// stageRows declares the effect writing ops onto the target's table onto
// (tds: its dataset at onto's pin) and stages its Lance transaction (a
// first touch is staged in Apply, after the fork).
func (p *mergePlan) stageRows(ctx context.Context, onto graph.TableEntry, tds *lance.Dataset, ops *tableOps) error {
	k := onto.Key()
	p.pw.Delta.Updates = append(p.pw.Delta.Updates, protocol.TableUpdate{Table: k, Branch: p.targetLB})
	p.pw.ReadSet.AddTable(p.target.State, k, true)
	if onto.Branch != p.targetLB {
		// first touch on the target branch: fork after the sidecar
		p.plans[k] = ops
		p.pw.Effects = append(p.pw.Effects, protocol.Effect{Table: k, Location: onto.Location, LanceBranch: p.targetLB,
			ParentBranch: onto.Branch, ParentVersion: onto.Version, Kind: protocol.EffectFirstTouch,
			ExpectedVersion: onto.Version, TxnUUID: uuid.NewString(), Post: protocol.PostExact, RollbackSafe: true})
		return nil
	}
	txn := uuid.NewString()
	st, err := stageOps(ctx, tds, ops, lance.StageOptions{UUID: txn})
	if err != nil {
		return wrapStageErr(onto.Name, err)
	}
	p.staged[k] = st
	p.pw.Effects = append(p.pw.Effects, protocol.Effect{Table: k, Location: onto.Location, LanceBranch: onto.Branch,
		Kind: protocol.EffectStaged, ExpectedVersion: onto.Version, TxnUUID: txn, Post: protocol.PostExact, RollbackSafe: true})
	return nil
}

func lanceScan(addrs []uint64) lance.ScanOptions { return lance.ScanOptions{RowAddresses: addrs} }

// Apply commits every replay exactly at its pin + 1 (first touches fork
// the target ref first), recording each exact post-state.
func (w *mergeWriter) Apply(ctx context.Context, pw *protocol.PreparedWrite) error {
	w.mu.Lock()
	staged, plans := w.staged[pw.OperationID], w.plans[pw.OperationID]
	delete(w.staged, pw.OperationID)
	delete(w.plans, pw.OperationID)
	w.mu.Unlock()
	landed, ambiguous := false, false
	var firstErr error
	for i := range pw.Effects {
		e := &pw.Effects[i]
		s := staged[e.Table]
		if e.Kind == protocol.EffectFirstTouch {
			// the Mutation adapter's first touch: fork ref, then stage on it
			mw := &mutationWriter{root: w.g.Root, store: w.g.Root.Store()}
			var created bool
			var err error
			inherited, ok := pw.Base.Snapshot.State.Table(e.Table)
			if !ok {
				// a table this merge registers (a source incarnation the
				// target's rows merge into: merge_recolumn.go)
				for _, r := range pw.Delta.Registrations {
					if r.Key() == e.Table {
						inherited = r
					}
				}
			}
			if s, created, err = mw.firstTouch(ctx, *e, plans[e.Table], inherited); err != nil {
				firstErr = err
				if !created && lance.IsExists(err) {
					continue // a concurrent first toucher owns the ref: ours never existed
				}
				ambiguous = true
				break
			}
		}
		if s == nil || s.UUID != e.TxnUUID {
			return fmt.Errorf("adapters: merge effect %s has no staged transaction %s", e.Table, e.TxnUUID)
		}
		if e.Deferred {
			// commit path v2: materialized after the CAS (mutation.go)
			nd, err := s.Preview(ctx)
			if err != nil {
				firstErr = err
				break
			}
			e.Confirmed = &protocol.Confirmed{Version: nd.Version(), RowCount: nd.CountRows()}
			continue
		}
		nd, err := s.Commit(ctx, lance.CommitOptions{Mode: lance.CommitExact})
		if err != nil {
			var ce *lance.ConflictError
			if !(errors.As(err, &ce) && ce.Kind == lance.ConflictLost && ce.Winner != nil && ce.Winner.UUID != e.TxnUUID) {
				ambiguous = true
			}
			firstErr = err
			break
		}
		landed = true
		if nd.Version() != e.ExpectedVersion+1 {
			return fmt.Errorf("adapters: table %s landed at %d, outside the declared exact post-state %d", e.Table, nd.Version(), e.ExpectedVersion+1)
		}
		e.Confirmed = &protocol.Confirmed{Version: nd.Version(), RowCount: nd.CountRows()}
	}
	if firstErr != nil && !landed && !ambiguous {
		return fmt.Errorf("%w: %v", protocol.ErrNoEffect, firstErr)
	}
	return firstErr
}

// DefersEffects: replays are committed by materialization after the
// manifest CAS, as Mutation's (protocol.Deferrer).
func (w *mergeWriter) DefersEffects() bool { return !w.g.legacy }

// Discard forgets an abandoned attempt's staged transactions.
func (w *mergeWriter) Discard(pw *protocol.PreparedWrite) {
	w.mu.Lock()
	delete(w.staged, pw.OperationID)
	delete(w.plans, pw.OperationID)
	w.mu.Unlock()
}

// liveWithID reports a live table with stable id id in st (a table
// rewritten into a new incarnation keeps its id).
func liveWithID(st *graph.State, id uint64) bool {
	for _, e := range st.Tables {
		if e.ID == id && e.State == graph.Live {
			return true
		}
	}
	return false
}
