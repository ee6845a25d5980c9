package lance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/pggraph/pggraph/lance/format"
	"github.com/pggraph/pggraph/objstore"
)

const memLocation = "/data/b.lance"

// branchFixture: main v1 = ids 0..50, v2 = + 50..100 (Mem store).
func branchFixture(t *testing.T) (objstore.Store, *Dataset) {
	t.Helper()
	ctx := context.Background()
	store := objstore.NewMem()
	ds, err := Create(ctx, store, "b.lance", rowsReader(t, 0, 50, 50), Options{Location: memLocation})
	if err != nil {
		t.Fatal(err)
	}
	st, err := ds.StageAppend(ctx, rowsReader(t, 50, 100, 50), StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ds, err = st.Commit(ctx, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	return store, ds
}

func keysUnder(t *testing.T, store objstore.Store, prefix string) []string {
	t.Helper()
	infos, err := store.List(context.Background(), prefix)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, i := range infos {
		out = append(out, i.Key)
	}
	return out
}

// jsonKeys returns the top-level keys of a JSON object in file order.
func jsonKeys(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// TestCreateBranchLayout checks the ref, the first manifest and the
// Clone transaction against what Lance writes (see the corpus
// testdata/oracle/g.lance).
func TestCreateBranchLayout(t *testing.T) {
	ctx := context.Background()
	store, main := branchFixture(t)
	v1, err := main.Checkout(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	br, err := main.CreateBranch(ctx, "feature/x", 1)
	if err != nil {
		t.Fatal(err)
	}
	if br.Branch() != "feature/x" || br.Version() != 1 {
		t.Fatalf("branch %q v%d", br.Branch(), br.Version())
	}
	checkRows(t, scanAll(t, br, ScanOptions{}), idRange(0, 50))

	raw, err := store.Get(ctx, "b.lance/_refs/branches/feature%2Fx.json")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(jsonKeys(t, raw), ","), "parentBranch,identifier,parentVersion,createAt,manifestSize,metadata"; got != want {
		t.Fatalf("ref keys %s, want %s", got, want)
	}
	ref, err := main.BranchRef(ctx, "feature/x")
	if err != nil {
		t.Fatal(err)
	}
	mapping, err := ref.VersionMapping()
	if err != nil {
		t.Fatal(err)
	}
	if ref.ParentBranch != nil || ref.ParentVersion != 1 || ref.ManifestSize != v1.ManifestSize() || len(mapping) != 1 ||
		mapping[0].Version != 1 || len(mapping[0].ID) != 32 || ref.ID() != mapping[0].ID || ref.CreateAt == 0 {
		t.Fatalf("ref %+v mapping %+v", ref, mapping)
	}

	m := br.Manifest()
	if m.Version != 1 || m.Branch == nil || *m.Branch != "feature/x" || len(m.BasePaths) != 1 {
		t.Fatalf("manifest %+v", m)
	}
	bp := m.BasePaths[0]
	if bp.ID != 0 || bp.Name != nil || !bp.IsDatasetRoot || bp.Path != memLocation {
		t.Fatalf("base path %+v", bp)
	}
	if m.ReaderFeatureFlags&format.FlagBasePaths == 0 || m.WriterFeatureFlags&format.FlagBasePaths == 0 {
		t.Fatalf("flags %d/%d", m.ReaderFeatureFlags, m.WriterFeatureFlags)
	}
	for _, fr := range m.Fragments {
		for _, f := range fr.Files {
			if f.BaseID == nil || *f.BaseID != 0 {
				t.Fatalf("inherited file %s has base id %v", f.Path, f.BaseID)
			}
		}
	}
	if len(m.Fields) != len(v1.Manifest().Fields) || len(m.Fragments) != len(v1.Fragments()) {
		t.Fatal("schema or fragments not carried over")
	}
	txn, err := br.Transaction(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	cl, ok := txn.Op.(*format.Clone)
	if !ok || !cl.IsShallow || cl.RefName != nil || cl.RefVersion != 1 || cl.RefPath != memLocation ||
		cl.BranchName == nil || *cl.BranchName != "feature/x" || txn.ReadVersion != 1 {
		t.Fatalf("clone txn %+v %+v", txn, txn.Op)
	}
	if strings.ReplaceAll(txn.UUID, "-", "") != ref.ID() {
		t.Fatalf("clone txn uuid %s is not the ref id %s", txn.UUID, ref.ID())
	}
	if _, err := store.Stat(ctx, "b.lance/tree/feature/x/_transactions/"+txn.TxnFileName()); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Stat(ctx, "b.lance/tree/feature/x/_versions/"+manifestName(NamingV2, 1)); err != nil {
		t.Fatal(err)
	}

	// commits on the branch continue the numbering under tree/feature/x
	st, err := br.StageAppend(ctx, rowsReader(t, 100, 110, 10), StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if br, err = st.Commit(ctx, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if br.Version() != 2 {
		t.Fatalf("branch commit landed at %d", br.Version())
	}
	own := br.Fragments()[len(br.Fragments())-1].Files[0]
	if own.BaseID != nil {
		t.Fatal("branch-local file has a base id")
	}
	if _, err := store.Stat(ctx, "b.lance/tree/feature/x/data/"+own.Path); err != nil {
		t.Fatal(err)
	}
	reopened, err := Open(ctx, store, "b.lance", Options{Branch: "feature/x", Location: memLocation})
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, scanAll(t, reopened, ScanOptions{}), append(idRange(0, 50), idRange(100, 110)...))
	// main did not move
	if latest, err := main.Latest(ctx); err != nil || latest.Version() != 2 {
		t.Fatalf("main moved: %v %v", latest, err)
	}

	// a branch of the branch: the parent's own files get a new base path
	sub, err := br.CreateBranch(ctx, "feature/x/y", 0)
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, scanAll(t, sub, ScanOptions{}), append(idRange(0, 50), idRange(100, 110)...))
	sm := sub.Manifest()
	if len(sm.BasePaths) != 2 || sm.BasePaths[1].ID != 1 || sm.BasePaths[1].Name == nil || *sm.BasePaths[1].Name != "feature/x" ||
		sm.BasePaths[1].Path != memLocation+"/tree/feature/x" || !sm.BasePaths[1].IsDatasetRoot {
		t.Fatalf("sub base paths %+v", sm.BasePaths)
	}
	last := sm.Fragments[len(sm.Fragments)-1].Files[0]
	if last.BaseID == nil || *last.BaseID != 1 || sm.Fragments[0].Files[0].BaseID == nil || *sm.Fragments[0].Files[0].BaseID != 0 {
		t.Fatalf("sub base ids %v %v", last.BaseID, sm.Fragments[0].Files[0].BaseID)
	}
	subRef, err := main.BranchRef(ctx, "feature/x/y")
	if err != nil {
		t.Fatal(err)
	}
	sub2, _ := subRef.VersionMapping()
	if subRef.ParentBranchName() != "feature/x" || subRef.ParentVersion != 2 || len(sub2) != 2 || sub2[0] != mapping[0] || sub2[1].Version != 2 {
		t.Fatalf("sub ref %+v %+v", subRef, sub2)
	}
	if subRef.ManifestSize != br.ManifestSize() {
		t.Fatalf("sub ref manifestSize %d, parent manifest %d", subRef.ManifestSize, br.ManifestSize())
	}
	refs, err := main.ListBranches(ctx)
	if err != nil || len(refs) != 2 || refs[0].Name != "feature/x" || refs[1].Name != "feature/x/y" {
		t.Fatalf("list %v %v", refs, err)
	}
}

func TestBranchErrors(t *testing.T) {
	ctx := context.Background()
	store, main := branchFixture(t)
	if _, err := main.CreateBranch(ctx, "a", 0); err != nil {
		t.Fatal(err)
	}
	noLoc, err := Open(ctx, store, "b.lance", Options{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		run   func() error
		check func(error) bool
	}{
		{"existing ref", func() error { _, err := main.CreateBranch(ctx, "a", 1); return err }, IsExists},
		{"main is reserved", func() error { _, err := main.CreateBranch(ctx, "main", 0); return err }, func(e error) bool { return errors.Is(e, ErrInvalidName) }},
		{"bad name", func() error { _, err := main.CreateBranch(ctx, "a//b", 0); return err }, func(e error) bool { return errors.Is(e, ErrInvalidName) }},
		{"missing version", func() error { _, err := main.CreateBranch(ctx, "b", 9); return err }, IsNotFound},
		{"no location", func() error { _, err := noLoc.CreateBranch(ctx, "b", 0); return err }, func(e error) bool { return errors.Is(e, ErrInvalidArgument) }},
		{"empty dataset", func() error {
			_, err := New(store, "none.lance", Options{Location: "/x"}).CreateBranch(ctx, "b", 0)
			return err
		}, func(e error) bool { return errors.Is(e, ErrInvalidArgument) }},
		{"delete missing", func() error { return main.DeleteBranch(ctx, "nope") }, IsNotFound},
		{"open missing", func() error {
			_, err := Open(ctx, store, "b.lance", Options{Branch: "nope", Location: memLocation})
			return err
		}, IsNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.run(); err == nil || !tc.check(err) {
				t.Fatalf("got %v", err)
			}
		})
	}
	if _, err := store.Stat(ctx, "b.lance/tree/b/_versions/"+manifestName(NamingV2, 2)); !objstore.IsNotFound(err) {
		t.Fatalf("a refused creation left a manifest: %v", err)
	}
}

// TestCreateBranchRace: of concurrent creators of one name (forking at
// different versions) exactly one wins; the branch is the winner's.
func TestCreateBranchRace(t *testing.T) {
	ctx := context.Background()
	for round := 0; round < 5; round++ {
		_, main := branchFixture(t)
		var wg sync.WaitGroup
		results := make([]*Dataset, 4)
		errs := make([]error, 4)
		for i := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], errs[i] = main.CreateBranch(ctx, "race", uint64(1+i%2))
			}()
		}
		wg.Wait()
		winner := -1
		for i, err := range errs {
			switch {
			case err == nil && winner < 0:
				winner = i
			case err == nil:
				t.Fatalf("two winners: %d and %d", winner, i)
			case !IsExists(err):
				t.Fatalf("loser %d: %v", i, err)
			}
		}
		if winner < 0 {
			t.Fatal("no winner")
		}
		got, err := main.CheckoutBranch(ctx, "race")
		if err != nil {
			t.Fatal(err)
		}
		if got.Version() != results[winner].Version() || got.CountRows() != results[winner].CountRows() {
			t.Fatalf("branch at v%d/%d rows, winner made v%d", got.Version(), got.CountRows(), results[winner].Version())
		}
		vs, err := got.ListVersions(ctx)
		if err != nil || len(vs) != 1 {
			t.Fatalf("branch history %v %v", vs, err)
		}
	}
}

func TestDeleteBranch(t *testing.T) {
	ctx := context.Background()
	store, main := branchFixture(t)
	a, err := main.CreateBranch(ctx, "a", 1)
	if err != nil {
		t.Fatal(err)
	}
	st, err := a.StageAppend(ctx, rowsReader(t, 200, 210, 10), StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a, err = st.Commit(ctx, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	oldTxn, err := a.Transaction(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.CreateBranch(ctx, "child", 0); err != nil {
		t.Fatal(err)
	}
	// a nested name forked from main, not from a
	if _, err := main.CreateBranch(ctx, "a/nested", 0); err != nil {
		t.Fatal(err)
	}

	var inUse *BranchInUseError
	if err := main.DeleteBranch(ctx, "a"); !errors.As(err, &inUse) || !IsInUse(err) || len(inUse.Children) != 1 || inUse.Children[0] != "child" {
		t.Fatalf("delete of a parent: %v", err)
	}
	if err := main.DeleteBranch(ctx, "child"); err != nil {
		t.Fatal(err)
	}
	if keys := keysUnder(t, store, "b.lance/tree/child/"); len(keys) != 0 {
		t.Fatalf("child tree not reclaimed: %v", keys)
	}
	// a has a branch nested below its tree: Lance leaves the tree
	if err := main.DeleteBranch(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := main.BranchRef(ctx, "a"); !IsNotFound(err) {
		t.Fatalf("ref still there: %v", err)
	}
	if keys := keysUnder(t, store, "b.lance/tree/a/_versions/"); len(keys) == 0 {
		t.Fatal("tree of a removed although a/nested lives below it")
	}
	nested, err := main.CheckoutBranch(ctx, "a/nested")
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, scanAll(t, nested, ScanOptions{}), idRange(0, 100))

	// re-create a at the same fork version: the leftover first manifest
	// of the old incarnation is told apart by the identifier and reclaimed
	a2, err := main.CreateBranch(ctx, "a", 1)
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, scanAll(t, a2, ScanOptions{}), idRange(0, 50))
	if latest, err := a2.Latest(ctx); err != nil || latest.Version() != 1 {
		t.Fatalf("re-created branch sees the old history: %v %v", latest, err)
	}
	newTxn, err := a2.Transaction(ctx, 1)
	if err != nil || oldTxn.UUID == newTxn.UUID {
		t.Fatal("re-created branch has the old clone transaction")
	}
	if _, err := nested.Latest(ctx); err != nil {
		t.Fatalf("nested branch damaged by the reclaim: %v", err)
	}
	if keys := keysUnder(t, store, "b.lance/tree/a/nested/_versions/"); len(keys) == 0 {
		t.Fatal("nested branch tree reclaimed")
	}

	// delete a, then a/nested: everything goes
	for _, n := range []string{"a", "a/nested"} {
		if err := main.DeleteBranch(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	if err := main.DeleteBranch(ctx, "a"); !IsNotFound(err) {
		t.Fatalf("second delete: %v", err)
	}
	if keys := keysUnder(t, store, "b.lance/tree/a/nested/"); len(keys) != 0 {
		t.Fatalf("left %v", keys)
	}
}

// TestBranchCompletesAfterCrash: a creator that crashed after the ref
// but before the first manifest leaves a branch that Open finishes.
func TestBranchCompletesAfterCrash(t *testing.T) {
	ctx := context.Background()
	store, main := branchFixture(t)
	id := uuid.New()
	body, err := encodeBranchRef(nil, []BranchVersionID{{Version: 2, ID: strings.ReplaceAll(id.String(), "-", "")}}, 2, 1, main.ManifestSize())
	if err != nil {
		t.Fatal(err)
	}
	if err := store.PutIfAbsent(ctx, "b.lance/_refs/branches/crashed.json", body); err != nil {
		t.Fatal(err)
	}
	br, err := Open(ctx, store, "b.lance", Options{Branch: "crashed", Location: memLocation})
	if err != nil {
		t.Fatal(err)
	}
	txn, err := br.Transaction(ctx, 2)
	if err != nil || txn.UUID != id.String() || br.Version() != 2 {
		t.Fatalf("completed branch v%d txn %+v %v", br.Version(), txn, err)
	}
	checkRows(t, scanAll(t, br, ScanOptions{}), idRange(0, 100))
	// opening again is a plain open
	if again, err := Open(ctx, store, "b.lance", Options{Branch: "crashed", Location: memLocation}); err != nil || again.Version() != 2 {
		t.Fatalf("reopen %v %v", again, err)
	}
}

func TestBranchVersionIDJSON(t *testing.T) {
	cases := []struct {
		in      string
		want    []BranchVersionID
		wantErr bool
	}{
		{`{"version_mapping": [[5, "64ac2d63ab5f426ab743a0b71cf425c3"]]}`, []BranchVersionID{{5, "64ac2d63ab5f426ab743a0b71cf425c3"}}, false},
		{`{"version_mapping": [[1, "aa"], [2, "bb"]]}`, []BranchVersionID{{1, "aa"}, {2, "bb"}}, false},
		{``, nil, false},
		{`null`, nil, false},
		{`{"version_mapping": [[1]]}`, nil, true},
		{`{"version_mapping": [["x", "aa"]]}`, nil, true},
	}
	for _, tc := range cases {
		r := &BranchRef{Name: "b", Identifier: json.RawMessage(tc.in)}
		got, err := r.VersionMapping()
		if (err != nil) != tc.wantErr || (err != nil && !IsCorrupt(err)) {
			t.Fatalf("%s: err %v", tc.in, err)
		}
		if !tc.wantErr && (len(got) != len(tc.want) || (len(got) > 0 && got[len(got)-1] != tc.want[len(tc.want)-1])) {
			t.Fatalf("%s: %+v", tc.in, got)
		}
	}
	b, err := encodeBranchRef(nil, []BranchVersionID{{5, "ab"}}, 5, 7, 9)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"version_mapping": [`)) || !bytes.Contains(b, []byte(`"parentBranch": null`)) || !bytes.Contains(b, []byte(`"metadata": {}`)) {
		t.Fatalf("ref json:\n%s", b)
	}
}

// TestRecreateOverLeftovers: versions an earlier incarnation left behind
// (a delete that crashed after removing the first manifest, or a commit
// racing the delete) never show up in the re-created branch.
func TestRecreateOverLeftovers(t *testing.T) {
	ctx := context.Background()
	store, main := branchFixture(t)
	old, err := main.CreateBranch(ctx, "r", 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(0); i < 2; i++ {
		st, err := old.StageAppend(ctx, rowsReader(t, 500+10*i, 510+10*i, 10), StageOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if old, err = st.Commit(ctx, CommitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// the ref and the first manifest are gone, versions 2 and 3 remain
	for _, k := range []string{"b.lance/_refs/branches/r.json", "b.lance/tree/r/_versions/" + manifestName(NamingV2, 1)} {
		if err := store.Delete(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	stale := keysUnder(t, store, "b.lance/tree/r/data/")
	if len(stale) != 2 {
		t.Fatalf("setup: %v", stale)
	}
	br, err := main.CreateBranch(ctx, "r", 1)
	if err != nil {
		t.Fatal(err)
	}
	latest, err := Open(ctx, store, "b.lance", Options{Branch: "r", Location: memLocation})
	if err != nil {
		t.Fatal(err)
	}
	if latest.Version() != 1 || br.Version() != 1 {
		t.Fatalf("re-created branch at v%d (latest v%d)", br.Version(), latest.Version())
	}
	checkRows(t, scanAll(t, latest, ScanOptions{}), idRange(0, 50))
	if keys := keysUnder(t, store, "b.lance/tree/r/data/"); len(keys) != 0 {
		t.Fatalf("leftover data files %v", keys)
	}
	// the new incarnation commits at 2 without tripping over old files
	st, err := latest.StageAppend(ctx, rowsReader(t, 600, 601, 1), StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if latest, err = st.Commit(ctx, CommitOptions{}); err != nil || latest.Version() != 2 {
		t.Fatalf("commit on the new incarnation: %v %v", latest, err)
	}
}

// TestCloneManifestMatchesLance: our first manifest of a branch forked
// from the Lance-written corpus at version 5 equals the one Lance wrote
// for feature/x (same fork) field by field, except the fields that name
// the writer, the time, the transaction and the branch.
func TestCloneManifestMatchesLance(t *testing.T) {
	ctx := context.Background()
	store, _ := localStore(t)
	dir := store.Root()
	copyCorpus(t, dir)
	loc := dir + "/g.lance"
	main, err := Open(ctx, store, "g.lance", Options{Version: 5, Location: loc})
	if err != nil {
		t.Fatal(err)
	}
	ours, err := main.CreateBranch(ctx, "mine", 0)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := Open(ctx, store, "g.lance", Options{Branch: "feature/x", Version: 5, Location: loc})
	if err != nil {
		t.Fatal(err)
	}
	norm := func(d *Dataset) []byte {
		m := *d.Manifest()
		m.Timestamp = time.Time{}
		m.WriterVersion = nil
		m.TransactionFile = ""
		m.Branch = nil
		return m.Encode()
	}
	if !bytes.Equal(norm(ours), norm(theirs)) {
		t.Fatalf("clone manifests differ:\nours   %+v\ntheirs %+v", ours.Manifest(), theirs.Manifest())
	}
	ot, err := ours.Transaction(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	tt, err := theirs.Transaction(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	oc, tc := *ot.Op.(*format.Clone), *tt.Op.(*format.Clone)
	if *oc.BranchName != "mine" || *tc.BranchName != "feature/x" {
		t.Fatal("branch names")
	}
	oc.BranchName, tc.BranchName = nil, nil
	tc.RefPath = strings.Replace(tc.RefPath, corpusLocation, loc, 1) // the corpus was written elsewhere
	if ot.ReadVersion != tt.ReadVersion || fmt.Sprint(oc) != fmt.Sprint(tc) {
		t.Fatalf("clone transactions differ: %+v vs %+v", oc, tc)
	}
	// and the refs agree on everything but the id and the time
	or, _ := main.BranchRef(ctx, "mine")
	tr, _ := main.BranchRef(ctx, "feature/x")
	om, _ := or.VersionMapping()
	tm, _ := tr.VersionMapping()
	if or.ParentVersion != tr.ParentVersion || or.ManifestSize != tr.ManifestSize || (or.ParentBranch == nil) != (tr.ParentBranch == nil) ||
		len(om) != 1 || len(tm) != 1 || om[0].Version != tm[0].Version {
		t.Fatalf("refs differ: %+v %+v", or, tr)
	}
}
