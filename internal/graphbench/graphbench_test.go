package graphbench

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pggraph/pggraph/internal/pgtest"
)

// TestGraphBenchSmall runs the benchmark at CI size as a correctness
// check: every query's answer from every start node equal to PostgreSQL
// 15's (Run fails on the first difference). No timing is asserted.
func TestGraphBenchSmall(t *testing.T) {
	pgtest.SkipShort(t, "PostgreSQL 15")
	ctx := context.Background()
	pg, err := pgtest.Start(ctx)
	if err != nil {
		t.Fatalf("the graph benchmark needs PostgreSQL 15: %v", err)
	}
	defer pg.Stop()
	pc, err := pg.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close(ctx)
	px, err := StartProxy(ctx, "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer px.Stop()
	xc, err := pgx.Connect(ctx, px.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer xc.Close(ctx)
	c := Config{Persons: 3000, Seed: 1, Rounds: 4, Proxy: xc, Postgres: pc}
	g := Generate(c.Persons, c.Seed)
	if err := Load(ctx, c, g); err != nil {
		t.Fatal(err)
	}
	res, err := Run(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(Queries) {
		t.Fatalf("%d results for %d queries", len(res), len(Queries))
	}
}
