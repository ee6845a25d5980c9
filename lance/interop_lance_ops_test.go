package lance

import (
	"context"
	"slices"
	"testing"

	"github.com/pggraph/pggraph/internal/oracle"
	"github.com/pggraph/pggraph/lance/format"
)

type oracleOpResult struct {
	Version  uint64 `json:"version"`
	Rows     int    `json:"rows"`
	Inserted int    `json:"inserted"`
	Updated  int    `json:"updated"`
	Removed  int    `json:"removed"`
	Added    int    `json:"added"`
}

// TestInteropLanceMergeInsertAndCompact: on a dataset we wrote (several
// fragments, deletions) and on a branch we created, Lance merge-inserts
// and compacts; we read the result exactly, decode Lance's Update and
// Rewrite transactions, commit on top (rebasing over them) and Lance
// reads our commits.
func TestInteropLanceMergeInsertAndCompact(t *testing.T) {
	ctx := context.Background()
	store, dir := localStore(t)
	ds, err := Create(ctx, store, "t.lance", rowsReader(t, 0, 40, 10), Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := ds.StageAppend(ctx, rowsReader(t, 40, 100, 10), StageOptions{MaxRowsPerFile: 20})
	if err != nil {
		t.Fatal(err)
	}
	if ds, err = st.Commit(ctx, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	var del []uint64
	for _, r := range scanAll(t, ds, ScanOptions{}) {
		if r.id%7 == 0 {
			del = append(del, r.addr)
		}
	}
	if st, err = ds.StageDelete(ctx, del, StageOptions{}); err != nil {
		t.Fatal(err)
	}
	if ds, err = st.Commit(ctx, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	var sevens []int64
	for i := int64(0); i < 100; i += 7 {
		sevens = append(sevens, i)
	}
	br, err := ds.CreateBranch(ctx, "work", 0)
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name, branch string
		open         func() (*Dataset, error)
	}{
		{"main", "-", func() (*Dataset, error) { return ds.Latest(ctx) }},
		{"branch", "work", func() (*Dataset, error) { return br.Latest(ctx) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// upsert 90..109: 90..99 exist (minus the deleted 91, 98),
			// 100..109 are new
			var r oracleOpResult
			opsOracle(t, &r, "merge-insert", dir, "t", tc.branch, "90", "110")
			if r.Inserted != 12 || r.Updated != 8 {
				t.Fatalf("Lance merge-insert: %+v", r)
			}
			want := idRange(0, 110, sevens...)
			want = append(want[:len(want):len(want)], 91, 98)
			slices.Sort(want)
			got, err := tc.open()
			if err != nil {
				t.Fatal(err)
			}
			checkRows(t, scanAll(t, got, ScanOptions{}), want)
			if txn, err := got.Transaction(ctx, got.Version()); err != nil || txn.Op.Kind() != format.OpUpdate {
				t.Fatalf("merge-insert transaction %v %v", txn, err)
			}

			opsOracle(t, &r, "compact", dir, "t", tc.branch)
			if r.Removed < 2 {
				t.Fatalf("Lance compaction: %+v", r)
			}
			after, err := got.Latest(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if after.Version() != got.Version()+2 {
				t.Fatalf("compaction went from v%d to v%d", got.Version(), after.Version())
			}
			if txn, err := after.Transaction(ctx, after.Version()); err != nil || txn.Op.Kind() != format.OpRewrite {
				t.Fatalf("compaction transaction %v %v", txn, err)
			}
			checkRows(t, scanAll(t, after, ScanOptions{}), want)

			// a stale append from before the compaction rebases over
			// Lance's Update, ReserveFragments and Rewrite
			app, err := got.StageAppend(ctx, rowsReader(t, 500, 505, 5), StageOptions{})
			if err != nil {
				t.Fatal(err)
			}
			final, err := app.Commit(ctx, CommitOptions{Mode: CommitRebase})
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, idRange(500, 505)...)
			checkRows(t, scanAll(t, final, ScanOptions{}), want)
			var opts []oracle.ReadOption
			if tc.branch != "-" {
				opts = append(opts, oracle.OnBranch(tc.branch))
			}
			checkRows(t, oracleRows(t, oracle.Read(t, dir, "t", opts...)), want)
		})
	}
}
