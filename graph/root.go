package graph

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/oklog/ulid/v2"

	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/lance/format"
	"github.com/pggraph/pggraph/objstore"
)

// Layout of a root (docs/architecture.md, "Storage layout of a root").
const (
	ManifestRoot = "__manifest.lance"
	AuditRoot    = "__audit.lance"
	RecoveryDir  = "__recovery/"
	TablesDir    = "tables/"
	// MainBranch is the default graph branch.
	MainBranch = "main"
)

// Root is an open graph root. It is safe for concurrent use; it caches
// the latest known __manifest dataset per branch so that finding the
// head is one probe of version N+1.
type Root struct {
	store    objstore.Store
	stamp    Stamp
	location string // absolute location of the root, recorded in Lance base paths

	mu    sync.Mutex
	heads map[string]*lance.Dataset // branch → latest known manifest dataset
	incs  map[string]string         // branch → incarnation of the cached chain
	// decoded caches the decoded state of each branch's latest known head
	// (see headcache.go): an unchanged head costs no JSON decode.
	decoded map[string]*decodedHead
	// tables remembers the table datasets this process's commits
	// produced (tablecache.go)
	tables tableCache
	// deleteGuard runs between a branch's seal and its ref removal
	// (seal.go); set by the recovery manager.
	deleteGuard BranchDeleteGuard
}

// Options open a root.
type Options struct {
	// Location is the root's absolute location (the directory of a local
	// store). Lance records it in the base paths of branches, so every
	// handle of a root must use the same one. Default: the store's Root()
	// when it has one, else a virtual "/pggraph-virtual/<graph id>" (for
	// in-memory roots).
	Location string
}

type rooter interface{ Root() string }

func (r *Root) setLocation(o Options) {
	switch {
	case o.Location != "":
		r.location = strings.TrimRight(o.Location, "/")
	default:
		if rt, ok := r.store.(rooter); ok {
			r.location = strings.TrimRight(rt.Root(), "/")
		} else {
			r.location = "/pggraph-virtual/" + r.stamp.GraphID
		}
	}
}

// Location returns the root's absolute location.
func (r *Root) Location() string { return r.location }

// DatasetOptions locates the dataset at key (e.g. a table location) for
// lance.Open/New with this root's location.
func (r *Root) DatasetOptions(key, branch string, version uint64) lance.Options {
	return lance.Options{Location: r.location + "/" + strings.Trim(key, "/"), Branch: branch, Version: version}
}

// Store returns the root's store.
func (r *Root) Store() objstore.Store { return r.store }

// Stamp returns the root's format stamp.
func (r *Root) Stamp() Stamp { return r.stamp }

// NewID mints a ULID (operation ids, commit ids).
func NewID() string { return ulid.MustNew(ulid.Now(), rand.Reader).String() }

// Init creates a new root (stamp, then __manifest version 1) or completes
// one whose init was interrupted. created reports whether this call wrote
// the stamp.
func Init(ctx context.Context, store objstore.Store, actor string) (r *Root, created bool, err error) {
	return InitWith(ctx, store, actor, Options{})
}

// InitWith is Init with options.
func InitWith(ctx context.Context, store objstore.Store, actor string, o Options) (r *Root, created bool, err error) {
	st, created, err := InitStamp(ctx, store, actor)
	if err != nil {
		return nil, false, err
	}
	r = &Root{store: store, stamp: st, heads: map[string]*lance.Dataset{}, incs: map[string]string{}, decoded: map[string]*decodedHead{}}
	r.setLocation(o)
	if err := r.ensureManifest(ctx, actor); err != nil {
		return nil, created, err
	}
	return r, created, nil
}

// Open opens an existing root. A root whose stamp exists but whose
// __manifest was never created (init crashed between the two writes) is
// completed: that state can only come from our own init, since no other
// writer runs before the manifest exists. A root without a stamp is
// refused (IsNotInitialized / IsUnusableRoot).
func Open(ctx context.Context, store objstore.Store) (*Root, error) {
	return OpenWith(ctx, store, Options{})
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, store objstore.Store, o Options) (*Root, error) {
	st, err := ReadStamp(ctx, store)
	if err != nil {
		return nil, err
	}
	r := &Root{store: store, stamp: st, heads: map[string]*lance.Dataset{}, incs: map[string]string{}, decoded: map[string]*decodedHead{}}
	r.setLocation(o)
	if err := r.ensureManifest(ctx, "pggraph:init-completion"); err != nil {
		return nil, err
	}
	return r, nil
}

// OpenReadOnly opens an existing root without writing anything. A root
// whose init was interrupted (stamp, no __manifest) gives
// ErrInitIncomplete.
func OpenReadOnly(ctx context.Context, store objstore.Store) (*Root, error) {
	st, err := ReadStamp(ctx, store)
	if err != nil {
		return nil, err
	}
	r := &Root{store: store, stamp: st, heads: map[string]*lance.Dataset{}, incs: map[string]string{}, decoded: map[string]*decodedHead{}}
	r.setLocation(Options{})
	ds, err := lance.Open(ctx, store, ManifestRoot, r.DatasetOptions(ManifestRoot, "", 0))
	if errors.Is(err, lance.ErrDatasetNotFound) {
		return r, ErrInitIncomplete
	}
	if err != nil {
		return nil, err
	}
	if _, _, err := r.readState(ctx, ds); err != nil {
		return nil, err
	}
	r.setHead(MainBranch, ds)
	return r, nil
}

// manifestSchema is the Lance schema of __manifest rows: one row per
// registered table plus the schema row, each with a JSON payload. The
// rows are the interoperable view of the state (the official Lance reads
// them); our reader uses the identical copy inline in the manifest's
// transaction, which costs no extra I/O.
var manifestSchema = arrow.NewSchema([]arrow.Field{
	{Name: "object_id", Type: arrow.BinaryTypes.String},
	{Name: "kind", Type: arrow.BinaryTypes.String},
	{Name: "payload", Type: arrow.BinaryTypes.String},
}, nil)

func stateRows(st State) (array.RecordReader, error) {
	b := array.NewRecordBuilder(memory.DefaultAllocator, manifestSchema)
	defer b.Release()
	add := func(id, kind string, v any) error {
		js, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b.Field(0).(*array.StringBuilder).Append(id)
		b.Field(1).(*array.StringBuilder).Append(kind)
		b.Field(2).(*array.StringBuilder).Append(string(js))
		return nil
	}
	if err := add("schema", "schema", st.Schema); err != nil {
		return nil, err
	}
	for _, t := range st.Tables {
		if err := add("table:"+t.Key().String(), "table", t); err != nil {
			return nil, err
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return array.NewRecordReader(manifestSchema, []arrow.RecordBatch{rec})
}

// RootCommitID is the id of the initial commit; it is derived from the
// graph id so that concurrent init completions publish the same commit.
func (r *Root) RootCommitID() string { return r.stamp.GraphID }

func (r *Root) ensureManifest(ctx context.Context, actor string) error {
	ds, err := lance.Open(ctx, r.store, ManifestRoot, r.DatasetOptions(ManifestRoot, "", 0))
	if err == nil {
		_, _, derr := r.readState(ctx, ds)
		if derr != nil {
			return derr
		}
		r.setHead(MainBranch, ds)
		return nil
	}
	if !errors.Is(err, lance.ErrDatasetNotFound) {
		return err
	}
	st := State{Schema: SchemaRow{NextID: 1}}
	st.Schema.Hash = SchemaHash(st)
	c := Commit{ID: r.RootCommitID(), Actor: actor, Message: "init", Time: time.Now().UTC(), WriterKind: "init"}
	_, err = r.publishOn(ctx, lance.New(r.store, ManifestRoot, r.DatasetOptions(ManifestRoot, "", 0)), st, c)
	if err != nil && !lance.IsConflict(err) {
		return fmt.Errorf("graph: completing init (create __manifest): %w", err)
	}
	ds, err = lance.Open(ctx, r.store, ManifestRoot, r.DatasetOptions(ManifestRoot, "", 0))
	if err != nil {
		return err
	}
	r.setHead(MainBranch, ds)
	return nil
}

func (r *Root) setHead(branch string, ds *lance.Dataset) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if cur, ok := r.heads[branch]; !ok || cur.Version() < ds.Version() {
		r.heads[branch] = ds
	}
}

func (r *Root) readState(ctx context.Context, ds *lance.Dataset) (State, Commit, error) {
	txn, err := ds.Transaction(ctx, ds.Version())
	if err != nil {
		return State{}, Commit{}, err
	}
	// A branch's first version re-commits its parent's manifest with a
	// shallow Clone: the state (and commit) are the parent's at the fork.
	for hops := 0; hops < 64; hops++ {
		cl, ok := txn.Op.(*format.Clone)
		if !ok {
			break
		}
		parent := ""
		if cl.RefName != nil {
			parent = *cl.RefName
		}
		pds, err := lance.Open(ctx, r.store, ManifestRoot, r.DatasetOptions(ManifestRoot, lanceBranch(parent), cl.RefVersion))
		if err != nil {
			return State{}, Commit{}, err
		}
		if txn, err = pds.Transaction(ctx, pds.Version()); err != nil {
			return State{}, Commit{}, err
		}
	}
	return decodeState(txn.Properties)
}

// Snapshot is an immutable graph state: one version of one branch's
// __manifest.
type Snapshot struct {
	Branch string
	// Incarnation identifies the branch's lifetime ("main", or its Lance
	// ref id): a deleted and re-created branch differs.
	Incarnation string
	Version     uint64 // manifest version
	Commit      Commit
	State       State
	ds          *lance.Dataset
}

func (r *Root) snapshotOf(ctx context.Context, branch string, ds *lance.Dataset) (*Snapshot, error) {
	st, c, err := r.readState(ctx, ds)
	if err != nil {
		return nil, err
	}
	inc := MainBranch
	if branch != MainBranch {
		inc = ""
	}
	return &Snapshot{Branch: branch, Incarnation: inc, Version: ds.Version(), Commit: c, State: st, ds: ds}, nil
}

func lanceBranch(b string) string {
	if b == MainBranch || b == "" {
		return ""
	}
	return b
}

// dataset returns the latest known manifest dataset of a branch (opening
// it cold the first time).
func (r *Root) dataset(ctx context.Context, branch string) (*lance.Dataset, error) {
	r.mu.Lock()
	ds := r.heads[branch]
	r.mu.Unlock()
	if ds != nil {
		return ds, nil
	}
	ds, err := lance.Open(ctx, r.store, ManifestRoot, r.DatasetOptions(ManifestRoot, lanceBranch(branch), 0))
	if err != nil {
		if lance.IsNotFound(err) && branch != MainBranch {
			return nil, &BranchError{Branch: branch, Err: ErrUnknownBranch}
		}
		return nil, err
	}
	r.setHead(branch, ds)
	return ds, nil
}

// Head returns the latest snapshot of a branch: one probe of N+1 when
// warm (O(1) in history). A branch whose head is DeleteBranch's seal is
// being deleted and reported unknown (ErrBranchDeleting).
func (r *Root) Head(ctx context.Context, branch string) (*Snapshot, error) {
	sn, err := r.head(ctx, branch)
	if err != nil {
		return nil, err
	}
	if sn.Sealed() {
		return nil, &BranchError{Branch: sn.Branch, Err: ErrBranchDeleting}
	}
	return sn, nil
}

// KnownNewer reports, without I/O, whether this process already knows a
// manifest version of sn's branch (same incarnation) newer than sn: a
// base that is certainly stale (the coordinator then revalidates before
// writing anything more).
func (r *Root) KnownNewer(sn *Snapshot) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	ds := r.heads[sn.Branch]
	return ds != nil && r.incs[sn.Branch] == sn.Incarnation && ds.Version() > sn.Version
}

// head is Head without the seal check.
func (r *Root) head(ctx context.Context, branch string) (*Snapshot, error) {
	if branch == "" {
		branch = MainBranch
	}
	inc, err := r.incarnation(ctx, branch)
	if err != nil {
		return nil, err
	}
	ds, err := r.dataset(ctx, branch)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	cached, known := r.incs[branch]
	if !known {
		r.incs[branch] = inc
	} else if cached != inc {
		// the cached chain belongs to an earlier incarnation
		delete(r.heads, branch)
		r.incs[branch] = inc
	}
	r.mu.Unlock()
	if known && cached != inc {
		if ds, err = r.dataset(ctx, branch); err != nil {
			return nil, err
		}
	}
	ds, err = ds.Latest(ctx)
	if err != nil {
		return nil, err
	}
	r.setHead(branch, ds)
	if sn := r.cachedHead(branch, inc, ds); sn != nil {
		return sn, nil
	}
	st, c, err := r.readState(ctx, ds)
	if err != nil {
		return nil, err
	}
	r.remember(branch, inc, ds.Version(), st, c)
	return &Snapshot{Branch: branch, Incarnation: inc, Version: ds.Version(), Commit: c, State: st.share(), ds: ds}, nil
}

// SnapshotAt returns the snapshot at manifest version v of a branch.
func (r *Root) SnapshotAt(ctx context.Context, branch string, v uint64) (*Snapshot, error) {
	if branch == "" {
		branch = MainBranch
	}
	ds, err := r.dataset(ctx, branch)
	if err != nil {
		return nil, err
	}
	ds, err = ds.Checkout(ctx, v)
	if err != nil {
		return nil, err
	}
	return r.snapshotOf(ctx, branch, ds)
}

// History returns the commits of a branch, oldest first, each with its
// manifest version. It reads every version (time travel is O(history);
// the write path never calls it).
func (r *Root) History(ctx context.Context, branch string) ([]*Snapshot, error) {
	head, err := r.Head(ctx, branch)
	if err != nil {
		return nil, err
	}
	vs, err := head.ds.ListVersions(ctx)
	if err != nil {
		return nil, err
	}
	var out []*Snapshot
	for _, v := range vs {
		sn, err := r.SnapshotAt(ctx, branch, v.Version)
		if err != nil {
			return nil, err
		}
		out = append(out, sn)
	}
	return out, nil
}

// SnapshotByCommit finds the manifest version of a branch that
// published commit id, scanning back from the head (recent commits are
// cheap; the write path never calls it).
func (r *Root) SnapshotByCommit(ctx context.Context, branch, id string) (*Snapshot, error) {
	var found *Snapshot
	err := r.walkBack(ctx, branch, func(sn *Snapshot) bool {
		if sn.Commit.Names(id) {
			found = sn
			return false
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	if found == nil {
		return nil, fmt.Errorf("%w: commit %s on branch %s", ErrSnapshotNotFound, id, branch)
	}
	return found, nil
}

// SnapshotAsOf returns the newest snapshot of a branch whose commit time
// is <= t, scanning back from the head.
func (r *Root) SnapshotAsOf(ctx context.Context, branch string, t time.Time) (*Snapshot, error) {
	var found *Snapshot
	err := r.walkBack(ctx, branch, func(sn *Snapshot) bool {
		if !sn.Commit.Time.After(t) {
			found = sn
			return false
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	if found == nil {
		return nil, fmt.Errorf("%w: no commit at or before %s", ErrSnapshotNotFound, t.Format(time.RFC3339Nano))
	}
	return found, nil
}

// walkBack visits the branch's snapshots from the head down to version
// 1 until visit returns false.
func (r *Root) walkBack(ctx context.Context, branch string, visit func(*Snapshot) bool) error {
	head, err := r.Head(ctx, branch)
	if err != nil {
		return err
	}
	if !visit(head) {
		return nil
	}
	// the versions that exist: a manifest retention may have pruned some
	vs, err := r.ManifestVersions(ctx, branch)
	if err != nil {
		return err
	}
	for i := len(vs) - 1; i >= 0; i-- {
		v := vs[i]
		if v >= head.Version {
			continue
		}
		sn, err := r.SnapshotAt(ctx, branch, v)
		if err != nil {
			if lance.IsNotFound(err) {
				continue // pruned meanwhile
			}
			return err
		}
		if !visit(sn) {
			return nil
		}
	}
	return nil
}

// Publish commits st with lineage c as manifest version base.Version+1 of
// base's branch with PutIfAbsent. It returns *lance.ConflictError
// (lance.IsConflict) when another commit took the slot; the caller
// re-arbitrates against the new head. This is the only writer of
// __manifest versions.
func (r *Root) Publish(ctx context.Context, base *Snapshot, st State, c Commit) (*Snapshot, error) {
	if err := st.Validate(); err != nil {
		return nil, err
	}
	sn, err := r.publishOn(ctx, base.ds, st, c)
	if err != nil {
		return nil, err
	}
	sn.Branch, sn.Incarnation = base.Branch, base.Incarnation
	r.setHead(base.Branch, sn.ds)
	// the caller keeps st: cache a private copy and hand out a shared view
	r.remember(base.Branch, base.Incarnation, sn.Version, st.Clone(), sn.Commit)
	sn.State = r.cachedState(base.Branch, base.Incarnation, sn.Version, st)
	return sn, nil
}

func (r *Root) publishOn(ctx context.Context, ds *lance.Dataset, st State, c Commit) (*Snapshot, error) {
	c.Time = CommitTime(c.Time) // as stored: what readers of this version decode
	sj, err := encodeState(st)
	if err != nil {
		return nil, err
	}
	cj, err := encodeCommit(c)
	if err != nil {
		return nil, err
	}
	props := map[string]string{PropFormat: ManifestFormat, PropState: sj, PropCommit: cj}
	rows, err := stateRows(st)
	if err != nil {
		return nil, err
	}
	defer rows.Release()
	// the version's data file is written while its manifest put is
	// prepared; the put is published only after it is durable (two
	// durable rounds, docs/write-protocol.md §7.2). The transaction (the
	// state and commit record above) is kept only inline in the manifest,
	// the one copy every reader and arbiter of a version reads: no
	// transaction file is written or fsynced (§7.6).
	nds, err := ds.OverwriteExact(ctx, rows, lance.StageOptions{Properties: props, InlineOnly: true})
	if err != nil {
		return nil, err
	}
	return &Snapshot{Branch: ds.Branch(), Version: nds.Version(), Commit: c, State: st, ds: nds}, nil
}
