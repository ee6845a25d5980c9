package exec

import (
	"context"
	"testing"
)

// TestParallelJoinSpills: a parallel aggregate or top-N over a join whose
// build side passes work_mem (set, or capped at a quarter of the
// statement's budget) gives up its pipeline before any row is emitted
// and runs serially with a grace join, reusing the build: the answer is
// the in-memory one and no 53200, where the pipeline's unspillable build
// used to fail.
func TestParallelJoinSpills(t *testing.T) {
	cat := parallelTable(t, 20_000)
	cases := []struct {
		name    string
		limit   int64 // statement budget
		workMem int64 // forceWorkMem (0: the default, capped by the budget)
		sql     string
		want    string
	}{
		{"aggregate, work_mem", 0, 10_000, "SELECT count(*), count(t.s) FROM d LEFT JOIN t ON d.id = t.id", "132,123"},
		{"aggregate, budget", 1_500_000, 0, "SELECT count(*), count(t.s) FROM d LEFT JOIN t ON d.id = t.id", "132,123"},
		{"top-N, budget", 1_500_000, 0, "SELECT d.id, t.k FROM d LEFT JOIN t ON d.id = t.id ORDER BY d.id DESC LIMIT 1", "119,22"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			old := forceWorkMem
			forceWorkMem = c.workMem
			defer func() { forceWorkMem = old }()
			withWorkers(2, func() {
				spills, spilled := pipelineSpills.Load(), SpillBytesWritten()
				eng := &Engine{Catalog: cat, MemoryLimit: c.limit}
				r, err := eng.Query(context.Background(), nil, c.sql)
				if err != nil {
					t.Fatalf("%s: %v", c.sql, err)
				}
				if got := oneText(t, r); got != c.want {
					t.Errorf("%s = %q, want %q", c.sql, got, c.want)
				}
				if pipelineSpills.Load() == spills || SpillBytesWritten() == spilled {
					t.Errorf("%s: the pipeline did not give up for a spilled join (%d bytes spilled)", c.sql, SpillBytesWritten()-spilled)
				}
				// the same query in memory gives the same answer in parallel
				big := &Engine{Catalog: cat}
				forceWorkMem = 0
				r, err = big.Query(context.Background(), nil, c.sql)
				if err != nil || oneText(t, r) != c.want {
					t.Errorf("in memory: %v %q", err, oneText(t, r))
				}
			})
		})
	}
}

// TestLookupJoinFallbackSpills: a lookup join whose left input turns out
// too large for lookups hashes its right side; past work_mem that build
// spills and the left rows (those held and the rest) go to the grace
// join's partitions, with the answer of the in-memory run.
func TestLookupJoinFallbackSpills(t *testing.T) {
	cat := parallelTable(t, 20_000)
	for _, sql := range []string{
		"SELECT count(*), count(t.s), sum(t.k) FROM generate_series(0, 29999) g(x) LEFT JOIN t ON t.id = g.x",
		"SELECT count(*), sum(t.k) FROM generate_series(0, 29999) g(x) JOIN t ON t.id = g.x",
	} {
		withWorkers(0, func() {
			eng := &Engine{Catalog: cat}
			r, err := eng.Query(context.Background(), nil, sql)
			if err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
			want := oneText(t, r)
			old := forceWorkMem
			forceWorkMem = 10_000
			defer func() { forceWorkMem = old }()
			spilled := SpillBytesWritten()
			r, err = eng.Query(context.Background(), nil, sql)
			if err != nil || oneText(t, r) != want {
				t.Errorf("%s spilled: %v %q, want %q", sql, err, oneText(t, r), want)
			}
			if SpillBytesWritten() == spilled {
				t.Errorf("%s: nothing spilled", sql)
			}
		})
	}
}

// TestSwappedLookupSpills: a join whose right input is small enough to
// be looked up in the left's index is collected first; when it turns out
// too large and passes work_mem it spills as a grace join's build side,
// with the answer of the in-memory run.
func TestSwappedLookupSpills(t *testing.T) {
	cat := parallelTable(t, 20_000)
	sql := "SELECT t.id, t.s, g.x FROM t JOIN generate_series(0, 29999) g(x) ON t.id = g.x ORDER BY g.x DESC LIMIT 2"
	withWorkers(0, func() {
		eng := &Engine{Catalog: cat}
		r, err := eng.Query(context.Background(), nil, sql)
		if err != nil {
			t.Fatal(err)
		}
		want := resultText(r)
		old := forceWorkMem
		forceWorkMem = 10_000
		defer func() { forceWorkMem = old }()
		spilled := SpillBytesWritten()
		r, err = eng.Query(context.Background(), nil, sql)
		if err != nil || resultText(r) != want {
			t.Fatalf("spilled: %v %q, want %q", err, resultText(r), want)
		}
		if SpillBytesWritten() == spilled {
			t.Error("nothing spilled")
		}
	})
}
