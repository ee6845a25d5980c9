package exec

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// parallelTable is n rows covering the key and value shapes the parallel
// aggregate handles: dense and sparse int keys, NULL keys, text keys,
// exact float values (multiples of 0.25, so sums do not depend on the
// order of additions), NaN, numerics, booleans with NULLs and int8
// values whose sum overflows into numeric.
func parallelTable(t testing.TB, n int) *MemCatalog {
	t.Helper()
	cols := []ColumnDef{
		{Name: "id", Type: TInt8, NotNull: true}, {Name: "k", Type: TInt8}, {Name: "nk", Type: TInt8},
		{Name: "s", Type: TText}, {Name: "f", Type: TFloat8}, {Name: "fn", Type: TFloat8},
		{Name: "n", Type: TNumeric}, {Name: "b", Type: TBool}, {Name: "big", Type: TInt8},
	}
	rows := make([][]any, n)
	for i := range rows {
		var nk, s, fn, b any = int64(i%50)*1_000_000_000_000 - 25_000_000_000_000, fmt.Sprintf("g%02d", i%31), float64(i % 977), i%5 == 0
		if i%13 == 0 {
			nk = nil
		}
		if i%17 == 0 {
			s = nil
		}
		if i%1001 == 500 {
			fn = math.NaN()
		}
		if i%7 == 0 {
			b = nil
		}
		rows[i] = []any{int64(i), int64(i % 97), nk, s, float64(i%1000) / 4, fn,
			fmt.Sprintf("%d.%02d", i%100, i%37), b, int64(math.MaxInt64 - int64(i%3))}
	}
	mt, err := NewMemTable(cols, rows)
	if err != nil {
		t.Fatal(err)
	}
	mt.Keys = []int{0}
	cat := NewMemCatalog()
	cat.Add(&TableDef{Name: "t", Columns: cols, PrimaryKey: []int{0}, Source: mt})
	// d: join partners for t.k (ids 0..119, two rows for ids divisible
	// by 10, none for 97..119 in t), with sparse and text keys too
	dcols := []ColumnDef{{Name: "id", Type: TInt8}, {Name: "name", Type: TText}, {Name: "sparse", Type: TInt8}, {Name: "w", Type: TFloat8}}
	var drows [][]any
	for i := 0; i < 120; i++ {
		drows = append(drows, []any{int64(i), fmt.Sprintf("g%02d", i%31), int64(i)*1_000_000_000_000 - 25_000_000_000_000, float64(i) / 2})
		if i%10 == 0 {
			drows = append(drows, []any{int64(i), nil, nil, float64(i)})
		}
	}
	dt, err := NewMemTable(dcols, drows)
	if err != nil {
		t.Fatal(err)
	}
	cat.Add(&TableDef{Name: "d", Columns: dcols, Source: dt})
	return cat
}

// withWorkers runs f with w workers on any table size (0: the serial path).
func withWorkers(w int, f func()) {
	saved, savedMin := parallelWorkers, parallelMinRows
	parallelWorkers = func() int { return w }
	parallelMinRows = 0
	defer func() { parallelWorkers, parallelMinRows = saved, savedMin }()
	f()
}

func resultText(r *Result) string {
	var sb strings.Builder
	for _, row := range r.Rows() {
		for i, v := range row {
			if i > 0 {
				sb.WriteByte('|')
			}
			if v == nil {
				sb.WriteString("NULL")
			} else {
				sb.WriteString(*v)
			}
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// TestParallelAggMatchesSerial runs each query serially and with 2 and 3
// workers: rows, values and row order must be identical, and the
// parallel runs must have taken the parallel path.
func TestParallelAggMatchesSerial(t *testing.T) {
	cat := parallelTable(t, 70_000) // > 4 units of parallelUnitRows
	eng := &Engine{Catalog: cat}
	ctx := context.Background()
	queries := []string{
		"SELECT k, count(*), count(nk), sum(f), avg(f), min(f), max(f) FROM t WHERE b GROUP BY k",
		"SELECT nk, count(*), sum(k), min(s), max(s), min(id), max(id) FROM t GROUP BY nk",
		"SELECT s, k % 3, sum(n), avg(n), min(n), max(n), bool_and(b), bool_or(b), every(b) FROM t GROUP BY s, k % 3",
		"SELECT sum(big), avg(big), sum(k), avg(k), count(*) FROM t",
		"SELECT count(*) FILTER (WHERE b), sum(k) FILTER (WHERE k > 50), max(fn), min(fn), max(b::int) FROM t",
		"SELECT k % 7, max(fn), min(fn) FROM t GROUP BY 1",
		"SELECT k, count(*) FROM t WHERE k > 1000 GROUP BY k",
		"SELECT count(*), sum(f), min(s), bool_or(b) FROM t WHERE k > 1000",
		"SELECT s, count(*) FROM t WHERE nk IS NULL AND k < 40 GROUP BY s",
		"SELECT k, sum(k) FROM t GROUP BY k HAVING count(*) > 721 ORDER BY 2 DESC, 1",
		"SELECT id % 20000, count(*), sum(f) FROM t WHERE id % 3 <> 1 GROUP BY 1",
		// hash-join probes in the pipeline
		"SELECT count(*), sum(d.w), sum(t.f) FROM t JOIN d ON t.k = d.id",
		"SELECT d.name, count(*), sum(t.f), max(t.s) FROM t JOIN d ON t.k = d.id WHERE t.b GROUP BY d.name",
		"SELECT d.id % 4, count(*), count(d.name), sum(d.w) FROM t LEFT JOIN d ON t.k = d.id AND d.w < 30 GROUP BY 1",
		"SELECT count(*), min(d.id), max(t.id) FROM t JOIN d ON t.nk = d.sparse",
		"SELECT d.name, count(*) FROM t JOIN d ON t.s = d.name GROUP BY 1",
		"SELECT count(*), sum(t.k) FROM t, d WHERE t.k = d.id AND d.id > 50 AND t.f < 100",
		"SELECT d2.name, count(*), sum(d1.w) FROM t JOIN d d1 ON t.k = d1.id JOIN d d2 ON d1.id + 1 = d2.id GROUP BY 1",
		"SELECT x.k, count(*) FROM (SELECT k, f * 2 AS f2 FROM t WHERE f > 10) x GROUP BY x.k",
		"SELECT k % 3, count(_rowaddr), min(_rowaddr), max(_rowaddr), sum(_rowaddr) FROM t WHERE b GROUP BY 1", // row addresses reach the workers
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
		if want == "" && !strings.Contains(q, "1000 GROUP") {
			t.Fatalf("%s: serial result is empty", q)
		}
		for _, w := range []int{1, 2, 3} {
			withWorkers(w, func() {
				before := parallelAggRuns.Load()
				r, err := eng.Query(ctx, nil, q)
				if err != nil {
					t.Fatalf("%s: %d workers: %v", q, w, err)
				}
				if parallelAggRuns.Load() == before {
					t.Errorf("%s: %d workers: the parallel path was not taken", q, w)
				}
				if got := resultText(r); got != want {
					t.Errorf("%s: %d workers:\n got %.300q\nwant %.300q", q, w, got, want)
				}
			})
		}
	}
}

// TestParallelAggEligibility checks which aggregates keep the serial path.
func TestParallelAggEligibility(t *testing.T) {
	cat := parallelTable(t, 3000)
	eng := &Engine{Catalog: cat}
	cases := []struct {
		sql      string
		parallel bool
	}{
		{"SELECT k, sum(f) FROM t WHERE b AND k < 50 GROUP BY k", true},
		{"SELECT count(*) FROM t", true},
		{"SELECT count(DISTINCT k) FROM t", false},
		{"SELECT string_agg(s, ',') FROM t", false},
		{"SELECT k, array_agg(id ORDER BY id) FROM t GROUP BY k", false},
		{"SELECT stddev(f) FROM t", false},
		{"SELECT count(*) FROM t WHERE k IN (SELECT 1)", false},
		{"SELECT upper(s), count(*) FROM t GROUP BY 1", false},
		{"SELECT count(*) FROM t WHERE id = 7", false}, // key lookup
		{"SELECT count(*) FROM (SELECT k FROM t LIMIT 10) x", false},
		{"SELECT count(*) FROM t JOIN d ON t.k = d.id", true},
		{"SELECT count(*) FROM t FULL JOIN d ON t.k = d.id", false},
		{"SELECT count(*) FROM t JOIN d ON t.k < d.id", false}, // nested loop
		{"SELECT count(*) FROM t JOIN d ON t.k = d.id AND t.s ~ d.name", false},
	}
	for _, c := range cases {
		withWorkers(2, func() {
			before := parallelAggRuns.Load()
			if _, err := eng.Query(context.Background(), nil, c.sql); err != nil {
				t.Fatalf("%s: %v", c.sql, err)
			}
			if got := parallelAggRuns.Load() > before; got != c.parallel {
				t.Errorf("%s: parallel = %v, want %v", c.sql, got, c.parallel)
			}
		})
	}
	// below the size threshold the serial path runs
	saved := parallelWorkers
	parallelWorkers = func() int { return 2 }
	defer func() { parallelWorkers = saved }()
	before := parallelAggRuns.Load()
	if _, err := eng.Query(context.Background(), nil, "SELECT count(*) FROM t"); err != nil {
		t.Fatal(err)
	}
	if parallelAggRuns.Load() != before {
		t.Errorf("a %d-row table ran in parallel (threshold %d)", 3000, parallelMinRows)
	}
}

// TestParallelAggErrors: errors raised in a worker, cancellation and
// the memory budget behave as in a serial run.
func TestParallelAggErrors(t *testing.T) {
	cat := parallelTable(t, 40_000)
	withWorkers(2, func() {
		eng := &Engine{Catalog: cat}
		_, err := eng.Query(context.Background(), nil, "SELECT k, sum(10 / (k - 50)) FROM t GROUP BY k")
		if Code(err) != CodeDivisionByZero {
			t.Errorf("division by zero in an aggregate argument: %v", err)
		}
		_, err = eng.Query(context.Background(), nil, "SELECT count(*) FROM t WHERE 100 / (id - 39000) > 0")
		if Code(err) != CodeDivisionByZero {
			t.Errorf("division by zero in a late row of the filter: %v", err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err = eng.Query(ctx, nil, "SELECT k, count(*) FROM t GROUP BY k")
		if Code(err) != CodeQueryCanceled {
			t.Errorf("cancelled context: %v", err)
		}
		small := &Engine{Catalog: cat, MemoryLimit: 200_000}
		_, err = small.Query(context.Background(), nil, "SELECT id, count(*) FROM t GROUP BY id")
		if Code(err) != CodeOutOfMemory {
			t.Errorf("40,000 groups under a 200 kB budget: %v", err)
		}
		// the engine stays usable after a failed parallel run
		r, err := eng.Query(context.Background(), nil, "SELECT count(*) FROM t WHERE b")
		if err != nil || oneText(t, r) != "6857" {
			t.Errorf("after failures: %v %v", err, r)
		}
	})
}

// TestParallelAggDeterministic: with inexact float values the result of
// a parallel run is the same every time for a given worker count.
func TestParallelAggDeterministic(t *testing.T) {
	cat := parallelTable(t, 50_000)
	eng := &Engine{Catalog: cat}
	const q = "SELECT k % 5, sum(f * 0.1::float8 + 0.01::float8), avg(f / 3) FROM t GROUP BY 1"
	withWorkers(2, func() {
		var first string
		for i := 0; i < 5; i++ {
			r, err := eng.Query(context.Background(), nil, q)
			if err != nil {
				t.Fatal(err)
			}
			if got := resultText(r); i == 0 {
				first = got
			} else if got != first {
				t.Fatalf("run %d differs:\n%s\n%s", i, got, first)
			}
		}
	})
}

// stoppingSource cancels the query's context, or fails, after some
// records, to check that a pipeline mid-run stops every worker.
type stoppingSource struct {
	*MemTable
	after  int
	cancel context.CancelFunc
	err    error
}

func (s *stoppingSource) Scan(ctx context.Context, req ScanRequest, emit func(arrow.RecordBatch, []uint64) error) error {
	n := 0
	return s.MemTable.Scan(ctx, req, func(rec arrow.RecordBatch, addrs []uint64) error {
		if n++; n > s.after {
			if s.cancel != nil {
				s.cancel()
			}
			if s.err != nil {
				return s.err
			}
		}
		return emit(rec, addrs)
	})
}

// TestParallelPipelineStops: cancellation and source errors in the middle
// of a parallel run end it with the right error and leave no goroutine
// behind.
func TestParallelPipelineStops(t *testing.T) {
	cat := parallelTable(t, 1000)
	base := cat.Table("public", "t").Source.(*MemTable)
	// many small records, so the scan is still running when it stops
	var recs []arrow.RecordBatch
	for i := 0; i < 200; i++ {
		recs = append(recs, base.Records[0])
	}
	many := &MemTable{Cols: base.Cols, Records: recs}
	srcErr := errors.New("disk on fire")
	before := runtime.NumGoroutine()
	for _, c := range []struct {
		name string
		src  func(cancel context.CancelFunc) TableSource
		want string
	}{
		{"cancel", func(cancel context.CancelFunc) TableSource {
			return &stoppingSource{MemTable: many, after: 20, cancel: cancel}
		}, CodeQueryCanceled},
		{"source error", func(context.CancelFunc) TableSource { return &stoppingSource{MemTable: many, after: 20, err: srcErr} }, ""},
	} {
		withWorkers(2, func() {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c2 := NewMemCatalog()
			c2.Add(&TableDef{Name: "t", Columns: many.Cols, Source: c.src(cancel)})
			c2.Add(cat.Table("public", "d"))
			eng := &Engine{Catalog: c2}
			for _, q := range []string{"SELECT k, count(*), sum(f) FROM t WHERE b GROUP BY k", "SELECT count(*) FROM t JOIN d ON t.k = d.id"} {
				_, err := eng.Query(ctx, nil, q)
				switch {
				case err == nil:
					t.Errorf("%s: %s: no error", c.name, q)
				case c.want != "" && Code(err) != c.want:
					t.Errorf("%s: %s: %v, want %s", c.name, q, err, c.want)
				case c.want == "" && !errors.Is(err, srcErr) && !strings.Contains(err.Error(), srcErr.Error()):
					t.Errorf("%s: %s: %v, want the source's error", c.name, q, err)
				}
			}
		})
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines left behind (%d before)", n-before, before)
	}
}

// TestParallelJoinBudget: a join build that exceeds the memory budget
// fails the parallel aggregate with 53200.
func TestParallelJoinBudget(t *testing.T) {
	cat := parallelTable(t, 20_000)
	withWorkers(2, func() {
		eng := &Engine{Catalog: cat, MemoryLimit: 100_000}
		_, err := eng.Query(context.Background(), nil, "SELECT count(*), count(t.s) FROM d LEFT JOIN t ON d.id = t.id")
		if Code(err) != CodeOutOfMemory {
			t.Errorf("20,000-row build under a 100 kB budget: %v", err)
		}
		before := parallelAggRuns.Load()
		big := &Engine{Catalog: cat}
		r, err := big.Query(context.Background(), nil, "SELECT count(*), count(t.s) FROM d LEFT JOIN t ON d.id = t.id")
		if err != nil || oneText(t, r) != "132,123" || parallelAggRuns.Load() == before {
			t.Errorf("without a budget: %v %q (parallel: %v)", err, oneText(t, r), parallelAggRuns.Load() > before)
		}
	})
}
