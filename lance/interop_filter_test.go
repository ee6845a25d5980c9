package lance

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// TestInteropLanceFilters: Lance's SQL filters over a dataset we wrote
// (several fragments, nulls, deletions) and over our branch select
// exactly the rows our own scan says match.
func TestInteropLanceFilters(t *testing.T) {
	ctx := context.Background()
	store, dir := localStore(t)
	ds, err := Create(ctx, store, "t.lance", rowsReader(t, 0, 60, 20), Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := ds.StageAppend(ctx, rowsReader(t, 60, 120, 25), StageOptions{MaxRowsPerFile: 30})
	if err != nil {
		t.Fatal(err)
	}
	if ds, err = st.Commit(ctx, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	var del []uint64
	for _, r := range scanAll(t, ds, ScanOptions{}) {
		if r.id%9 == 4 {
			del = append(del, r.addr)
		}
	}
	if st, err = ds.StageDelete(ctx, del, StageOptions{}); err != nil {
		t.Fatal(err)
	}
	if ds, err = st.Commit(ctx, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	br, err := ds.CreateBranch(ctx, "f", 0)
	if err != nil {
		t.Fatal(err)
	}
	if st, err = br.StageAppend(ctx, rowsReader(t, 200, 210, 10), StageOptions{}); err != nil {
		t.Fatal(err)
	}
	if br, err = st.Commit(ctx, CommitOptions{}); err != nil {
		t.Fatal(err)
	}

	preds := []struct {
		sql   string
		match func(r scannedRow) bool
	}{
		{"id > 50 AND id <= 70", func(r scannedRow) bool { return r.id > 50 && r.id <= 70 }},
		{"name IS NULL", func(r scannedRow) bool { return r.name == nil }},
		{"name IS NOT NULL AND score < 10", func(r scannedRow) bool { return r.name != nil && r.score < 10 }},
		{"name = 'n13' OR name = 'n205'", func(r scannedRow) bool { return r.name != nil && (*r.name == "n13" || *r.name == "n205") }},
		{"id IN (3, 4, 5, 200)", func(r scannedRow) bool { return r.id == 3 || r.id == 4 || r.id == 5 || r.id == 200 }},
		{"score >= 100", func(r scannedRow) bool { return r.score >= 100 }},
	}
	for _, tc := range []struct {
		branch string
		ds     *Dataset
	}{{"-", ds}, {"f", br}} {
		args := []string{"filter", dir, "t", tc.branch}
		for _, p := range preds {
			args = append(args, p.sql)
		}
		var got map[string][]int64
		opsOracle(t, &got, args...)
		rows := scanAll(t, tc.ds, ScanOptions{})
		for _, p := range preds {
			var want []int64
			for _, r := range rows {
				if p.match(r) {
					want = append(want, r.id)
				}
			}
			slices.Sort(want)
			if fmt.Sprint(got[p.sql]) != fmt.Sprint(want) {
				t.Errorf("branch %s, %q: Lance %v, ours %v", tc.branch, p.sql, got[p.sql], want)
			}
		}
	}
}
