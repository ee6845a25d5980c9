package planner

import (
	"context"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/objstore"
)

// TestNextvalNeverTwice: sessions of two pgproxy processes (two graphs
// opened over one store, each with its own Backend and allocator) draw
// from one sequence at once, through nextval in INSERT … SELECT, in
// UPDATE SET and in a plain SELECT; no value is handed out twice.
func TestNextvalNeverTwice(t *testing.T) {
	ctx := context.Background()
	store := objstore.NewMem()
	serve := func(create bool) string {
		g, err := adapters.Open(ctx, store, adapters.Options{Create: create, Actor: "test"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(g.Close)
		return startServerOn(t, g).url("main")
	}
	a := serve(true)
	b := serve(false)
	setup, err := pgx.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer setup.Close(ctx)
	for _, s := range []string{"create sequence s cache 5", "create table n (v int8)"} {
		if _, err := setup.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	const workers, rounds = 4, 5
	var mu sync.Mutex
	seen := map[int64]int{}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		url := a
		if w%2 == 1 {
			url = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := pgx.Connect(ctx, url)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close(ctx)
			for r := 0; r < rounds; r++ {
				rows, err := c.Query(ctx, "select nextval('s') from generate_series(1, 20)")
				if err != nil {
					errs <- err
					return
				}
				vals, err := pgx.CollectRows(rows, pgx.RowTo[int64])
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				for _, v := range vals {
					seen[v]++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(seen) != workers*rounds*20 {
		t.Fatalf("%d distinct values for %d draws", len(seen), workers*rounds*20)
	}
	for v, n := range seen {
		if n != 1 {
			t.Fatalf("value %d handed out %d times", v, n)
		}
	}
	// nextval in INSERT … SELECT and UPDATE SET draws from the same
	// allocator: still no value seen before
	cb, err := pgx.Connect(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close(ctx)
	if _, err := cb.Exec(ctx, "insert into n select nextval('s') from generate_series(1, 10)"); err != nil {
		t.Fatal(err)
	}
	if _, err := setup.Exec(ctx, "update n set v = nextval('s') where v % 2 = 0"); err != nil {
		t.Fatal(err)
	}
	rows, err := setup.Query(ctx, "select v from n")
	if err != nil {
		t.Fatal(err)
	}
	vals, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil || len(vals) != 10 {
		t.Fatalf("%v %v", vals, err)
	}
	for _, v := range vals {
		if seen[v] > 0 {
			t.Fatalf("value %d handed out again", v)
		}
		seen[v]++
	}
}
