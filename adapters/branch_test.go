package adapters

import (
	"context"
	"slices"
	"testing"

	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/protocol"
)

func TestBranchesWithLazyFirstTouch(t *testing.T) {
	ctx := context.Background()
	g := openGraph(t, objstore.NewMem(), true)
	defer g.Close()
	createTables(t, g, "a", "b")
	if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {1}, "b": {10}}); err != nil {
		t.Fatal(err)
	}
	mainBefore := head(t, g)
	sn, err := g.CreateBranch(ctx, "dev", "")
	if err != nil {
		t.Fatal(err)
	}
	if sn.Version != mainBefore.Version || sn.Commit.ID != mainBefore.Commit.ID {
		t.Fatalf("a new branch starts at its parent's head: %+v", sn)
	}
	if h := head(t, g); h.Version != mainBefore.Version {
		t.Fatal("branch creation made a graph commit")
	}
	// first touch of a on dev
	rc, err := g.Write(ctx, WriteOptions{Branch: "dev"}, func(ctx context.Context, s *Stage) error { return s.Insert("a", rowsOf(2)) })
	if err != nil {
		t.Fatal(err)
	}
	ea, _ := rc.Snapshot.State.TableByName("a")
	eb, _ := rc.Snapshot.State.TableByName("b")
	if ea.Branch != "dev" || eb.Branch != "" {
		t.Fatalf("only the touched table forks: a=%+v b=%+v", ea, eb)
	}
	if got, _ := readIDs(t, g, rc.Snapshot, "a"); !slices.Equal(got, []int64{1, 2}) {
		t.Fatalf("dev a = %v", got)
	}
	if got, _ := readIDs(t, g, head(t, g), "a"); !slices.Equal(got, []int64{1}) {
		t.Fatalf("main a = %v", got)
	}
	// second write on dev uses the fork (no new ref), and deletes work
	// on inherited row addresses too
	_, addrs := readIDs(t, g, rc.Snapshot, "b")
	rc, err = g.Write(ctx, WriteOptions{Branch: "dev"}, func(ctx context.Context, s *Stage) error {
		if err := s.Insert("a", rowsOf(3)); err != nil {
			return err
		}
		return s.Delete("b", []uint64{addrs[10]})
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := readIDs(t, g, rc.Snapshot, "a"); !slices.Equal(got, []int64{1, 2, 3}) {
		t.Fatalf("dev a = %v", got)
	}
	if got, _ := readIDs(t, g, rc.Snapshot, "b"); len(got) != 0 {
		t.Fatalf("dev b = %v", got)
	}
	if got, _ := readIDs(t, g, head(t, g), "b"); !slices.Equal(got, []int64{10}) {
		t.Fatalf("main b = %v", got)
	}
	// main moves on independently
	if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {100}}); err != nil {
		t.Fatal(err)
	}
	if bs, _ := g.Branches(ctx); !slices.Equal(bs, []string{"main", "dev"}) {
		t.Fatalf("branches %v", bs)
	}
	// errors
	if _, err := g.CreateBranch(ctx, "dev", ""); protocol.SQLState(err) != "22023" {
		t.Fatalf("duplicate branch: %v", err)
	}
	if _, err := g.CreateBranch(ctx, "dev/x", ""); err == nil {
		t.Fatal("nested branch name accepted")
	}
	if _, err := g.Write(ctx, WriteOptions{Branch: "nope"}, func(ctx context.Context, s *Stage) error { return s.Insert("a", rowsOf(1)) }); !protocol.IsUnknownBranch(err) {
		t.Fatalf("write to a missing branch: %v", err)
	}
	// delete: the branch and its forks are gone; main untouched
	loc := ea.Location
	if err := g.DeleteBranch(ctx, "dev"); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Head(ctx, "dev"); !protocol.IsUnknownBranch(err) || protocol.SQLState(err) != "3D000" {
		t.Fatalf("deleted branch: %v", err)
	}
	if _, err := lance.GetBranch(ctx, g.Root.Store(), loc, "dev"); !lance.IsNotFound(err) {
		t.Fatalf("fork not reclaimed: %v", err)
	}
	if got, _ := readIDs(t, g, head(t, g), "a"); !slices.Equal(got, []int64{1, 100}) {
		t.Fatalf("main a = %v", got)
	}
	// re-create: a new incarnation from main's head
	sn, err = g.CreateBranch(ctx, "dev", "")
	if err != nil {
		t.Fatal(err)
	}
	rc, err = g.Write(ctx, WriteOptions{Branch: "dev"}, func(ctx context.Context, s *Stage) error { return s.Insert("a", rowsOf(5)) })
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := readIDs(t, g, rc.Snapshot, "a"); !slices.Equal(got, []int64{1, 5, 100}) {
		t.Fatalf("re-created dev a = %v", got)
	}
	_ = sn
}

func TestStaleBranchBaseIsRefused(t *testing.T) {
	ctx := context.Background()
	g := openGraph(t, objstore.NewMem(), true)
	defer g.Close()
	createTables(t, g, "a")
	if _, err := g.CreateBranch(ctx, "x", ""); err != nil {
		t.Fatal(err)
	}
	base, err := g.Head(ctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	if err := g.DeleteBranch(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := g.CreateBranch(ctx, "x", ""); err != nil {
		t.Fatal(err)
	}
	// a strict transaction that read the first incarnation cannot commit
	// into the second (same name, same versions: ABA)
	_, err = g.Write(ctx, WriteOptions{Branch: "x", Strict: true, Base: base}, func(ctx context.Context, s *Stage) error {
		return s.Insert("a", rowsOf(1))
	})
	if !protocol.IsReadSetChanged(err) {
		t.Fatalf("want 40001 across incarnations, got %v", err)
	}
}
