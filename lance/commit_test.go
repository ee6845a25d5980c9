package lance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pggraph/pggraph/lance/format"
	"github.com/pggraph/pggraph/objstore"
)

var testSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// fakeFragment describes a fragment whose data file is never read: the
// commit machinery only needs the manifest entries.
func fakeFragment(name string, rows uint64) format.Fragment {
	return format.Fragment{
		PhysicalRows: rows,
		Files: []format.DataFile{{Path: name + ".lance", Fields: []int32{0, 1}, ColumnIndices: []int32{0, 1},
			MajorVersion: 2, MinorVersion: 1}},
	}
}

func createFake(t *testing.T, store objstore.Store, root string, naming Naming, rows ...uint64) *Dataset {
	t.Helper()
	ctx := context.Background()
	_, fb, err := lanceFields(testSchema)
	if err != nil {
		t.Fatal(err)
	}
	var frs []format.Fragment
	for i, r := range rows {
		frs = append(frs, fakeFragment(fmt.Sprintf("create-%d", i), r))
	}
	st, err := New(store, root, Options{Naming: naming}).StageOperation(ctx, &format.Overwrite{Fragments: frs, Schema: fb}, StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := st.Commit(ctx, CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func mustAppend(t *testing.T, ds *Dataset, mode CommitMode, rows uint64) *Dataset {
	t.Helper()
	ctx := context.Background()
	st, err := ds.StageOperation(ctx, &format.Append{Fragments: []format.Fragment{fakeFragment("app", rows)}}, StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nd, err := st.Commit(ctx, CommitOptions{Mode: mode})
	if err != nil {
		t.Fatal(err)
	}
	return nd
}

func TestCreateAppendOpen(t *testing.T) {
	for _, naming := range []Naming{NamingV2, NamingV1} {
		t.Run(naming.String(), func(t *testing.T) {
			ctx := context.Background()
			store := objstore.NewMem()
			ds := createFake(t, store, "t.lance", naming, 10, 5)
			if ds.Version() != 1 || ds.CountRows() != 15 || len(ds.Fragments()) != 2 {
				t.Fatalf("v%d rows %d", ds.Version(), ds.CountRows())
			}
			want := map[Naming]string{NamingV2: "t.lance/_versions/18446744073709551614.manifest", NamingV1: "t.lance/_versions/1.manifest"}[naming]
			if _, err := store.Stat(ctx, want); err != nil {
				t.Fatalf("manifest name: %v", err)
			}
			ds = mustAppend(t, ds, CommitExact, 7)
			ds = mustAppend(t, ds, CommitExact, 3)
			if ds.Version() != 3 || ds.CountRows() != 25 {
				t.Fatalf("v%d rows %d", ds.Version(), ds.CountRows())
			}
			ids := []uint64{}
			for _, f := range ds.Fragments() {
				ids = append(ids, f.ID)
			}
			if fmt.Sprint(ids) != "[0 1 2 3]" || *ds.Manifest().MaxFragmentID != 3 {
				t.Fatalf("fragment ids %v max %v", ids, *ds.Manifest().MaxFragmentID)
			}
			m := ds.Manifest()
			if m.TransactionFile == "" || m.WriterVersion == nil || m.DataFormat.Version != "2.1" || m.Timestamp.IsZero() {
				t.Fatalf("manifest fields missing: %+v", m)
			}
			txnKey := "t.lance/_transactions/" + m.TransactionFile
			if !strings.HasPrefix(m.TransactionFile, "2-") {
				t.Fatalf("txn file %s", m.TransactionFile)
			}
			if _, err := store.Stat(ctx, txnKey); err != nil {
				t.Fatal(err)
			}

			latest, err := Open(ctx, store, "t.lance", Options{})
			if err != nil || latest.Version() != 3 || latest.Naming() != naming {
				t.Fatalf("open latest: %v %v", latest, err)
			}
			v1, err := Open(ctx, store, "t.lance", Options{Version: 1})
			if err != nil || v1.CountRows() != 15 {
				t.Fatalf("open v1: %v", err)
			}
			if _, err := Open(ctx, store, "t.lance", Options{Version: 9}); !errors.Is(err, ErrVersionNotFound) {
				t.Fatalf("missing version: %v", err)
			}
			vs, err := latest.ListVersions(ctx)
			if err != nil || len(vs) != 3 {
				t.Fatalf("versions %v %v", vs, err)
			}
			for i, v := range vs {
				if v.Version != uint64(i+1) || v.Timestamp.IsZero() || v.ManifestSize == 0 || v.TransactionUUID == "" {
					t.Fatalf("version info %+v", v)
				}
				if i > 0 && v.Timestamp.Before(vs[i-1].Timestamp) {
					t.Fatal("timestamps not monotonic")
				}
			}
			if vs[0].Operation != "Overwrite" || vs[1].Operation != "Append" {
				t.Fatalf("ops %+v", vs)
			}
			if sch := latest.Schema(); sch == nil || sch.NumFields() != 2 || sch.Field(1).Name != "name" {
				t.Fatalf("schema %v", sch)
			}
		})
	}
}

func TestMixedNamingRefused(t *testing.T) {
	ctx := context.Background()
	store := objstore.NewMem()
	ds := createFake(t, store, "t", NamingV2, 1)
	if err := store.Put(ctx, "t/_versions/2.manifest", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := ds.ListVersions(ctx); !errors.Is(err, ErrMixedNaming) {
		t.Fatalf("want mixed naming, got %v", err)
	}
	if err := store.Delete(ctx, "t/_versions/latest_version_hint.json"); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, store, "t", Options{}); !errors.Is(err, ErrMixedNaming) {
		t.Fatalf("cold open without hint: %v", err)
	}
}

func TestLatestProbing(t *testing.T) {
	ctx := context.Background()
	mem := objstore.NewMem()
	ds := createFake(t, mem, "t", NamingV2, 1)
	for i := 0; i < 12; i++ {
		ds = mustAppend(t, ds, CommitExact, 1)
	} // latest = 13
	cases := []struct {
		name string
		hint string // "" = delete the hint
	}{
		{"fresh hint", `{"version":13}`},
		{"stale hint", `{"version":3}`},
		{"bogus hint", `{"version":99}`},
		{"garbage hint", `nope`},
		{"torn hint", `{"vers`},
		{"empty hint", ` `},
		{"no hint", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			key := "t/_versions/latest_version_hint.json"
			if tc.hint == "" {
				_ = mem.Delete(ctx, key)
			} else if err := mem.Put(ctx, key, []byte(tc.hint)); err != nil {
				t.Fatal(err)
			}
			cs := objstore.NewCounting(mem)
			got, err := Open(ctx, cs, "t", Options{})
			if err != nil || got.Version() != 13 {
				t.Fatalf("latest %v %v", got, err)
			}
			lists := cs.Stats().Ops[objstore.OpList]
			wantList := tc.name != "fresh hint" && tc.name != "stale hint"
			if (lists > 0) != wantList {
				t.Fatalf("list calls %d (want list: %v)", lists, wantList)
			}
		})
	}
	t.Run("warm probe is one stat", func(t *testing.T) {
		cs := objstore.NewCounting(mem)
		got, err := ds.Latest(ctx)
		if err != nil || got != ds {
			t.Fatalf("%v %v", got, err)
		}
		_ = cs
		cs2 := objstore.NewCounting(mem)
		ds2 := *ds
		ds2.store = cs2
		if _, err := ds2.Latest(ctx); err != nil {
			t.Fatal(err)
		}
		st := cs2.Stats()
		if st.Ops[objstore.OpStat] != 1 || st.Total(^objstore.OpMask(0)) != 1 {
			t.Fatalf("ops %v", st.Ops)
		}
	})
}

func TestExactConflict(t *testing.T) {
	ctx := context.Background()
	store := objstore.NewMem()
	ds := createFake(t, store, "t", NamingV2, 4)
	a, err := ds.StageOperation(ctx, &format.Append{Fragments: []format.Fragment{fakeFragment("a", 1)}},
		StageOptions{UUID: "0190A6C2-7E1A-4F4B-9A57-1D2C3B4A5F60", Properties: map[string]string{"graph.commit": "c1"}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := ds.StageOperation(ctx, &format.Append{Fragments: []format.Fragment{fakeFragment("b", 1)}}, StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a.UUID == b.UUID || a.ReadVersion != 1 || b.ReadVersion != 1 {
		t.Fatal("staged identity")
	}
	// staging moves no HEAD
	if l, _ := ds.Latest(ctx); l.Version() != 1 {
		t.Fatal("staging moved HEAD")
	}
	if _, err := a.Commit(ctx, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = b.Commit(ctx, CommitOptions{})
	var ce *ConflictError
	if !errors.As(err, &ce) || !IsConflict(err) || ce.Kind != ConflictLost || ce.WinnerUUID() != a.UUID || ce.Version != 2 {
		t.Fatalf("want conflict with winner %s, got %v", a.UUID, err)
	}
	if a.UUID != "0190a6c2-7e1a-4f4b-9a57-1d2c3b4a5f60" || ce.Winner.Properties["graph.commit"] != "c1" {
		t.Fatalf("pre-minted uuid / properties: %s %v", a.UUID, ce.Winner.Properties)
	}
	// committing the winner again recognises its own version
	again, err := a.Commit(ctx, CommitOptions{})
	if err != nil || again.Version() != 2 {
		t.Fatalf("idempotent commit: %v %v", again, err)
	}
}

func TestExactConcurrent(t *testing.T) {
	for _, backend := range []string{"mem", "local"} {
		t.Run(backend, func(t *testing.T) {
			var store objstore.Store = objstore.NewMem()
			if backend == "local" {
				store, _ = localStore(t)
			}
			exactConcurrent(t, store)
		})
	}
}

func exactConcurrent(t *testing.T, store objstore.Store) {
	ctx := context.Background()
	ds := createFake(t, store, "t", NamingV2, 4)
	const n = 8
	var wg sync.WaitGroup
	uuids := make([]string, n)
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			st, err := ds.StageOperation(ctx, &format.Append{Fragments: []format.Fragment{fakeFragment("c", 1)}}, StageOptions{})
			if err != nil {
				errs[i] = err
				return
			}
			uuids[i] = st.UUID
			_, errs[i] = st.Commit(ctx, CommitOptions{})
		}(i)
	}
	wg.Wait()
	winners := 0
	var winner string
	for i, err := range errs {
		if err == nil {
			winners++
			winner = uuids[i]
		}
	}
	if winners != 1 {
		t.Fatalf("%d winners: %v", winners, errs)
	}
	for _, err := range errs {
		var ce *ConflictError
		if err != nil && (!errors.As(err, &ce) || ce.WinnerUUID() != winner) {
			t.Fatalf("loser error %v", err)
		}
	}
	latest, _ := ds.Latest(ctx)
	if latest.Version() != 2 {
		t.Fatalf("version %d", latest.Version())
	}
}

func TestRebaseConcurrentAppends(t *testing.T) {
	ctx := context.Background()
	store := objstore.NewMem()
	ds := createFake(t, store, "t", NamingV2, 1)
	const n = 6
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			st, err := ds.StageOperation(ctx, &format.Append{Fragments: []format.Fragment{fakeFragment(fmt.Sprint("r", i), 10)}}, StageOptions{})
			if err == nil {
				_, err = st.Commit(ctx, CommitOptions{Mode: CommitRebase, MaxRetries: 50})
			}
			errs[i] = err
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	latest, err := ds.Latest(ctx)
	if err != nil || latest.Version() != n+1 || latest.CountRows() != 1+10*n || len(latest.Fragments()) != n+1 {
		t.Fatalf("latest %v rows %d err %v", latest.Version(), latest.CountRows(), err)
	}
	// the transaction file keeps the original read version
	for v := uint64(2); v <= n+1; v++ {
		txn, err := latest.Transaction(ctx, v)
		if err != nil || txn.ReadVersion != 1 {
			t.Fatalf("txn of v%d: %+v %v", v, txn, err)
		}
	}
}

func deleteOn(frag format.Fragment, readVersion, n uint64) *format.Delete {
	c := frag.Clone()
	c.DeletionFile = &format.DeletionFile{FileType: format.DeletionBitmap, ReadVersion: readVersion, ID: 1, NumDeletedRows: n}
	return &format.Delete{UpdatedFragments: []format.Fragment{c}}
}

func TestRebaseRules(t *testing.T) {
	ctx := context.Background()
	del0 := func(ds *Dataset) format.Operation { return deleteOn(ds.Fragments()[0], ds.Version(), 1) }
	del1 := func(ds *Dataset) format.Operation { return deleteOn(ds.Fragments()[1], ds.Version(), 1) }
	app := func(*Dataset) format.Operation {
		return &format.Append{Fragments: []format.Fragment{fakeFragment("x", 2)}}
	}
	over := func(*Dataset) format.Operation {
		_, fb, _ := lanceFields(testSchema)
		return &format.Overwrite{Fragments: []format.Fragment{fakeFragment("o", 3)}, Schema: fb}
	}
	restore := func(*Dataset) format.Operation { return &format.Restore{Version: 1} }
	cases := []struct {
		name          string
		first, second func(ds *Dataset) format.Operation
		wantErr       bool
		kind          ConflictKind
	}{
		{"append over append", app, app, false, 0},
		{"append over delete", del0, app, false, 0},
		{"delete over append", app, del0, false, 0},
		{"delete disjoint", del0, del1, false, 0},
		{"append over overwrite", over, app, true, ConflictIncompatible},
		{"delete over restore", restore, del0, true, ConflictIncompatible},
		{"overwrite over append", app, over, false, 0},
		{"restore over delete", del0, restore, false, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			store := objstore.NewMem()
			ds := createFake(t, store, "t", NamingV2, 5, 5)
			s1, err := ds.StageOperation(ctx, tc.first(ds), StageOptions{})
			if err != nil {
				t.Fatal(err)
			}
			s2, err := ds.StageOperation(ctx, tc.second(ds), StageOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s1.Commit(ctx, CommitOptions{Mode: CommitRebase}); err != nil {
				t.Fatal(err)
			}
			got, err := s2.Commit(ctx, CommitOptions{Mode: CommitRebase})
			if !tc.wantErr {
				if err != nil || got.Version() != 3 {
					t.Fatalf("want version 3, got %v %v", got, err)
				}
				return
			}
			var ce *ConflictError
			if !errors.As(err, &ce) || ce.Kind != tc.kind || ce.WinnerUUID() != s1.UUID {
				t.Fatalf("want %v conflict, got %v", tc.kind, err)
			}
			if IsRetryable(err) != (tc.kind == ConflictRetryable) {
				t.Fatal("IsRetryable")
			}
		})
	}
}

func TestMissingTransaction(t *testing.T) {
	ctx := context.Background()
	store := objstore.NewMem()
	ds := createFake(t, store, "t", NamingV2, 5)
	st, _ := ds.StageOperation(ctx, &format.Append{Fragments: []format.Fragment{fakeFragment("x", 2)}}, StageOptions{})
	// a foreign version 2 with no inline transaction and no txn file
	m := *ds.Manifest()
	m.Version = 2
	m.TransactionFile = "1-missing.txn"
	b, _ := format.EncodeManifestFile(&m, nil)
	if err := store.PutIfAbsent(ctx, ds.manifestKey(2), b); err != nil {
		t.Fatal(err)
	}
	_, err := st.Commit(ctx, CommitOptions{Mode: CommitRebase})
	if !IsMissingTransaction(err) {
		t.Fatalf("rebase: want missing transaction, got %v", err)
	}
	_, err = st.Commit(ctx, CommitOptions{Mode: CommitExact})
	if !IsMissingTransaction(err) || !IsConflict(err) {
		t.Fatalf("exact: want conflict+missing transaction, got %v", err)
	}
}

func TestRestoreAndOverwrite(t *testing.T) {
	ctx := context.Background()
	store := objstore.NewMem()
	ds := createFake(t, store, "t", NamingV2, 5)
	ds = mustAppend(t, ds, CommitExact, 7)
	st, err := ds.StageRestore(ctx, 1, StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := st.Commit(ctx, CommitOptions{})
	if err != nil || r.Version() != 3 || r.CountRows() != 5 {
		t.Fatalf("restore %v %v", r, err)
	}
	r = mustAppend(t, r, CommitExact, 1)
	if ids := r.Fragments(); ids[len(ids)-1].ID != 2 {
		t.Fatalf("fragment id reused after restore: %d", ids[len(ids)-1].ID)
	}
	if _, err := ds.StageRestore(ctx, 77, StageOptions{}); !errors.Is(err, ErrVersionNotFound) {
		t.Fatalf("restore missing: %v", err)
	}
}

func TestUnsupportedFlagsRefused(t *testing.T) {
	ctx := context.Background()
	store := objstore.NewMem()
	ds := createFake(t, store, "t", NamingV2, 5)
	m := *ds.Manifest()
	m.Version = 2
	m.ReaderFeatureFlags |= format.FlagStableRowIDs
	b, _ := format.EncodeManifestFile(&m, &format.Transaction{ReadVersion: 1, UUID: "x", Op: &format.Append{}})
	if err := store.PutIfAbsent(ctx, ds.manifestKey(2), b); err != nil {
		t.Fatal(err)
	}
	l, err := ds.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = l.StageOperation(ctx, &format.Append{}, StageOptions{})
	var ue *format.UnsupportedError
	if !errors.As(err, &ue) || !strings.Contains(ue.Feature, "stable row ids") {
		t.Fatalf("want unsupported stable row ids, got %v", err)
	}
	// a pending stager from v1 cannot rebase onto it either
	st, _ := ds.StageOperation(ctx, &format.Append{}, StageOptions{})
	if _, err := st.Commit(ctx, CommitOptions{Mode: CommitRebase}); !IsUnsupported(err) {
		t.Fatalf("rebase onto unsupported: %v", err)
	}
}

func TestTags(t *testing.T) {
	ctx := context.Background()
	store := objstore.NewMem()
	ds := createFake(t, store, "t", NamingV2, 5)
	ds = mustAppend(t, ds, CommitExact, 5)
	tag, err := ds.CreateTag(ctx, "v-one", 1)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := store.Get(ctx, "t/_refs/tags/v-one.json")
	var keys map[string]any
	if err := json.Unmarshal(raw, &keys); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"branch", "version", "createdAt", "updatedAt", "manifestSize", "metadata"} {
		if _, ok := keys[k]; !ok {
			t.Fatalf("tag JSON lacks %s: %s", k, raw)
		}
	}
	v1, _ := ds.Checkout(ctx, 1)
	if keys["manifestSize"].(float64) != float64(v1.ManifestSize()) || tag.Version != 1 || keys["branch"] != nil {
		t.Fatalf("tag content %s", raw)
	}
	if _, err := ds.CreateTag(ctx, "v-one", 2); !errors.Is(err, ErrTagExists) {
		t.Fatalf("duplicate: %v", err)
	}
	for _, bad := range []string{"", ".x", "x.", "a..b", "x.lock", "a/b", "sp ace"} {
		if _, err := ds.CreateTag(ctx, bad, 1); !errors.Is(err, ErrInvalidName) {
			t.Fatalf("name %q: %v", bad, err)
		}
	}
	if _, err := ds.CreateTag(ctx, "latest", 0); err != nil {
		t.Fatal(err)
	}
	tags, err := ds.ListTags(ctx)
	if err != nil || len(tags) != 2 || tags[0].Name != "latest" || tags[0].Version != 2 || tags[1].Name != "v-one" {
		t.Fatalf("list %v %v", tags, err)
	}
	co, err := ds.CheckoutTag(ctx, "v-one")
	if err != nil || co.Version() != 1 || co.CountRows() != 5 {
		t.Fatalf("checkout %v %v", co, err)
	}
	if err := ds.DeleteTag(ctx, "v-one"); err != nil {
		t.Fatal(err)
	}
	if err := ds.DeleteTag(ctx, "v-one"); !errors.Is(err, ErrTagNotFound) {
		t.Fatalf("delete missing %v", err)
	}
	if _, err := Open(ctx, store, "t", Options{Tag: "v-one"}); !IsNotFound(err) {
		t.Fatalf("open deleted tag %v", err)
	}
}

func TestBranchNames(t *testing.T) {
	// Unicode letters and digits are alphanumeric to Lance (Rust
	// char::is_alphanumeric; TestInteropRefNames checks against the oracle)
	good := []string{"feature/x", "a.b-c_d", "x/y/z", "ü", "日本/Ⅷ", "٣"}
	bad := []string{"", "main", "/a", "a/", "a//b", "a/../b", `a\b`, "b.lock", "a b", "e\u0301", "a\u200bb", "a:b"}
	for _, n := range good {
		if err := ValidateBranchName(n); err != nil {
			t.Errorf("%q: %v", n, err)
		}
	}
	for _, n := range bad {
		if err := ValidateBranchName(n); !errors.Is(err, ErrInvalidName) {
			t.Errorf("%q accepted", n)
		}
	}
	if branchRefFile("feature/x") != "feature%2Fx.json" {
		t.Fatal(branchRefFile("feature/x"))
	}
}

func TestManifestNames(t *testing.T) {
	cases := []struct {
		n    Naming
		v    uint64
		name string
	}{
		{NamingV2, 1, "18446744073709551614.manifest"},
		{NamingV2, 4, "18446744073709551611.manifest"},
		{NamingV1, 1, "1.manifest"},
		{NamingV1, 1234, "1234.manifest"},
		{NamingV2, math.MaxUint64 - 7, "00000000000000000007.manifest"},
		{NamingV2, math.MaxUint64, "00000000000000000000.manifest"},
	}
	for _, c := range cases {
		if got := manifestName(c.n, c.v); got != c.name {
			t.Errorf("%v %d: %s", c.n, c.v, got)
		}
		for _, base := range []string{"t.lance", "/t.lance/", "tables/x.lance/tree/b", ""} {
			if got, want := versionKey(base, c.n, c.v), join(base, versionsDir, c.name); got != want {
				t.Errorf("versionKey(%q, %v, %d) = %q, want %q", base, c.n, c.v, got, want)
			}
		}
		n, v, ok := parseManifestName(c.name)
		if !ok || n != c.n || v != c.v {
			t.Errorf("parse %s: %v %d %v", c.name, n, v, ok)
		}
	}
	for _, bad := range []string{"d5.manifest", "x.manifest", "5.manifest#1", ".manifest", "latest_version_hint.json"} {
		if _, _, ok := parseManifestName(bad); ok {
			t.Errorf("%s parsed", bad)
		}
	}
}

func TestRebaseMergesDeletionVectors(t *testing.T) {
	ctx := context.Background()
	store := objstore.NewMem()
	ds := createFake(t, store, "t", NamingV2, 6, 6)
	stage := func(addrs ...uint64) *Staged {
		st, err := ds.StageDelete(ctx, addrs, StageOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	a := stage(RowAddress(0, 1), RowAddress(0, 2))
	b := stage(RowAddress(0, 2), RowAddress(0, 5), RowAddress(1, 0))
	if _, err := a.Commit(ctx, CommitOptions{Mode: CommitRebase}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Commit(ctx, CommitOptions{Mode: CommitExact}); !IsConflict(err) {
		t.Fatalf("exact: %v", err)
	}
	got, err := b.Commit(ctx, CommitOptions{Mode: CommitRebase})
	if err != nil {
		t.Fatal(err)
	}
	dv, err := got.deletionVector(ctx, &got.Fragments()[0])
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(dv.ToArray()) != "[1 2 5]" || got.CountRows() != 12-4 {
		t.Fatalf("merged vector %v rows %d", dv.ToArray(), got.CountRows())
	}
	// the transaction file was rewritten to what was committed
	txn, err := got.Transaction(ctx, got.Version())
	if err != nil || txn.UUID != b.UUID {
		t.Fatal(err)
	}
	raw, err := store.Get(ctx, "t/_transactions/"+txn.TxnFileName())
	if err != nil {
		t.Fatal(err)
	}
	fileTxn, err := format.DecodeTransaction(raw)
	if err != nil || fileTxn.Op.(*format.Delete).UpdatedFragments[0].DeletionFile.NumDeletedRows != 3 {
		t.Fatalf("txn file not rebased: %v", err)
	}

	// deleting the rest of fragment 0 from a stale version removes it
	c := stage(RowAddress(0, 0), RowAddress(0, 3), RowAddress(0, 4))
	got, err = c.Commit(ctx, CommitOptions{Mode: CommitRebase})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Fragments()) != 1 || got.Fragments()[0].ID != 1 {
		t.Fatalf("fragment 0 not removed: %+v", got.Fragments())
	}
	// a fragment removed by the winner is a retryable conflict
	d := stage(RowAddress(0, 0))
	_, err = d.Commit(ctx, CommitOptions{Mode: CommitRebase})
	var ce *ConflictError
	if !errors.As(err, &ce) || ce.Kind != ConflictRetryable || !IsRetryable(err) {
		t.Fatalf("want retryable conflict, got %v", err)
	}
}

func TestOtherDataStorageVersionRefused(t *testing.T) {
	ctx := context.Background()
	store := objstore.NewMem()
	ds := createFake(t, store, "t", NamingV2, 5)
	m := *ds.Manifest()
	m.Version = 2
	m.DataFormat = &format.DataStorageFormat{FileFormat: "lance", Version: "2.0"}
	b, _ := format.EncodeManifestFile(&m, &format.Transaction{ReadVersion: 1, UUID: "x", Op: &format.Append{}})
	if err := store.PutIfAbsent(ctx, ds.manifestKey(2), b); err != nil {
		t.Fatal(err)
	}
	l, err := ds.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = l.StageAppend(ctx, rowsReader(t, 0, 1, 1), StageOptions{})
	var ue *format.UnsupportedError
	if !errors.As(err, &ue) || !strings.Contains(ue.Feature, "2.0") {
		t.Fatalf("want unsupported 2.0, got %v", err)
	}
	// deleting writes no data file and stays allowed
	if _, err := l.StageDelete(ctx, []uint64{RowAddress(0, 1)}, StageOptions{}); err != nil {
		t.Fatal(err)
	}
}
