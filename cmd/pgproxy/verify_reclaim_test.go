package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
)

// verify --reclaimable reports a staged, never committed data file
// without deleting it; a branch sealed by an unfinished delete is a
// problem verify names.
func TestVerifyReclaimableAndSealedBranch(t *testing.T) {
	ctx := context.Background()
	dir, store, g := rootWithTableA(t)
	sn, _ := g.Head(ctx, "")
	ds, _, err := g.Table(ctx, sn, "a")
	if err != nil {
		t.Fatal(err)
	}
	g.Close()
	clean, _ := store.List(ctx, "")
	rdr, _ := idRows(7)(context.Background())
	if _, err := ds.StageAppend(ctx, rdr, lance.StageOptions{}); err != nil {
		t.Fatal(err)
	}
	rdr.Release()
	before, _ := store.List(ctx, "")
	staged := len(before) - len(clean) // the data file (and the staged transaction)
	code, out, e := runCmd(t, nil, "verify", "--data", dir, "--reclaimable", "--grace", "1ns")
	if code != 0 || staged == 0 || !strings.Contains(out, fmt.Sprintf("reclaimable: %d file(s)", staged)) {
		t.Fatalf("verify --reclaimable: %d %q %q", code, out, e)
	}
	if after, _ := store.List(ctx, ""); len(after) != len(before) {
		t.Fatalf("verify changed the root: %d objects, then %d", len(before), len(after))
	}
	if _, out, _ := runCmd(t, nil, "verify", "--data", dir, "--reclaimable"); !strings.Contains(out, "reclaimable: 0 file(s)") || !strings.Contains(out, fmt.Sprintf("%d unreferenced file(s) younger", staged)) {
		t.Fatalf("verify within the grace period: %q", out)
	}
	// an interrupted delete leaves dev sealed
	root, err := graph.Open(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := root.CreateBranch(ctx, "dev", ""); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("interrupted")
	root.SetBranchDeleteGuard(func(context.Context, string, string) error { return stop })
	if err := root.DeleteBranch(ctx, "dev"); !errors.Is(err, stop) {
		t.Fatal(err)
	}
	if code, out, _ := runCmd(t, nil, "verify", "--data", dir); code != 1 || !strings.Contains(out, "branch dev: sealed by a delete") {
		t.Fatalf("verify of a sealed branch: %d %q", code, out)
	}
}
