package graphsql

import (
	"context"
	"testing"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/recovery"
)

// TestOptimize: graph.optimize compacts a table written in several
// commits into one graph commit (its id is the result) and keeps rows.
func TestOptimize(t *testing.T) {
	g, _ := openLocal(t)
	ctx := context.Background()
	createPeople(t, g)
	for i := int64(1); i <= 3; i++ {
		insertPeople(t, g, "main", "one row", i)
	}
	before, _ := g.Root.Head(ctx, "main")
	inv, _ := Parse("SELECT graph.optimize('people')")
	res, err := inv.Execute(ctx, g, Env{}, nil, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := g.Root.Head(ctx, "main")
	if id, _ := res.Row[0].(string); id == "" || id != after.Commit.ID || after.Version != before.Version+1 {
		t.Fatalf("optimize returned %v; head %s v%d (was v%d)", res.Row, after.Commit.ID, after.Version, before.Version)
	}
	views, _ := Tables(ctx, g, "main")
	got := query(t, WithViews(exec.NewMemCatalog(), views), "SELECT writer_kind, (SELECT row_count FROM graph.tables) FROM graph.commits LIMIT 1")
	if len(got) != 1 || got[0] != string(adapters.Optimize)+"|3" {
		t.Fatalf("newest commit %q", got)
	}
	// compacted already: nothing to do, NULL, no commit
	res, err = inv.Execute(ctx, g, Env{}, nil, nil, nil, nil)
	if err != nil || res.Row[0] != nil {
		t.Fatalf("second optimize %v %v", res, err)
	}
}

func TestSummaries(t *testing.T) {
	if got := classesText(map[string]recovery.Class{"b": recovery.Landed, "a": recovery.NoMovement}); got != "a=no_movement, b=landed" {
		t.Fatalf("classes %q", got)
	}
	if got := classesText(nil); got != nil {
		t.Fatalf("no classes rendered as %v", got)
	}
	got := cleanupSummary(adapters.CleanupReport{Datasets: 4, Deleted: []string{"x", "y"}, DeletedBytes: 10, OrphanDatasets: []string{"t"}, StagingSwept: 1, Skipped: []string{"s: live"}})
	if got != "2 files deleted (10 bytes), 1 orphan datasets reclaimed, 1 staging files swept; 4 datasets examined, 1 skipped" {
		t.Fatalf("cleanup summary %q", got)
	}
}
