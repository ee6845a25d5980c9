package lance

import (
	"context"
	"errors"
	"testing"

	"github.com/pggraph/pggraph/internal/oracle"
	"github.com/pggraph/pggraph/lance/format"
	"github.com/pggraph/pggraph/objstore"
)

// smallFragments builds a dataset of 60 rows in six 10-row fragments,
// with ids divisible by 7 deleted (deletion vectors on most fragments).
func smallFragments(t *testing.T, store objstore.Store) (*Dataset, []int64) {
	t.Helper()
	ctx := context.Background()
	ds, err := Create(ctx, store, "t.lance", rowsReader(t, 0, 10, 10), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for lo := int64(10); lo < 60; lo += 10 {
		st, err := ds.StageAppend(ctx, rowsReader(t, lo, lo+10, 10), StageOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if ds, err = st.Commit(ctx, CommitOptions{Mode: CommitExact}); err != nil {
			t.Fatal(err)
		}
	}
	var del, sevens []int64
	var addrs []uint64
	for _, r := range scanAll(t, ds, ScanOptions{}) {
		if r.id%7 == 0 {
			addrs = append(addrs, r.addr)
			sevens = append(sevens, r.id)
		}
	}
	st, err := ds.StageDelete(ctx, addrs, StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ds, err = st.Commit(ctx, CommitOptions{Mode: CommitExact}); err != nil {
		t.Fatal(err)
	}
	del = idRange(0, 60, sevens...)
	return ds, del
}

// TestCompactionRewritesSmallFragments: the staged Rewrite has Lance's
// shape (groups of full old fragment messages → new fragments, ids
// assigned past max_fragment_id), materializes deletions, keeps every
// row, and Lance reads the result exactly and appends on top of it.
func TestCompactionRewritesSmallFragments(t *testing.T) {
	ctx := context.Background()
	store, dir := localStore(t)
	ds, want := smallFragments(t, store)
	maxBefore, _ := ds.mf.Manifest.MaxFragmentIDOrComputed()

	st, err := ds.StageCompaction(ctx, CompactOptions{TargetRowsPerFragment: 25}, StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rw, ok := st.Txn.Op.(*format.Rewrite)
	if !ok || len(rw.Groups) != 1 || len(rw.Groups[0].OldFragments) != 6 || len(rw.Groups[0].NewFragments) != 3 {
		t.Fatalf("rewrite shape %+v", st.Txn.Op)
	}
	if rw.Groups[0].OldFragments[1].DeletionFile == nil {
		t.Fatal("old fragments must be carried with their deletion files")
	}
	got, err := st.Commit(ctx, CommitOptions{Mode: CommitExact})
	if err != nil {
		t.Fatal(err)
	}
	if got.Version() != ds.Version()+1 || got.CountRows() != uint64(len(want)) {
		t.Fatalf("v%d rows %d", got.Version(), got.CountRows())
	}
	frags := got.Fragments()
	if len(frags) != 3 {
		t.Fatalf("%d fragments after compaction, want 3", len(frags))
	}
	for i, f := range frags {
		if f.DeletionFile != nil || f.ID != maxBefore+1+uint64(i) || f.PhysicalRows > 25 {
			t.Fatalf("new fragment %d: id %d rows %d deletion %v", i, f.ID, f.PhysicalRows, f.DeletionFile)
		}
	}
	checkRows(t, scanAll(t, got, ScanOptions{}), want)
	// re-open from storage: the transaction file decodes to the same op
	txn, err := got.Transaction(ctx, got.Version())
	if err != nil || txn.Op.Kind() != format.OpRewrite || txn.UUID != st.UUID {
		t.Fatalf("committed transaction %v %v", txn, err)
	}
	// the official Lance reads our compacted dataset exactly …
	checkRows(t, oracleRows(t, oracle.Read(t, dir, "t")), want)
	// … and commits on top of it; we read Lance's rows
	var r oracleOpResult
	opsOracle(t, &r, "merge-insert", dir, "t", "-", "100", "105")
	if r.Inserted != 5 {
		t.Fatalf("Lance merge-insert: %+v", r)
	}
	after, err := got.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, scanAll(t, after, ScanOptions{}), append(want, idRange(100, 105)...))

	// nothing left worth compacting: typed, no transaction staged
	if _, err := after.StageCompaction(ctx, CompactOptions{TargetRowsPerFragment: 5}, StageOptions{}); !errors.Is(err, ErrNothingToCompact) {
		t.Fatalf("want ErrNothingToCompact, got %v", err)
	}
}

// TestCompactionRebase: a compaction staged at v rebases over a
// concurrent Append and a Delete of a fragment it does not rewrite; a
// concurrent Delete of a rewritten fragment is a retryable conflict (and
// exact mode never rebases).
func TestCompactionRebase(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name    string
		concur  func(t *testing.T, ds *Dataset) *Dataset
		mode    CommitMode
		wantErr ConflictKind
		ok      bool
		want    func(base []int64) []int64
	}{
		{"append", func(t *testing.T, ds *Dataset) *Dataset {
			st, err := ds.StageAppend(ctx, rowsReader(t, 200, 230, 30), StageOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return mustCommit(t, st)
		}, CommitRebase, 0, true, func(b []int64) []int64 { return append(b, idRange(200, 230)...) }},
		{"delete outside the group", func(t *testing.T, ds *Dataset) *Dataset {
			return deleteIDs(t, ds, 201)
		}, CommitRebase, 0, true, func(b []int64) []int64 { return append(b, idRange(200, 230, 201)...) }},
		{"delete inside the group", func(t *testing.T, ds *Dataset) *Dataset {
			return deleteIDs(t, ds, 3)
		}, CommitRebase, ConflictRetryable, false, nil},
		{"exact over append", func(t *testing.T, ds *Dataset) *Dataset {
			st, err := ds.StageAppend(ctx, rowsReader(t, 300, 301, 1), StageOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return mustCommit(t, st)
		}, CommitExact, ConflictLost, false, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			store := objstore.NewMem()
			ds, base := smallFragments(t, store)
			if tc.name == "delete outside the group" {
				// a big fragment the compaction leaves alone
				st, err := ds.StageAppend(ctx, rowsReader(t, 200, 230, 30), StageOptions{})
				if err != nil {
					t.Fatal(err)
				}
				ds = mustCommit(t, st)
			}
			st, err := ds.StageCompaction(ctx, CompactOptions{TargetRowsPerFragment: 25}, StageOptions{})
			if err != nil {
				t.Fatal(err)
			}
			tc.concur(t, ds)
			got, err := st.Commit(ctx, CommitOptions{Mode: tc.mode})
			if !tc.ok {
				var ce *ConflictError
				if !errors.As(err, &ce) || ce.Kind != tc.wantErr {
					t.Fatalf("want %v conflict, got %v", tc.wantErr, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Version() != ds.Version()+2 {
				t.Fatalf("landed at v%d", got.Version())
			}
			checkRows(t, scanAll(t, got, ScanOptions{}), tc.want(base))
		})
	}
}

func mustCommit(t *testing.T, st *Staged) *Dataset {
	t.Helper()
	ds, err := st.Commit(context.Background(), CommitOptions{Mode: CommitExact})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func deleteIDs(t *testing.T, ds *Dataset, ids ...int64) *Dataset {
	t.Helper()
	del := map[int64]bool{}
	for _, id := range ids {
		del[id] = true
	}
	var addrs []uint64
	for _, r := range scanAll(t, ds, ScanOptions{}) {
		if del[r.id] {
			addrs = append(addrs, r.addr)
		}
	}
	st, err := ds.StageDelete(context.Background(), addrs, StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return mustCommit(t, st)
}

// TestCompactionDeletionThreshold: with MaterializeDeletionsThreshold a
// full-size fragment is rewritten only once that fraction of its rows is
// deleted; without it any deletion makes it a candidate.
func TestCompactionDeletionThreshold(t *testing.T) {
	ctx := context.Background()
	store, _ := localStore(t)
	ds, err := Create(ctx, store, "t.lance", rowsReader(t, 0, 10, 10), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ds = deleteIDs(t, ds, 3) // 1 of 10 rows
	cases := []struct {
		threshold float64
		want      int
	}{{0, 1}, {0.1, 1}, {0.2, 0}}
	for _, c := range cases {
		got := ds.CompactionCandidates(CompactOptions{TargetRowsPerFragment: 10, MaterializeDeletionsThreshold: c.threshold})
		if got != c.want {
			t.Errorf("threshold %v: %d candidates, want %d", c.threshold, got, c.want)
		}
	}
	ds = deleteIDs(t, ds, 4) // 2 of 10
	if got := ds.CompactionCandidates(CompactOptions{TargetRowsPerFragment: 10, MaterializeDeletionsThreshold: 0.2}); got != 1 {
		t.Errorf("2 of 10 deleted, threshold 0.2: %d candidates, want 1", got)
	}
}

// TestCompactionLimitedToFragments: with CompactOptions.Fragments only
// the listed fragments are rewritten; every other fragment keeps its id
// (its rows keep their addresses), and no row is lost.
func TestCompactionLimitedToFragments(t *testing.T) {
	ctx := context.Background()
	store, _ := localStore(t)
	ds, want := smallFragments(t, store)
	all := ds.CompactionFragments(CompactOptions{TargetRowsPerFragment: 25})
	if len(all) != len(ds.Fragments()) {
		t.Fatalf("unlimited: %d of %d fragments are candidates", len(all), len(ds.Fragments()))
	}
	only := map[uint64]bool{all[0]: true, all[1]: true, all[2]: true}
	copts := CompactOptions{TargetRowsPerFragment: 25, Fragments: only}
	if got := ds.CompactionFragments(copts); len(got) != 3 || !only[got[0]] || !only[got[1]] || !only[got[2]] {
		t.Fatalf("limited to %v: candidates %v", only, got)
	}
	st, err := ds.StageCompaction(ctx, copts, StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nd, err := st.Commit(ctx, CommitOptions{Mode: CommitExact})
	if err != nil {
		t.Fatal(err)
	}
	kept := map[uint64]bool{}
	for _, f := range nd.Fragments() {
		kept[f.ID] = true
	}
	for _, f := range ds.Fragments() {
		if kept[f.ID] == only[f.ID] {
			t.Errorf("fragment %d: listed %v, still present %v", f.ID, only[f.ID], kept[f.ID])
		}
	}
	checkRows(t, scanAll(t, nd, ScanOptions{}), want)
}

// TestCompactionSmallBelow: with SmallBelow a fragment of at least that
// many rows is not rewritten for its size (only for its deletions),
// while the small fragments after it are still merged.
func TestCompactionSmallBelow(t *testing.T) {
	ctx := context.Background()
	store, _ := localStore(t)
	ds, err := Create(ctx, store, "t.lance", rowsReader(t, 0, 100, 100), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for lo := int64(100); lo < 103; lo++ {
		st, err := ds.StageAppend(ctx, rowsReader(t, lo, lo+1, 1), StageOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if ds, err = st.Commit(ctx, CommitOptions{Mode: CommitExact}); err != nil {
			t.Fatal(err)
		}
	}
	big := ds.Fragments()[0].ID
	cases := []struct {
		small   uint64
		want    int
		bigKept bool
	}{{0, 4, false}, {50, 3, true}, {101, 4, false}}
	for _, c := range cases {
		if got := ds.CompactionCandidates(CompactOptions{SmallBelow: c.small}); got != c.want {
			t.Errorf("SmallBelow %d: %d candidates, want %d", c.small, got, c.want)
		}
	}
	st, err := ds.StageCompaction(ctx, CompactOptions{SmallBelow: 50}, StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nd, err := st.Commit(ctx, CommitOptions{Mode: CommitExact})
	if err != nil {
		t.Fatal(err)
	}
	if fs := nd.Fragments(); len(fs) != 2 || fs[0].ID != big || fs[0].PhysicalRows != 100 || fs[1].PhysicalRows != 3 {
		t.Fatalf("fragments after compacting below 50 rows: %+v", fs)
	}
	checkRows(t, scanAll(t, nd, ScanOptions{}), idRange(0, 103))
	// a deletion still makes the big fragment a candidate
	nd = deleteIDs(t, nd, 7)
	if got := nd.CompactionFragments(CompactOptions{SmallBelow: 50}); len(got) != 2 || got[0] != big {
		t.Fatalf("big fragment %d with a deletion: candidates %v", big, got)
	}
}
