package protocol

import (
	"fmt"
	"sort"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
)

// WriterKind names a registered adapter (the registry is closed: see
// package adapters).
type WriterKind string

// BaseView is the immutable state a write was computed against. It is
// captured only after the recovery barrier (invariant 1).
type BaseView struct {
	Branch      string          `json:"branch"`
	Incarnation string          `json:"incarnation"`
	Snapshot    *graph.Snapshot `json:"-"`
	// ManifestVersion and Schema are the pinned values (also in the
	// sidecar).
	ManifestVersion uint64 `json:"manifest_version"`
	Schema          string `json:"schema"`
	Head            string `json:"head"` // graph head commit id
}

// NewBaseView pins sn.
func NewBaseView(sn *graph.Snapshot) BaseView {
	return BaseView{Branch: sn.Branch, Incarnation: sn.Incarnation, Snapshot: sn, ManifestVersion: sn.Version,
		Schema: sn.State.Schema.Identity(), Head: sn.Commit.ID}
}

// TableMember is the authority value of one table in a read set: the
// manifest entry fields whose change invalidates the prepared result.
type TableMember struct {
	Table   graph.TableKey   `json:"table"`
	Present bool             `json:"present"` // false: the table must still not exist
	State   graph.TableState `json:"state,omitempty"`
	Version uint64           `json:"version"`
	Branch  string           `json:"branch"`
	Epoch   uint64           `json:"epoch"`
	Written bool             `json:"written"` // written (else only probed)
}

// ReadSet is every authority value the prepared result depends on. The
// branch incarnation is the branch's manifest dataset itself (a deleted
// and re-created branch is a different chain); Schema is the accepted
// schema identity; Head, when set, requires an unchanged graph head.
type ReadSet struct {
	Branch      string        `json:"branch"`
	Incarnation string        `json:"incarnation"`
	Schema      string        `json:"schema,omitempty"` // "" = not a dependency
	Head        string        `json:"head,omitempty"`   // "" = not a dependency
	Tables      []TableMember `json:"tables"`           // sorted by key
}

// AddTable records the pinned entry of a table as a member (written or
// probed). Adding twice keeps Written if either said so.
func (rs *ReadSet) AddTable(st graph.State, k graph.TableKey, written bool) {
	e, ok := st.Table(k)
	m := TableMember{Table: k, Present: ok, Written: written}
	if ok {
		m.State, m.Version, m.Branch, m.Epoch = e.State, e.Version, e.Branch, e.Epoch
	}
	for i := range rs.Tables {
		if rs.Tables[i].Table == k {
			rs.Tables[i].Written = rs.Tables[i].Written || written
			return
		}
	}
	rs.Tables = append(rs.Tables, m)
	sort.Slice(rs.Tables, func(i, j int) bool {
		a, b := rs.Tables[i].Table, rs.Tables[j].Table
		return a.ID < b.ID || a.ID == b.ID && a.Incarnation < b.Incarnation
	})
}

// Check arbitrates every member against a fresh state; the first
// mismatch is a KindReadSetChanged error naming it.
func (rs ReadSet) Check(sn *graph.Snapshot) error {
	if rs.Incarnation != "" && sn.Incarnation != rs.Incarnation {
		return &Error{Kind: KindReadSetChanged, Member: "branch", Message: fmt.Sprintf("branch %q was deleted and re-created since this write was prepared", rs.Branch),
			Detail: fmt.Sprintf("incarnation %s, now %s", rs.Incarnation, sn.Incarnation)}
	}
	if rs.Schema != "" && sn.State.Schema.Identity() != rs.Schema {
		return &Error{Kind: KindReadSetChanged, Member: "schema", Message: "the schema changed since this write was prepared",
			Detail: fmt.Sprintf("expected %s, found %s", rs.Schema, sn.State.Schema.Identity())}
	}
	if rs.Head != "" && sn.Commit.ID != rs.Head {
		return &Error{Kind: KindReadSetChanged, Member: "head", Message: "the branch head moved since this write was prepared",
			Detail: fmt.Sprintf("expected %s, found %s", rs.Head, sn.Commit.ID)}
	}
	for _, m := range rs.Tables {
		e, ok := sn.State.Table(m.Table)
		var cur TableMember
		cur.Table, cur.Present, cur.Written = m.Table, ok, m.Written
		if ok {
			cur.State, cur.Version, cur.Branch, cur.Epoch = e.State, e.Version, e.Branch, e.Epoch
		}
		if cur != m {
			return &Error{Kind: KindReadSetChanged, Member: "table " + m.Table.String(),
				Message: fmt.Sprintf("table %s changed since this write was prepared", e.Name),
				Detail:  fmt.Sprintf("pinned version %d (branch %q, epoch %d), now %d (branch %q, epoch %d, present %v)", m.Version, m.Branch, m.Epoch, cur.Version, cur.Branch, cur.Epoch, ok)}
		}
	}
	return nil
}

// EffectKind is how an effect reaches durable state.
type EffectKind string

// Effect kinds.
const (
	// EffectStaged: a staged Lance transaction on an existing ref,
	// committed exactly at ExpectedVersion+1.
	EffectStaged EffectKind = "staged"
	// EffectCreate: a new table dataset created at version 1.
	EffectCreate EffectKind = "create"
	// EffectFirstTouch: create the table's Lance branch ref (from the
	// inherited version), then stage and commit on it.
	EffectFirstTouch EffectKind = "first_touch"
)

// PostShape is the possible post-state of an effect.
type PostShape string

// Post shapes.
const (
	PostExact PostShape = "exact" // exactly ExpectedVersion+1 with TxnUUID
)

// Effect is one adapter-declared physical effect.
type Effect struct {
	Table           graph.TableKey `json:"table"`
	Location        string         `json:"location"`
	LanceBranch     string         `json:"lance_branch"`
	ParentBranch    string         `json:"parent_branch,omitempty"` // first touch: fork source
	ParentVersion   uint64         `json:"parent_version,omitempty"`
	Kind            EffectKind     `json:"kind"`
	ExpectedVersion uint64         `json:"expected_version"`
	TxnUUID         string         `json:"txn_uuid"` // pre-minted
	RollbackUUID    string         `json:"rollback_uuid"`
	Post            PostShape      `json:"post"`
	RollbackSafe    bool           `json:"rollback_safe"`
	// Deferred: the effect's Lance version is not committed before the
	// manifest CAS; Apply stages it and computes its exact post-state in
	// memory (Confirmed), the CAS publishes the pin with TxnUUID as its
	// commit record, and the version is materialized afterwards
	// (commit path v2, doc.go). Set by the coordinator on every staged
	// and create effect.
	Deferred bool `json:"deferred,omitempty"`
	// Confirmed is the achieved post-state, set once committed (for a
	// deferred effect: once staged and previewed).
	Confirmed *Confirmed `json:"confirmed,omitempty"`
}

// Deferrable reports whether an effect kind is committed by
// materialization after the CAS: staged transactions on an existing ref
// and creations of fresh datasets. A first touch creates a branch ref,
// an independently durable effect, and keeps the sidecar path.
func (k EffectKind) Deferrable() bool { return k == EffectStaged || k == EffectCreate }

// Confirmed is an exact achieved post-state.
type Confirmed struct {
	Version  uint64 `json:"version"`
	RowCount uint64 `json:"row_count"`
	// Preview is a deferred effect's post-state built in memory
	// (lance.Staged.Preview), set by Apply. After the CAS publishes the
	// effect, the coordinator hands it to graph.Root.RememberPublished
	// so the next statement reads and stages on the published version
	// before it is materialized. Never persisted.
	Preview *lance.Dataset `json:"-"`
}

// TableUpdate is one output slot of the delta: it is bound to the
// effect's confirmed post-state and cannot change anything else.
type TableUpdate struct {
	Table  graph.TableKey `json:"table"`
	Branch string         `json:"branch"`
}

// Redefinition is a catalog-only change of a registered table: its SQL
// name, graph kind and definition are replaced; its data pointer
// (version, branch, row count, epoch) is kept from the head it is
// applied to, which the read set has proven equal to the base.
type Redefinition struct {
	Table graph.TableKey  `json:"table"`
	Name  string          `json:"name"`
	Kind  graph.TableKind `json:"kind"`
	Def   graph.TableDef  `json:"def"`
}

// ManifestDelta is the complete logical result to publish.
type ManifestDelta struct {
	Updates       []TableUpdate      `json:"updates"`
	Registrations []graph.TableEntry `json:"registrations,omitempty"`
	Tombstones    []graph.TableKey   `json:"tombstones,omitempty"`
	// Redefinitions are catalog-only changes (ALTER … RENAME TO, SET
	// DEFAULT, constraints): no physical effect.
	Redefinitions []Redefinition `json:"redefinitions,omitempty"`
	// NextID is the allocator after this write's id allocations (0 = unchanged).
	NextID uint64 `json:"next_id,omitempty"`
}

// SchemaChanging reports whether the delta changes the catalog.
func (d ManifestDelta) SchemaChanging() bool {
	return len(d.Registrations) > 0 || len(d.Tombstones) > 0 || len(d.Redefinitions) > 0
}

// Apply computes the published state from a fresh head state (which
// arbitration has proven equal to the base on every read-set member) and
// the confirmed effects. A slot without a confirmed effect is an error:
// the delta is never widened in place.
func (d ManifestDelta) Apply(head graph.State, effects []Effect) (graph.State, error) {
	st := head.Clone()
	conf := map[graph.TableKey]*Confirmed{}
	txn := map[graph.TableKey]string{}
	for _, e := range effects {
		conf[e.Table] = e.Confirmed
		if e.Deferred {
			txn[e.Table] = e.TxnUUID
		}
	}
	for _, r := range d.Registrations {
		st.Put(r)
	}
	for _, r := range d.Redefinitions {
		e, ok := st.Table(r.Table)
		if !ok || e.State != graph.Live {
			return graph.State{}, fmt.Errorf("protocol: redefinition names a table that is not live: %s", r.Table)
		}
		e.Name, e.Kind, e.Def = r.Name, r.Kind, r.Def
		st.Put(e)
	}
	for _, u := range d.Updates {
		c := conf[u.Table]
		if c == nil {
			return graph.State{}, fmt.Errorf("protocol: slot %s has no confirmed effect", u.Table)
		}
		e, ok := st.Table(u.Table)
		if !ok {
			return graph.State{}, fmt.Errorf("protocol: slot %s names an unregistered table", u.Table)
		}
		e.Version, e.Branch, e.RowCount, e.Txn = c.Version, u.Branch, c.RowCount, txn[u.Table]
		st.Put(e)
	}
	for _, k := range d.Tombstones {
		e, ok := st.Table(k)
		if !ok {
			return graph.State{}, fmt.Errorf("protocol: tombstone names an unregistered table %s", k)
		}
		e.State = graph.Dropped
		st.Put(e)
	}
	if d.NextID > st.Schema.NextID {
		st.Schema.NextID = d.NextID
	}
	if d.SchemaChanging() {
		st.Schema.Counter++
		st.Schema.Hash = graph.SchemaHash(st)
	}
	return st, st.Validate()
}

// LineageIntent is the pre-minted lineage of both outcomes.
type LineageIntent struct {
	CommitID         string `json:"commit_id"`
	RollbackCommitID string `json:"rollback_commit_id"`
	Actor            string `json:"actor"`
	Application      string `json:"application,omitempty"`
	Client           string `json:"client,omitempty"`
	Process          string `json:"process,omitempty"`
	Message          string `json:"message,omitempty"`
	// MergedParent is the source head a BranchMerge merged (recorded as
	// the commit's merged parent).
	MergedParent string `json:"merged_parent,omitempty"`
	// RecordMerge publishes the merge commit even when it changes no
	// table (the source's changes were all on the target already): the
	// merged parent must be recorded, or the next merge of the source
	// would compare from an older base (docs/write-protocol.md).
	RecordMerge bool `json:"record_merge,omitempty"`
	// Members are a group commit's member transactions (graph.Commit);
	// the writer fills them in Prepare.
	Members []graph.CommitMember `json:"members,omitempty"`
}

// Strategy is an adapter's declared recovery direction.
type Strategy string

// Strategies.
const (
	// RollBackArmedForwardConfirmed: an Armed intent is rolled back
	// (Restore to the pin, then publish so pin == HEAD); an
	// EffectsConfirmed intent is rolled forward with its exact delta.
	RollBackArmedForwardConfirmed Strategy = "rollback_armed_rollforward_confirmed"
)

// RecoveryPlan is the writer-specific recovery rule set, serialized into
// the sidecar before the first durable effect.
type RecoveryPlan struct {
	Strategy Strategy `json:"strategy"`
}

// PreparedWrite is one prepared attempt (docs/write-protocol.md §2).
type PreparedWrite struct {
	OperationID string         `json:"operation_id"`
	WriterKind  WriterKind     `json:"writer_kind"`
	Base        BaseView       `json:"base"`
	ReadSet     ReadSet        `json:"read_set"`
	Effects     []Effect       `json:"effects"`
	Delta       ManifestDelta  `json:"delta"`
	Lineage     *LineageIntent `json:"lineage,omitempty"`
	Recovery    RecoveryPlan   `json:"recovery"`
}

// Gates returns the gate keys of the attempt in acquisition order: the
// schema-control key for a catalog change, the branch (shared: only
// branch control excludes writers), then every written table.
// Probed tables take no gate; the publisher arbitrates them.
func (pw *PreparedWrite) Gates() []GateKey {
	var g []GateKey
	if pw.Delta.SchemaChanging() {
		g = append(g, SchemaGate())
	}
	g = append(g, BranchUseGate(pw.Base.Branch))
	for _, m := range pw.ReadSet.Tables {
		if m.Written {
			g = append(g, TableGate(pw.Base.Branch, m.Table))
		}
	}
	return SortGates(g)
}
