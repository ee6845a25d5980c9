package adapters

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/protocol"
)

// rowV is one test row (id, v).
func rowV(id int64, v string) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, testSchema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).Append(id)
	b.Field(1).(*array.StringBuilder).Append(v)
	return b.NewRecordBatch()
}

func insertV(t *testing.T, g *Graph, branch, table string, id int64, v string) {
	t.Helper()
	rec := rowV(id, v)
	defer rec.Release()
	if _, err := g.Write(context.Background(), WriteOptions{Branch: branch}, func(ctx context.Context, s *Stage) error {
		return s.InsertBatches(table, testSchema, rec)
	}); err != nil {
		t.Fatal(err)
	}
}

// vOf is column v of a one-row conflict version ("" when absent).
func vOf(rec arrow.RecordBatch) string {
	if rec == nil {
		return ""
	}
	return rec.Column(1).(*array.String).Value(0)
}

func TestStageMergeReportsRowConflictsAndPublishesResolution(t *testing.T) {
	ctx := context.Background()
	g := mergeRoot(t)
	insertV(t, g, "", "a", 5, "ours")
	insertV(t, g, "dev", "a", 5, "theirs")
	insertV(t, g, "dev", "a", 6, "clean")
	insertV(t, g, "dev", "b", 7, "same") // both sides add the same row: no conflict
	insertV(t, g, "", "b", 7, "same")
	mainBefore := head(t, g)

	sm, err := g.StageMerge(ctx, MergeOptions{From: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	if len(sm.Conflicts) != 1 {
		t.Fatalf("conflicts = %+v, want the one row of a", sm.Conflicts)
	}
	c := sm.Conflicts[0]
	if c.Table != "a" || c.Base != nil || vOf(c.Ours) != "ours" || vOf(c.Theirs) != "theirs" {
		t.Fatalf("conflict = %s base=%v ours=%q theirs=%q", c.Table, c.Base, vOf(c.Ours), vOf(c.Theirs))
	}
	// staging writes nothing
	if h := head(t, g); h.Version != mainBefore.Version {
		t.Fatalf("staging moved main from %d to %d", mainBefore.Version, h.Version)
	}
	ak, ok := sm.Result.Merged.State.TableByName("a")
	if !ok {
		t.Fatal("a missing from the merged catalog")
	}
	staged := sm.Result.Rows[ak.Key()]
	if staged == nil || staged.Added == nil || len(staged.Deleted) != 0 {
		t.Fatalf("staged rows of a = %+v, want the clean insert only", staged)
	}

	// resolve: take theirs for id 5 (delete ours, add theirs) and keep the
	// clean insert
	theirs := rowV(5, "theirs")
	defer theirs.Release()
	added, err := readAll(staged.Added)
	if err != nil {
		t.Fatal(err)
	}
	if len(added) == 0 {
		t.Fatal("the staged insert yields no rows")
	}
	sch := added[0].Schema()
	theirs = array.NewRecordBatch(sch, theirs.Columns(), 1)
	final := map[graph.TableKey]*MergedRows{ak.Key(): {Deleted: []uint64{c.OursAddr}, Added: Batches(sch, append(added, theirs)...)}}
	devHead, _ := g.Head(ctx, "dev")
	rc, err := g.PublishMerge(ctx, sm, final, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if mp := rc.Snapshot.Commit.MergedParent; mp != devHead.Commit.ID {
		t.Fatalf("merged parent %q, want the staged source head %q", mp, devHead.Commit.ID)
	}
	if rc.Snapshot.Version != mainBefore.Version+1 {
		t.Fatalf("publish made versions %d..%d, want one commit", mainBefore.Version, rc.Snapshot.Version)
	}
	if got := branchIDs(t, g, "", "a"); len(got) != 3 || got[0] != 1 || got[1] != 5 || got[2] != 6 {
		t.Fatalf("a = %v, want [1 5 6]", got)
	}
	if v := valueOf(t, g, "", "a", 5); v != "theirs" {
		t.Fatalf("a[5].v = %q, want theirs", v)
	}

	// a staged merge whose target moved since is refused (strict)
	insertV(t, g, "dev", "a", 8, "later")
	sm2, err := g.StageMerge(ctx, MergeOptions{From: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	insertV(t, g, "", "c", 300, "moved")
	if _, err := g.PublishMerge(ctx, sm2, sm2.Result.Rows, MergeOptions{}); protocol.SQLState(err) != "40001" {
		t.Fatalf("publish after the target moved: %v (SQLSTATE %s), want 40001", err, protocol.SQLState(err))
	}
}

func readAll(src Source) ([]arrow.RecordBatch, error) {
	r, err := src(context.Background())
	if err != nil {
		return nil, err
	}
	defer r.Release()
	var out []arrow.RecordBatch
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		out = append(out, rec)
	}
	return out, r.Err()
}

// valueOf reads column v of row id.
func valueOf(t *testing.T, g *Graph, branch, table string, id int64) string {
	t.Helper()
	sn, err := g.Head(context.Background(), branch)
	if err != nil {
		t.Fatal(err)
	}
	ds, _, err := g.Table(context.Background(), sn, table)
	if err != nil {
		t.Fatal(err)
	}
	var out string
	if err := forEachRow(context.Background(), ds, lance.ScanOptions{}, func(rec arrow.RecordBatch, i int, _ uint64) error {
		if rec.Column(0).(*array.Int64).Value(i) == id {
			out = rec.Column(1).(*array.String).Value(i)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}
