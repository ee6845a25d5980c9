// Command execbench compares the exec engine with PostgreSQL 15 on the
// same data in the same run and prints the ratios (issue 6, item 8).
//
//	go run ./exec/cmd/execbench [-rows 10000000] [-small 1000000] [-runs 5]
//
// It builds the tables in memory for the engine, starts a throwaway
// PostgreSQL (internal/pgtest) loaded with identical rows, and runs:
// a full-scan aggregate, a 1,000-group GROUP BY, a 1M x 10M key join,
// ORDER BY ... LIMIT 100, and a primary-key point lookup (p50 over many
// lookups).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgx/v5"
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/internal/pgtest"
)

// The generator both sides use: id 1..n, grp = id % 1000, v = (id*7 % 1000)/10, flag = id % 3 = 0.
func bigTable(n int) *exec.MemTable {
	cols := []exec.ColumnDef{{Name: "id", Type: exec.TInt8, NotNull: true}, {Name: "grp", Type: exec.TInt8}, {Name: "v", Type: exec.TFloat8}, {Name: "flag", Type: exec.TBool}}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "grp", Type: arrow.PrimitiveTypes.Int64},
		{Name: "v", Type: arrow.PrimitiveTypes.Float64}, {Name: "flag", Type: arrow.FixedWidthTypes.Boolean},
	}, nil)
	mt := &exec.MemTable{Cols: cols, Keys: []int{0}}
	const chunk = 1 << 16
	for lo := 1; lo <= n; lo += chunk {
		hi := min(lo+chunk-1, n)
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		for i := lo; i <= hi; i++ {
			b.Field(0).(*array.Int64Builder).Append(int64(i))
			b.Field(1).(*array.Int64Builder).Append(int64(i % 1000))
			b.Field(2).(*array.Float64Builder).Append(float64(i*7%1000) / 10)
			b.Field(3).(*array.BooleanBuilder).Append(i%3 == 0)
		}
		mt.Records = append(mt.Records, b.NewRecordBatch())
		b.Release()
	}
	return mt
}

func smallTable(n int) *exec.MemTable {
	cols := []exec.ColumnDef{{Name: "id", Type: exec.TInt8, NotNull: true}, {Name: "w", Type: exec.TInt8}}
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "w", Type: arrow.PrimitiveTypes.Int64}}, nil)
	mt := &exec.MemTable{Cols: cols, Keys: []int{0}}
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	for i := 1; i <= n; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i * 10))
		b.Field(1).(*array.Int64Builder).Append(int64(i % 7))
	}
	mt.Records = append(mt.Records, b.NewRecordBatch())
	b.Release()
	return mt
}

type query struct {
	name, sql string
}

func median(d []time.Duration) time.Duration {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}

func main() {
	rows := flag.Int("rows", 10_000_000, "rows in the big table")
	small := flag.Int("small", 1_000_000, "rows in the small join table")
	runs := flag.Int("runs", 5, "runs per query (median reported)")
	lookups := flag.Int("lookups", 2000, "point lookups for the p50")
	out := flag.String("out", "", "results file (JSON); default bench-results/exec-<time>.json")
	flag.Parse()
	started := time.Now().UTC()
	var results []benchResult
	ctx := context.Background()

	fmt.Printf("building %d + %d rows for the engine...\n", *rows, *small)
	cat := exec.NewMemCatalog()
	big := bigTable(*rows)
	cat.Add(&exec.TableDef{Name: "big", Columns: big.Cols, PrimaryKey: []int{0}, Source: big})
	sm := smallTable(*small)
	cat.Add(&exec.TableDef{Name: "small", Columns: sm.Cols, PrimaryKey: []int{0}, Source: sm})
	eng := &exec.Engine{Catalog: cat}

	fmt.Println("starting PostgreSQL 15 and loading the same rows...")
	srv, err := pgtest.Start(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer srv.Stop()
	conn, err := srv.Connect(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer conn.Close(ctx)
	for _, s := range []string{
		"SET max_parallel_workers_per_gather = 2",
		"CREATE UNLOGGED TABLE big (id int8 PRIMARY KEY, grp int8, v float8, flag bool)",
		fmt.Sprintf("INSERT INTO big SELECT i, i %% 1000, (i * 7 %% 1000) / 10.0, i %% 3 = 0 FROM generate_series(1, %d) i", *rows),
		"CREATE UNLOGGED TABLE small (id int8 PRIMARY KEY, w int8)",
		fmt.Sprintf("INSERT INTO small SELECT i * 10, i %% 7 FROM generate_series(1, %d) i", *small),
		"VACUUM ANALYZE big", "VACUUM ANALYZE small",
	} {
		if _, err := conn.Exec(ctx, s); err != nil {
			fmt.Fprintln(os.Stderr, s, err)
			os.Exit(1)
		}
	}

	queries := []query{
		{"full-scan aggregate", "SELECT sum(v), count(v), count(*) FROM big"},
		{"GROUP BY 1000 groups", "SELECT grp, count(*), sum(v), min(v), max(v) FROM big WHERE flag GROUP BY grp"},
		{"join 1M x 10M on key", "SELECT count(*), sum(small.w) FROM big JOIN small ON big.id = small.id"},
		{"ORDER BY ... LIMIT 100", "SELECT id, v FROM big ORDER BY v DESC, id LIMIT 100"},
	}
	fmt.Printf("\n%-24s %12s %12s %8s\n", "query", "engine", "postgres", "ratio")
	for _, q := range queries {
		var ours, theirs []time.Duration
		var ourFirst, pgFirst string
		for r := 0; r < *runs; r++ {
			t0 := time.Now()
			res, err := eng.Query(ctx, nil, q.sql)
			if err != nil {
				fmt.Fprintln(os.Stderr, q.sql, err)
				os.Exit(1)
			}
			ours = append(ours, time.Since(t0))
			if s, ok := res.Text(0, 0); ok {
				ourFirst = s
			}
			t0 = time.Now()
			var first any
			rs, err := conn.Query(ctx, q.sql, pgx.QueryExecModeSimpleProtocol)
			if err != nil {
				fmt.Fprintln(os.Stderr, q.sql, err)
				os.Exit(1)
			}
			for rs.Next() {
				if first == nil {
					v, _ := rs.Values()
					first = v[0]
				}
			}
			rs.Close()
			theirs = append(theirs, time.Since(t0))
			pgFirst = fmt.Sprint(first)
		}
		mo, mp := median(ours), median(theirs)
		fmt.Printf("%-24s %12v %12v %7.1fx   (first value: engine %s, postgres %s)\n", q.name, mo.Round(time.Microsecond), mp.Round(time.Microsecond), float64(mp)/float64(mo), ourFirst, pgFirst)
		results = append(results, newResult(q.name, "median of runs", ours, theirs))
	}

	// point lookups
	p, err := eng.Prepare("SELECT v FROM big WHERE id = $1", nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if _, err := p.Execute(ctx, nil, []any{int64(1)}); err != nil { // builds the key index once
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var ours, theirs []time.Duration
	for i := 0; i < *lookups; i++ {
		id := int64(rand.IntN(*rows) + 1)
		t0 := time.Now()
		if _, err := p.Execute(ctx, nil, []any{id}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		ours = append(ours, time.Since(t0))
		t0 = time.Now()
		var v float64
		if err := conn.QueryRow(ctx, "SELECT v FROM big WHERE id = $1", id).Scan(&v); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		theirs = append(theirs, time.Since(t0))
	}
	mo, mp := median(ours), median(theirs)
	fmt.Printf("%-24s %12v %12v %7.1fx   (p50 over %d lookups; postgres includes the client round trip)\n", "point lookup by pk", mo.Round(time.Microsecond), mp.Round(time.Microsecond), float64(mp)/float64(mo), *lookups)
	results = append(results, newResult("point lookup by pk", "p50 of lookups", ours, theirs))
	if err := writeResults(*out, started, *rows, *small, *runs, results); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// benchResult is one query's timings on both sides; min and max show
// the dispersion across runs on this shared machine.
type benchResult struct {
	Query      string  `json:"query"`
	Statistic  string  `json:"statistic"`
	EngineMs   float64 `json:"engine_ms"`
	PostgresMs float64 `json:"postgres_ms"`
	// Speedup is PostgreSQL's time over the engine's (> 1: engine faster).
	Speedup     float64 `json:"speedup_vs_postgres"`
	EngineMinMs float64 `json:"engine_min_ms"`
	EngineMaxMs float64 `json:"engine_max_ms"`
	PgMinMs     float64 `json:"postgres_min_ms"`
	PgMaxMs     float64 `json:"postgres_max_ms"`
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func newResult(name, stat string, ours, theirs []time.Duration) benchResult {
	mo, mp := median(ours), median(theirs)
	lo, hi := minMax(ours)
	plo, phi := minMax(theirs)
	return benchResult{Query: name, Statistic: stat, EngineMs: msOf(mo), PostgresMs: msOf(mp),
		Speedup: float64(mp) / float64(mo), EngineMinMs: msOf(lo), EngineMaxMs: msOf(hi), PgMinMs: msOf(plo), PgMaxMs: msOf(phi)}
}

func minMax(ds []time.Duration) (time.Duration, time.Duration) {
	lo, hi := ds[0], ds[0]
	for _, d := range ds {
		lo, hi = min(lo, d), max(hi, d)
	}
	return lo, hi
}

func writeResults(out string, started time.Time, rows, small, runs int, results []benchResult) error {
	if out == "" {
		if err := os.MkdirAll("bench-results", 0o755); err != nil {
			return err
		}
		out = filepath.Join("bench-results", "exec-"+started.Format("20060102-150405")+".json")
	}
	b, err := json.MarshalIndent(map[string]any{"kind": "exec-vs-postgres", "started_at": started,
		"rows": rows, "small_rows": small, "runs": runs, "results": results}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Printf("results written to %s\n", out)
	return nil
}
