package lance

import (
	"context"
	"testing"
)

// TestLatestVersion: LatestVersion names the version Open with no
// version loads, on main and on a branch, without reading its manifest;
// a missing dataset or branch is not found, as for Open.
func TestLatestVersion(t *testing.T) {
	ctx := context.Background()
	store, main := branchFixture(t) // main at v2
	br, err := main.CreateBranch(ctx, "feature/x", 1)
	if err != nil {
		t.Fatal(err)
	}
	st, err := br.StageAppend(ctx, rowsReader(t, 100, 110, 10), StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Commit(ctx, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, root, branch string
		want               uint64
		notFound           bool
	}{
		{name: "main", root: "b.lance", want: 2},
		{name: "branch", root: "b.lance", branch: "feature/x", want: 2},
		{name: "missing branch", root: "b.lance", branch: "nope", notFound: true},
		{name: "missing dataset", root: "none.lance", notFound: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{Location: memLocation, Branch: tc.branch}
			got, err := LatestVersion(ctx, store, tc.root, opts)
			if tc.notFound {
				if !IsNotFound(err) {
					t.Fatalf("LatestVersion = %d, %v; want not found", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			ds, err := Open(ctx, store, tc.root, opts)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want || got != ds.Version() {
				t.Fatalf("LatestVersion = %d, Open loads %d, want %d", got, ds.Version(), tc.want)
			}
		})
	}
	// the manifest itself is not read: a latest manifest that does not
	// decode still has its number
	if err := store.Put(ctx, versionKey("b.lance", main.naming, 3), []byte("not a manifest")); err != nil {
		t.Fatal(err)
	}
	if got, err := LatestVersion(ctx, store, "b.lance", Options{Location: memLocation}); err != nil || got != 3 {
		t.Fatalf("LatestVersion with an undecodable v3 = %d, %v; want 3", got, err)
	}
}
