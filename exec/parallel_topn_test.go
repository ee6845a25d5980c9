package exec

import (
	"context"
	"testing"
)

// TestParallelTopNMatchesSerial: ORDER BY ... LIMIT over a pipeline gives
// the serial run's rows in the serial order, ties (broken by arrival
// order) included, with 1 to 3 workers.
func TestParallelTopNMatchesSerial(t *testing.T) {
	cat := parallelTable(t, 70_000)
	eng := &Engine{Catalog: cat}
	ctx := context.Background()
	queries := []string{
		"SELECT id, f FROM t ORDER BY f DESC, id LIMIT 100",
		"SELECT id, k FROM t ORDER BY k LIMIT 50",      // ties on the only key: earliest rows win
		"SELECT id, s FROM t ORDER BY s DESC LIMIT 30", // NULLs first for DESC, then text
		"SELECT id, nk FROM t ORDER BY nk NULLS FIRST, f DESC LIMIT 40 OFFSET 5",
		"SELECT id, fn FROM t ORDER BY fn DESC LIMIT 7", // NaN sorts first descending
		"SELECT id, f FROM t WHERE b AND k > 90 ORDER BY f, id DESC LIMIT 2000",
		"SELECT t.id, d.name FROM t JOIN d ON t.k = d.id ORDER BY d.name, t.id DESC LIMIT 25",
		"SELECT t.id, d.w FROM t LEFT JOIN d ON t.k = d.id AND d.w > 40 ORDER BY d.w NULLS FIRST, t.id LIMIT 25",
		"SELECT id FROM t WHERE k > 1000 ORDER BY id LIMIT 3",
		"SELECT id, n FROM t ORDER BY n DESC, id LIMIT 12",
	}
	for _, q := range queries {
		var want string
		withWorkers(0, func() {
			r, err := eng.Query(ctx, nil, q)
			if err != nil {
				t.Fatalf("%s: serial: %v", q, err)
			}
			want = resultText(r)
		})
		for _, w := range []int{1, 2, 3} {
			withWorkers(w, func() {
				before := parallelTopNRuns.Load()
				r, err := eng.Query(ctx, nil, q)
				if err != nil {
					t.Fatalf("%s: %d workers: %v", q, w, err)
				}
				if parallelTopNRuns.Load() == before {
					t.Errorf("%s: %d workers: the parallel path was not taken", q, w)
				}
				if got := resultText(r); got != want {
					t.Errorf("%s: %d workers:\n got %.400q\nwant %.400q", q, w, got, want)
				}
			})
		}
	}
	// a full sort and a top-N over a non-pipeline input stay serial
	for _, q := range []string{"SELECT id FROM t ORDER BY f", "SELECT x FROM (SELECT id AS x FROM t LIMIT 500) s ORDER BY x DESC LIMIT 3"} {
		withWorkers(2, func() {
			before := parallelTopNRuns.Load()
			if _, err := eng.Query(ctx, nil, q); err != nil {
				t.Fatal(err)
			}
			if parallelTopNRuns.Load() != before {
				t.Errorf("%s ran as a parallel top-N", q)
			}
		})
	}
}
