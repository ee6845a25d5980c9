package graph

import (
	"context"
	"fmt"
	"testing"

	"github.com/pggraph/pggraph/objstore"
)

// A branch create reads what it needs about the other branches (their
// names, for existence and nesting) from one listing: its requests do
// not grow with the number of branches, which on object storage would
// be a GET per branch.
func TestBranchCreateRequestsIndependentOfBranchCount(t *testing.T) {
	ctx := context.Background()
	counting := objstore.NewCounting(objstore.NewMem())
	r, _, err := Init(ctx, counting, "graph")
	if err != nil {
		t.Fatal(err)
	}
	requestsOfCreate := func(name string) int64 {
		t.Helper()
		counting.Reset()
		if _, err := r.CreateBranch(ctx, name, ""); err != nil {
			t.Fatal(err)
		}
		return counting.Stats().Total(objstore.MaskOf(objstore.AllOps...))
	}
	first := requestsOfCreate("b0")
	for i := 1; i <= 8; i++ {
		if _, err := r.CreateBranch(ctx, fmt.Sprintf("b%d", i), ""); err != nil {
			t.Fatal(err)
		}
	}
	if later := requestsOfCreate("b9"); later != first {
		t.Fatalf("branch create with 1 branch: %d requests; with 9 branches: %d", first, later)
	}
	names, err := r.Branches(ctx)
	if err != nil || len(names) != 11 || names[0] != MainBranch || names[10] != "b9" {
		t.Fatalf("branches %v (%v)", names, err)
	}
}
