package planner

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/objstore"
)

// TestBackgroundOptimizeNeverFailsATransaction: an automatic compaction
// triggered while a transaction is open waits for it instead of landing
// under it (it would move the rows the transaction updates: 40001 at
// COMMIT), and runs once the transaction has ended.
func TestBackgroundOptimizeNeverFailsATransaction(t *testing.T) {
	ctx := context.Background()
	g, err := adapters.Open(ctx, objstore.NewMem(), adapters.Options{Create: true, Actor: "test", AutoOptimizeFragments: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	ts := startServerOn(t, g)
	a := ts.connect(t, pgx.QueryExecModeExec)
	b := ts.connect(t, pgx.QueryExecModeExec)
	if _, err := a.Exec(ctx, "CREATE TABLE kv (id int8 PRIMARY KEY, v text)"); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := a.Exec(ctx, "INSERT INTO kv VALUES ($1, 'x')", i); err != nil {
			t.Fatal(err)
		}
	}
	runs0, _ := g.AutoOptimizeStats()
	tx, err := a.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "UPDATE kv SET v = 'y' WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	// another session's inserts cross the threshold: a compaction of kv
	// (which would rewrite row 1's fragment) is started in the background
	for i := 10; i < 14; i++ {
		if _, err := b.Exec(ctx, "INSERT INTO kv VALUES ($1, 'x')", i); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runs, _ := g.AutoOptimizeStats(); runs == runs0; runs, _ = g.AutoOptimizeStats() {
		if time.Now().After(deadline) {
			t.Fatal("no background optimize was started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // time enough for it to publish, were it not waiting
	if err := tx.Commit(ctx); err != nil {
		t.Fatalf("COMMIT after a background optimize started: %v", err)
	}
	var mine string
	if err := a.QueryRow(ctx, "SHOW graph.last_commit").Scan(&mine); err != nil {
		t.Fatal(err)
	}
	// the compaction runs after the transaction's commit
	for {
		cs, err := g.Commits(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		at, optimized := -1, false
		for i, c := range cs { // oldest first
			if c.ID == mine {
				at = i
			}
			if at >= 0 && i > at && c.Actor == "auto-optimize" {
				optimized = true
			}
		}
		if at < 0 {
			t.Fatalf("the transaction's commit %s is not in the history", mine)
		}
		if optimized {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the background optimize did not run after the transaction ended")
		}
		time.Sleep(10 * time.Millisecond)
	}
	var v string
	if err := a.QueryRow(ctx, "SELECT v FROM kv WHERE id = 1").Scan(&v); err != nil || v != "y" {
		t.Fatalf("row 1 = %q (%v)", v, err)
	}
}
