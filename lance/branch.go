package lance

import (
	"context"
	"encoding/hex"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/pggraph/pggraph/lance/format"
	"github.com/pggraph/pggraph/objstore"
)

// Native branches, laid out as Lance 8 lays them out:
//
//   - the ref _refs/branches/{name, '/' as %2F}.json (parentBranch,
//     identifier.version_mapping, parentVersion, createAt, manifestSize of
//     the parent's manifest at the fork, metadata) is the branch's
//     existence: it is created with PutIfAbsent, so of two creators exactly
//     one wins and the other gets ErrBranchExists;
//   - the branch's first manifest is tree/{name}/_versions/{V} where V is
//     the fork version: the parent's manifest at V re-committed with a
//     shallow Clone transaction, branch = name, every inherited data and
//     deletion file pointing (base_id) at a base path for the parent's
//     directory (absolute, is_dataset_root), flags recomputed (16 = base
//     paths). Commits on the branch continue at V+1 under tree/{name}/.
//
// The Clone transaction's UUID is the identifier's newest id, so the
// first manifest can be recognised as belonging to the current
// incarnation of the ref. That makes the manifest a pure function of the
// ref: whoever finds a ref without it (a creator that crashed between the
// two writes) finishes the creation idempotently. Before the first
// manifest is written, whatever an earlier incarnation of the name left
// under tree/{name}/ (a delete that crashed mid-reclaim, or a commit that
// raced the delete) is reclaimed, so none of its versions can appear in
// the new branch's history.

// CreateBranch forks the native branch name from d's branch at version v
// (0 = d's version) and returns the new branch at its first version (v).
// It needs the dataset's absolute location (Options.Location or a local
// store), which Lance records in base_paths. An existing ref is
// ErrBranchExists (IsExists).
func (d *Dataset) CreateBranch(ctx context.Context, name string, v uint64) (*Dataset, error) {
	if err := ValidateBranchName(name); err != nil {
		return nil, err
	}
	if d.location == "" {
		return nil, wrapf(ErrInvalidArgument, "branch %q: creating a branch needs the dataset's absolute location (Options.Location)", name)
	}
	if v == 0 {
		v = d.version
	}
	if v == 0 {
		return nil, wrapf(ErrInvalidArgument, "branch %q: the dataset has no version to fork", name)
	}
	parent := d
	if v != d.version || d.mf == nil {
		var err error
		if parent, err = d.at(ctx, v); err != nil {
			return nil, err
		}
	}
	if err := format.CheckWritable(parent.mf.Manifest); err != nil {
		return nil, err
	}
	var mapping []BranchVersionID
	var parentName *string
	if d.branch != "" {
		pr, err := readBranchRef(ctx, d.store, d.root, d.branch)
		if err != nil {
			return nil, err
		}
		if mapping, err = pr.VersionMapping(); err != nil {
			return nil, err
		}
		b := d.branch
		parentName = &b
	}
	id := uuid.New()
	mapping = append(slices.Clone(mapping), BranchVersionID{Version: v, ID: hex.EncodeToString(id[:])})
	body, err := encodeBranchRef(parentName, mapping, v, time.Now().Unix(), parent.ManifestSize())
	if err != nil {
		return nil, err
	}
	err = d.store.PutIfAbsent(ctx, branchRefKey(d.root, name), body)
	if objstore.IsExists(err) {
		return nil, wrapf(ErrBranchExists, "%q", name)
	}
	if err != nil {
		return nil, err
	}
	rememberRef(body)
	ref, err := parseBranchRef(name, body)
	if err != nil {
		return nil, err
	}
	return d.completeBranch(ctx, ref, parent)
}

// branchDir is the absolute directory of a branch ("" = main).
func (d *Dataset) branchDir(branch string) string {
	if branch == "" {
		return d.location
	}
	return d.location + "/" + treeDir + "/" + branch
}

// completeBranch makes sure the first manifest of the branch ref names
// exists and belongs to this incarnation, writing it if needed, and
// returns the branch at that version. parent, when known, is the parent
// branch at the fork version.
func (d *Dataset) completeBranch(ctx context.Context, ref *BranchRef, parent *Dataset) (*Dataset, error) {
	if d.location == "" {
		return nil, wrapf(ErrInvalidArgument, "branch %q: completing a branch needs the dataset's absolute location (Options.Location)", ref.Name)
	}
	mapping, err := ref.VersionMapping()
	if err != nil {
		return nil, err
	}
	if len(mapping) == 0 {
		return nil, wrapf(ErrDatasetNotFound, "branch %q has no manifest and no identifier to rebuild it from", ref.Name)
	}
	idHex := mapping[len(mapping)-1].ID
	txnUUID, err := uuid.Parse(idHex)
	if err != nil {
		return nil, wrapf(ErrCorrupt, "branch %q identifier %q: %v", ref.Name, idHex, err)
	}
	v := ref.ParentVersion
	parentName := ref.ParentBranchName()
	if parent == nil || parent.branch != parentName || parent.version != v || parent.mf == nil {
		if parent, err = Open(ctx, d.store, d.root, Options{Branch: parentName, Version: v, Location: d.location}); err != nil {
			return nil, err
		}
	}
	if err := format.CheckWritable(parent.mf.Manifest); err != nil {
		return nil, err
	}
	name := ref.Name
	clone := &format.Clone{IsShallow: true, RefVersion: v, RefPath: d.branchDir(parentName), BranchName: &name}
	if parentName != "" {
		p := parentName
		clone.RefName = &p
	}
	txn := &format.Transaction{ReadVersion: v, UUID: txnUUID.String(), Op: clone}
	m := cloneManifest(parent.mf.Manifest, txn, clone)
	data, err := format.EncodeManifestFile(m, txn)
	if err != nil {
		return nil, err
	}
	// Lance names a branch's manifests V2 even under a V1 root
	br := &Dataset{store: d.store, root: d.root, branch: name, location: d.location, naming: NamingV2}
	key := br.manifestKey(v)
	if got, ok := br.ownFirstManifest(ctx, v, txn.UUID); ok {
		return got, nil // finished already (by a concurrent completer)
	}
	// Anything already under the tree belongs to an earlier incarnation
	// of the name (a delete that crashed or raced a commit): reclaim it,
	// or its versions would show up in this branch's history.
	if err := d.reclaimBranchTree(ctx, name); err != nil {
		return nil, err
	}
	if err := d.store.Put(ctx, join(br.base(), txnDir, txn.TxnFileName()), txn.Encode()); err != nil {
		return nil, err
	}
	err = d.store.PutIfAbsent(ctx, key, data)
	if objstore.IsExists(err) {
		if got, ok := br.ownFirstManifest(ctx, v, txn.UUID); ok {
			return got, nil
		}
		return nil, wrapf(ErrBranchExists, "branch %q: version %d is held by another incarnation", name, v)
	}
	if err != nil {
		return nil, err
	}
	br.writeHint(ctx, v)
	mf, err := format.DecodeManifestFile(data)
	if err != nil {
		return nil, err
	}
	return br.withManifest(v, mf)
}

// ownFirstManifest returns the branch at version v when that version
// exists and was committed by the Clone transaction txnUUID.
func (br *Dataset) ownFirstManifest(ctx context.Context, v uint64, txnUUID string) (*Dataset, bool) {
	got, err := br.at(ctx, v)
	if err != nil {
		return nil, false
	}
	t, err := got.Transaction(ctx, v)
	if err != nil || t.UUID != txnUUID {
		return nil, false
	}
	return got, true
}

// cloneManifest is the branch's first manifest: the parent's manifest at
// the fork version with inherited files pointing at the parent's base
// path, committed by the Clone transaction.
func cloneManifest(prev *format.Manifest, txn *format.Transaction, clone *format.Clone) *format.Manifest {
	m := *prev
	m.Fragments = cloneFragments(prev.Fragments)
	m.TransactionSection = nil
	m.BasePaths = make([]format.BasePath, len(prev.BasePaths))
	baseID, found := uint32(0), false
	var maxID uint32
	for i, bp := range prev.BasePaths {
		bp.Name = cloneStr(bp.Name)
		bp.Unknown = slices.Clone(bp.Unknown)
		m.BasePaths[i] = bp
		if bp.IsDatasetRoot && strings.TrimRight(strings.TrimPrefix(bp.Path, "file://"), "/") == clone.RefPath {
			baseID, found = bp.ID, true
		}
		if i == 0 || bp.ID > maxID {
			maxID = bp.ID
		}
	}
	if !found {
		if len(prev.BasePaths) > 0 {
			baseID = maxID + 1
		}
		m.BasePaths = append(m.BasePaths, format.BasePath{ID: baseID, Name: cloneStr(clone.RefName), IsDatasetRoot: true, Path: clone.RefPath})
	}
	for i := range m.Fragments {
		fr := &m.Fragments[i]
		for j := range fr.Files {
			if fr.Files[j].BaseID == nil {
				id := baseID
				fr.Files[j].BaseID = &id
			}
		}
		if fr.DeletionFile != nil && fr.DeletionFile.BaseID == nil {
			id := baseID
			fr.DeletionFile.BaseID = &id
		}
	}
	m.Timestamp = time.Now().UTC()
	m.Tag = ""
	m.TransactionFile = txn.TxnFileName()
	m.WriterVersion = &format.WriterVersion{Library: writerLibrary, Version: writerVersion}
	b := *clone.BranchName
	m.Branch = &b
	m.ReaderFeatureFlags, m.WriterFeatureFlags = format.ComputeFlags(&m, prev.ReaderFeatureFlags)
	return &m
}

func cloneStr(s *string) *string {
	if s == nil {
		return nil
	}
	c := *s
	return &c
}

// DeleteBranch deletes the native branch name of d's dataset, as Lance
// does: a branch another branch was forked from is refused
// (ErrBranchInUse, naming the children); otherwise the ref is deleted
// first (from then on the branch does not exist) and then its tree
// tree/{name}/ is reclaimed — unless another branch's tree lives below
// it (a branch named name/…), in which case Lance leaves the tree in
// place and so do we. Tags that point into the branch are not touched
// (Lance leaves them dangling too). A missing ref is ErrBranchNotFound.
// Callers must not delete a branch that still has staged, uncommitted
// transactions (their data files are reclaimed); the graph layer tells
// incarnations apart by BranchRef.ID.
func (d *Dataset) DeleteBranch(ctx context.Context, name string) error {
	name = normBranch(name)
	if err := ValidateBranchName(name); err != nil {
		return err
	}
	refs, err := d.ListBranches(ctx)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(refs, func(r *BranchRef) bool { return r.Name == name }) {
		return wrapf(ErrBranchNotFound, "%q", name)
	}
	var children []string
	nested := false
	for _, r := range refs {
		if r.Name != name && r.ParentBranchName() == name {
			children = append(children, r.Name)
		}
		if strings.HasPrefix(r.Name, name+"/") {
			nested = true
		}
	}
	if len(children) > 0 {
		return &BranchInUseError{Name: name, Children: children}
	}
	err = d.store.Delete(ctx, branchRefKey(d.root, name))
	if objstore.IsNotFound(err) {
		return wrapf(ErrBranchNotFound, "%q", name)
	}
	if err != nil {
		return err
	}
	if nested {
		return nil
	}
	if err := d.reclaimBranchTree(ctx, name); err != nil {
		return wrapf(err, "branch %q deleted, reclaiming its tree", name)
	}
	return nil
}

// reclaimBranchTree deletes every object under tree/{name}/ except the
// trees of live branches nested below it. Manifests go first, so a
// half-reclaimed tree no longer looks like a branch history.
func (d *Dataset) reclaimBranchTree(ctx context.Context, name string) error {
	prefix := join(d.root, treeDir, name) + "/"
	nested, err := d.nestedBranches(ctx, name)
	if err != nil {
		return err
	}
	var keep []string
	for _, n := range nested {
		keep = append(keep, join(d.root, treeDir, n)+"/")
	}
	infos, err := d.store.List(ctx, prefix)
	if err != nil {
		return err
	}
	var keys []string
	for _, info := range infos {
		if !slices.ContainsFunc(keep, func(k string) bool { return strings.HasPrefix(info.Key, k) }) {
			keys = append(keys, info.Key)
		}
	}
	vdir := prefix + versionsDir + "/"
	sort.SliceStable(keys, func(i, j int) bool {
		return strings.HasPrefix(keys[i], vdir) && !strings.HasPrefix(keys[j], vdir)
	})
	for _, k := range keys {
		if err := d.store.Delete(ctx, k); err != nil && !objstore.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// nestedBranches returns the branches named name/… (their trees live
// inside name's tree), from one List of the refs with that prefix.
func (d *Dataset) nestedBranches(ctx context.Context, name string) ([]string, error) {
	dir := join(d.root, branchesDir) + "/"
	infos, err := d.store.List(ctx, dir+strings.ReplaceAll(name, "/", "%2F")+"%2F")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, info := range infos {
		file := strings.TrimPrefix(info.Key, dir)
		if strings.Contains(file, "/") || !strings.HasSuffix(file, ".json") {
			continue
		}
		out = append(out, strings.ReplaceAll(strings.TrimSuffix(file, ".json"), "%2F", "/"))
	}
	return out, nil
}
