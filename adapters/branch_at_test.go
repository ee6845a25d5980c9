package adapters

import (
	"context"
	"slices"
	"testing"

	"github.com/pggraph/pggraph/objstore"
)

// TestCreateBranchAtAnOlderCommit: a branch forked at an older commit
// sees that commit's rows, is written independently (first touch from
// the old pin), and main is unchanged; a taken name is refused.
func TestCreateBranchAtAnOlderCommit(t *testing.T) {
	ctx := context.Background()
	g := openGraph(t, objstore.NewMem(), true)
	defer g.Close()
	createTables(t, g, "a")
	if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {1}}); err != nil {
		t.Fatal(err)
	}
	old := head(t, g)
	if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {2}}); err != nil {
		t.Fatal(err)
	}
	sn, err := g.CreateBranchAt(ctx, "past", old)
	if err != nil {
		t.Fatal(err)
	}
	if sn.Commit.ID != old.Commit.ID {
		t.Fatalf("branch head %s, want the old commit %s", sn.Commit.ID, old.Commit.ID)
	}
	if got, _ := readIDs(t, g, sn, "a"); !slices.Equal(got, []int64{1}) {
		t.Fatalf("past a = %v", got)
	}
	if err := insert(ctx, g, WriteOptions{Branch: "past"}, map[string][]int64{"a": {3}}); err != nil {
		t.Fatal(err)
	}
	past, err := g.Head(ctx, "past")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := readIDs(t, g, past, "a"); !slices.Equal(got, []int64{1, 3}) {
		t.Fatalf("past a = %v", got)
	}
	if got, _ := readIDs(t, g, head(t, g), "a"); !slices.Equal(got, []int64{1, 2}) {
		t.Fatalf("main a = %v", got)
	}
	if _, err := g.CreateBranchAt(ctx, "past", old); err == nil {
		t.Fatal("a taken name was accepted")
	}
	if _, err := g.CreateBranchAt(ctx, "past/x", old); err == nil {
		t.Fatal("a nesting name was accepted")
	}
	if _, err := g.CreateBranchAt(ctx, "y", nil); err == nil {
		t.Fatal("nil snapshot accepted")
	}
	// a branch of a branch, at the branch's older commit
	sn2, err := g.CreateBranchAt(ctx, "past2", sn)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := readIDs(t, g, sn2, "a"); !slices.Equal(got, []int64{1}) {
		t.Fatalf("past2 a = %v", got)
	}
}
