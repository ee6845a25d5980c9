// Command execbench compares the exec engine with PostgreSQL 15 on the
// same data in the same run and prints the ratios.
//
//	go run ./exec/cmd/execbench [-rows 10000000] [-small 1000000] [-runs 5] [-lookups 2000]
//	    [-only all|scans|lookup] [-pgproxy BIN] [-data-dir DIR] [-cpuprofile FILE] [-memprofile FILE]
//
// PGGRAPH_BENCH_EXEC_ROWS and PGGRAPH_BENCH_EXEC_SMALL set the defaults of
// -rows and -small (iterate at 1M-2M rows; the target is 10M).
//
// It builds the tables in memory for the engine, starts a throwaway
// PostgreSQL (internal/pgtest, 1 GB of shared buffers) loaded with
// identical rows, and runs: a full-scan aggregate, a 1,000-group GROUP BY,
// a 1M x 10M key join, ORDER BY ... LIMIT 100, and a primary-key point
// lookup. Each query runs once on both sides untimed (warm-up; the two
// results are compared, floats to 1e-9 relative), then -runs times with
// the two sides interleaved, so drift in the machine's load hits both
// alike.
//
// The point lookup goes through the product end to end: a pgproxy server
// started in this process as `pgproxy serve` builds it (planner + wire
// over a graph root of real files in a fresh directory under -data-dir),
// the same big table loaded into it by COPY over the wire (the load time
// is reported), and `SELECT v FROM big WHERE id = $1` sent by pgx with its
// default prepared extended protocol over local TCP to pgproxy and to
// PostgreSQL alike, interleaved per lookup (random ids, each answer
// compared). It runs -runs rounds of -lookups lookups and reports each
// round's p50 and p99. The in-process engine over the in-memory table is
// timed on the same ids as an extra, informational row ("in process": no
// storage, no wire, no round trip). -only lookup skips the scan queries
// (and the small table) to iterate on the lookup; -cpuprofile writes a CPU
// profile of the served lookup rounds (client and server share this
// process). With -pgproxy BIN the lookups go to `BIN serve` started as a
// child process instead (the deployed shape: its own runtime and GC). The table shows
// the minimum and median of the repeats for both sides, the ratio of the
// medians, the target and the load average before and after, then the
// median CPU time per query of both sides (the engine process's, and
// PostgreSQL's backend plus parallel workers' from /proc), a comparison
// that depends much less on the machine's load; the results file goes to
// bench-results/exec-<time>.json like the other suites. PostgreSQL keeps
// its other defaults (work_mem 4MB, max_parallel_workers_per_gather 2).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
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

var scanQueries = []query{
	{"full-scan aggregate", "SELECT sum(v), count(v), count(*) FROM big"},
	{"GROUP BY 1000 groups", "SELECT grp, count(*), sum(v), min(v), max(v) FROM big WHERE flag GROUP BY grp"},
	{"join 1M x 10M on key", "SELECT count(*), sum(small.w) FROM big JOIN small ON big.id = small.id"},
	{"ORDER BY ... LIMIT 100", "SELECT id, v FROM big ORDER BY v DESC, id LIMIT 100"},
}

// stats are the repeats of one measurement.
type stats struct {
	min, median, max time.Duration
}

func statsOf(d []time.Duration) stats {
	s := slices.Clone(d)
	slices.Sort(s)
	return stats{min: s[0], median: s[len(s)/2], max: s[len(s)-1]}
}

// loadAvg is the 1, 5 and 15 minute load average (nil where /proc is missing).
func loadAvg() []float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return nil
	}
	var out []float64
	for _, f := range strings.Fields(string(b))[:3] {
		x, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil
		}
		out = append(out, x)
	}
	return out
}

func envDefault(name string, def int) int {
	if v, ok := os.LookupEnv(name); ok {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
			return n
		}
		fmt.Fprintf(os.Stderr, "ignoring %s=%q (not a positive number)\n", name, v)
	}
	return def
}

func fail(args ...any) {
	fmt.Fprintln(os.Stderr, args...)
	os.Exit(1)
}

func main() {
	rows := flag.Int("rows", envDefault("PGGRAPH_BENCH_EXEC_ROWS", 10_000_000), "rows in the big table")
	small := flag.Int("small", envDefault("PGGRAPH_BENCH_EXEC_SMALL", 1_000_000), "rows in the small join table")
	runs := flag.Int("runs", 5, "timed repeats per query (>= 3); min and median reported")
	lookups := flag.Int("lookups", 2000, "point lookups per round for the p50")
	out := flag.String("out", "", "results file (JSON); default bench-results/exec-<time>.json")
	only := flag.String("only", "all", "which part to run: all, scans (the scan queries) or lookup (the point lookup)")
	dataDir := flag.String("data-dir", "", "parent directory of pgproxy's scratch data directory (default: the system temp directory)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the served point-lookup rounds to this file")
	pgproxyBin := flag.String("pgproxy", "", "serve the point lookups from this pgproxy binary's `serve` in a child process (default: a server in this process, with data-directory operation counts)")
	memProfile := flag.String("memprofile", "", "write a heap profile (live objects) after the point-lookup rounds to this file")
	flag.Parse()
	if *runs < 3 || *lookups < 10 || *rows < 1000 || *small < 1 || *small > *rows {
		fail("need -runs >= 3, -lookups >= 10, -rows >= 1000, 1 <= -small <= -rows")
	}
	doScans, doLookup := *only == "all" || *only == "scans", *only == "all" || *only == "lookup"
	if !doScans && !doLookup {
		fail("-only must be all, scans or lookup")
	}
	started := time.Now().UTC()
	rep := report{Kind: "exec-vs-postgres", StartedAt: started, Rows: *rows, SmallRows: *small, Runs: *runs,
		Lookups: *lookups, GOMAXPROCS: runtime.GOMAXPROCS(0), NumCPU: runtime.NumCPU(), LoadBefore: loadAvg()}
	ctx := context.Background()

	if !doScans {
		rep.SmallRows = 0
	}
	fmt.Printf("building %d + %d rows for the engine...\n", *rows, rep.SmallRows)
	cat := exec.NewMemCatalog()
	big := bigTable(*rows)
	cat.Add(&exec.TableDef{Name: "big", Columns: big.Cols, PrimaryKey: []int{0}, Source: big})
	if doScans {
		sm := smallTable(*small)
		cat.Add(&exec.TableDef{Name: "small", Columns: sm.Cols, PrimaryKey: []int{0}, Source: sm})
	}
	eng := &exec.Engine{Catalog: cat}

	fmt.Println("starting PostgreSQL 15 and loading the same rows...")
	srv, err := pgtest.StartWith(ctx, pgtest.Options{SharedBuffers: "1GB"})
	if err != nil {
		fail(err)
	}
	defer srv.Stop()
	conn, err := srv.Connect(ctx)
	if err != nil {
		srv.Stop()
		fail(err)
	}
	defer conn.Close(ctx)
	pgLoad := []string{
		"SET max_parallel_workers_per_gather = 2",
		"CREATE UNLOGGED TABLE big (id int8 PRIMARY KEY, grp int8, v float8, flag bool)",
		fmt.Sprintf("INSERT INTO big SELECT i, i %% 1000, (i * 7 %% 1000) / 10.0, i %% 3 = 0 FROM generate_series(1, %d) i", *rows),
		"VACUUM ANALYZE big",
	}
	if doScans {
		pgLoad = append(pgLoad, "CREATE UNLOGGED TABLE small (id int8 PRIMARY KEY, w int8)",
			fmt.Sprintf("INSERT INTO small SELECT i * 10, i %% 7 FROM generate_series(1, %d) i", *small),
			"VACUUM ANALYZE small")
	}
	for _, s := range pgLoad {
		if _, err := conn.Exec(ctx, s); err != nil {
			srv.Stop()
			fail(s, err)
		}
	}
	if err := conn.QueryRow(ctx, "SHOW server_version").Scan(&rep.PostgresVersion); err != nil {
		srv.Stop()
		fail(err)
	}

	var queries []query
	if doScans {
		queries = scanQueries
	}
	fmt.Printf("\nPostgreSQL %s; GOMAXPROCS %d, %d CPUs; load average before: %v\n", rep.PostgresVersion, rep.GOMAXPROCS, rep.NumCPU, rep.LoadBefore)
	if doScans {
		fmt.Printf("%d+%d rows, %d interleaved repeats per query (after one untimed warm-up each)\n\n", *rows, rep.SmallRows, *runs)
		printHeader()
	}
	pgc := newPGCPU(ctx, conn)
	var ourCPU, pgCPU []time.Duration
	runEngine := func(sql string) ([][]string, time.Duration) {
		c0, t0 := processCPU(), time.Now()
		res, err := eng.Query(ctx, nil, sql)
		el := time.Since(t0)
		ourCPU = append(ourCPU, processCPU()-c0)
		if err != nil {
			srv.Stop()
			fail(sql, err)
		}
		return engineRows(res), el
	}
	runPG := func(sql string) ([][]string, time.Duration) {
		c0, t0 := pgc.used(), time.Now()
		rr := conn.PgConn().Exec(ctx, sql)
		res, err := rr.ReadAll()
		el := time.Since(t0)
		if err != nil {
			srv.Stop()
			fail(sql, err)
		}
		time.Sleep(20 * time.Millisecond) // let the postmaster reap the parallel workers
		pgCPU = append(pgCPU, pgc.used()-c0)
		return pgRows(res[len(res)-1].Rows), el
	}
	for _, q := range queries {
		ourRows, _ := runEngine(q.sql)
		pgRes, _ := runPG(q.sql)
		check := sameRows(ourRows, pgRes)
		var ours, theirs []time.Duration
		ourCPU, pgCPU = nil, nil
		for r := 0; r < *runs; r++ {
			// alternate which side goes first so neither always follows the other
			if r%2 == 0 {
				_, d := runEngine(q.sql)
				ours = append(ours, d)
				_, d = runPG(q.sql)
				theirs = append(theirs, d)
			} else {
				_, d := runPG(q.sql)
				theirs = append(theirs, d)
				_, d = runEngine(q.sql)
				ours = append(ours, d)
			}
		}
		res := newResult(q.name, "wall time per query", ours, theirs, ">= 5x faster", check)
		res.Pass = res.Speedup >= 5
		res.EngineCPUMs = msOf(statsOf(ourCPU).median)
		if pgc.ok {
			res.PgCPUMs = msOf(statsOf(pgCPU).median)
			if res.EngineCPUMs > 0 {
				res.CPURatio = math.Round(100*res.PgCPUMs/res.EngineCPUMs) / 100
			}
		}
		rep.Results = append(rep.Results, res)
		printResult(res)
	}

	if doLookup {
		if err := runLookups(ctx, lookupConfig{rows: *rows, runs: *runs, lookups: *lookups, dataDir: *dataDir, cpuProfile: *cpuProfile, memProfile: *memProfile, pgproxyBin: *pgproxyBin,
			pgConn: srv.ConnString("postgres"), pgCPU: pgc},
			eng, conn, &rep); err != nil {
			srv.Stop()
			fail(err)
		}
	}
	rep.LoadAfter = loadAvg()
	fmt.Printf("\nratio = postgres median / ours (higher: ours faster); point lookup target: served pgproxy p50 <= 2x postgres p50.\n")
	if !doScans {
		// the CPU times are read for the scan queries only
	} else if pgc.ok {
		fmt.Printf("\nCPU time per query (median; less sensitive to the machine's load than wall time):\n")
		for _, r := range rep.Results {
			if r.PgCPUMs > 0 {
				fmt.Printf("%-24s engine %8.1f ms   postgres %8.1f ms (backend + parallel workers)   %6.1fx\n", r.Query, r.EngineCPUMs, r.PgCPUMs, r.CPURatio)
			}
		}
	} else {
		fmt.Printf("(PostgreSQL's CPU time is not readable from /proc here; only wall times are compared)\n")
	}
	fmt.Printf("load average after: %v (a load above %d means the run shared the CPUs)\n", rep.LoadAfter, rep.NumCPU)
	srv.Stop()
	if err := writeResults(*out, started, &rep); err != nil {
		fail(err)
	}
}

func printHeader() {
	fmt.Printf("%-24s %21s %21s %8s %8s %s\n", "query", "ours min/median", "postgres min/median", "ratio", "target", "results")
}

func printResult(r benchResult) {
	pass := "PASS"
	if !r.Pass {
		pass = "BELOW TARGET"
	}
	if r.Target == "" {
		pass = "(info)"
	}
	fmt.Printf("%-24s %21s %21s %7.1fx %8s %s\n", r.Query,
		fmt.Sprintf("%.3g/%.3g ms", r.EngineMinMs, r.EngineMs), fmt.Sprintf("%.3g/%.3g ms", r.PgMinMs, r.PostgresMs),
		r.Speedup, pass, r.Check)
}

// engineRows is the result as text cells (NULL as "\x00NULL").
func engineRows(r *exec.Result) [][]string {
	var out [][]string
	for _, row := range r.Rows() {
		cells := make([]string, len(row))
		for i, v := range row {
			if v == nil {
				cells[i] = "\x00NULL"
			} else {
				cells[i] = *v
			}
		}
		out = append(out, cells)
	}
	return out
}

func pgRows(rows [][][]byte) [][]string {
	out := make([][]string, len(rows))
	for i, row := range rows {
		out[i] = make([]string, len(row))
		for j, v := range row {
			if v == nil {
				out[i][j] = "\x00NULL"
			} else {
				out[i][j] = string(bytes.Clone(v))
			}
		}
	}
	return out
}

// sameRows compares two results as multisets of rows; cells that parse
// as floats may differ by 1e-9 relative (sums add in different orders).
func sameRows(a, b [][]string) string {
	if len(a) != len(b) {
		return fmt.Sprintf("MISMATCH: %d rows vs %d", len(a), len(b))
	}
	key := func(r []string) string { return strings.Join(r, "\x01") }
	sortRows := func(rs [][]string) [][]string {
		s := slices.Clone(rs)
		slices.SortFunc(s, func(x, y []string) int { return strings.Compare(key(x), key(y)) })
		return s
	}
	a, b = sortRows(a), sortRows(b)
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return fmt.Sprintf("MISMATCH: row %d has %d vs %d columns", i, len(a[i]), len(b[i]))
		}
		for j := range a[i] {
			if a[i][j] == b[i][j] {
				continue
			}
			x, err1 := strconv.ParseFloat(a[i][j], 64)
			y, err2 := strconv.ParseFloat(b[i][j], 64)
			if err1 == nil && err2 == nil && math.Abs(x-y) <= 1e-9*math.Max(math.Abs(x), math.Abs(y)) {
				continue
			}
			return fmt.Sprintf("MISMATCH: row %d column %d: engine %q, postgres %q", i, j, a[i][j], b[i][j])
		}
	}
	return fmt.Sprintf("ok (%d rows equal)", len(a))
}

type report struct {
	Kind            string        `json:"kind"`
	StartedAt       time.Time     `json:"started_at"`
	Rows            int           `json:"rows"`
	SmallRows       int           `json:"small_rows"`
	Runs            int           `json:"runs"`
	Lookups         int           `json:"lookups_per_round"`
	GOMAXPROCS      int           `json:"gomaxprocs"`
	NumCPU          int           `json:"num_cpu"`
	PostgresVersion string        `json:"postgres_version"`
	LoadBefore      []float64     `json:"load_average_before"`
	LoadAfter       []float64     `json:"load_average_after"`
	Results         []benchResult `json:"results"`
	// ServedLoad is pgproxy's COPY of the big table (point lookup).
	ServedLoad *servedLoad `json:"pgproxy_load,omitempty"`
}

// benchResult is one query's timings on both sides; min and max show
// the dispersion across repeats on this shared machine.
type benchResult struct {
	Query     string `json:"query"`
	Statistic string `json:"statistic"`
	// EngineMs and PostgresMs are medians of the repeats.
	EngineMs   float64 `json:"engine_ms"`
	PostgresMs float64 `json:"postgres_ms"`
	// Speedup is PostgreSQL's median over the engine's (> 1: engine faster).
	Speedup     float64   `json:"speedup_vs_postgres"`
	EngineMinMs float64   `json:"engine_min_ms"`
	EngineMaxMs float64   `json:"engine_max_ms"`
	PgMinMs     float64   `json:"postgres_min_ms"`
	PgMaxMs     float64   `json:"postgres_max_ms"`
	EngineAllMs []float64 `json:"engine_samples_ms"`
	PgAllMs     []float64 `json:"postgres_samples_ms"`
	Target      string    `json:"target"`
	Pass        bool      `json:"meets_target"`
	Check       string    `json:"result_check"`
	Note        string    `json:"note,omitempty"`
	// OursP99Ms and PgP99Ms are the medians of the rounds' p99 (lookups).
	OursP99Ms float64 `json:"ours_p99_ms,omitempty"`
	PgP99Ms   float64 `json:"postgres_p99_ms,omitempty"`
	// CPU time per query (medians): the engine process's user+system
	// time, and PostgreSQL's backend plus its parallel workers (reaped
	// children of the postmaster), both from the kernel's accounting.
	EngineCPUMs float64 `json:"engine_cpu_ms,omitempty"`
	PgCPUMs     float64 `json:"postgres_cpu_ms,omitempty"`
	CPURatio    float64 `json:"cpu_ratio_postgres_vs_engine,omitempty"`
}

// processCPU is this process's user+system CPU time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// pgCPU reads PostgreSQL's CPU time from /proc: the backend serving the
// benchmark's connection and the reaped children of the postmaster (the
// parallel workers of finished queries). Ticks are taken as 100 Hz (the
// USER_HZ of Linux on the usual architectures), so the resolution is
// 10 ms: fine for PostgreSQL's scan times, not for point lookups.
type pgCPU struct {
	ok                bool
	backend, postmstr int
}

func newPGCPU(ctx context.Context, conn interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) *pgCPU {
	var pid int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		return &pgCPU{}
	}
	f, err := procStat(pid)
	if err != nil || len(f) < 17 {
		return &pgCPU{}
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return &pgCPU{}
	}
	return &pgCPU{ok: true, backend: pid, postmstr: ppid}
}

func (p *pgCPU) used() time.Duration {
	if !p.ok {
		return 0
	}
	ticks := func(pid int, fields ...int) int64 {
		f, err := procStat(pid)
		if err != nil {
			p.ok = false
			return 0
		}
		var n int64
		for _, i := range fields {
			if i < len(f) {
				x, _ := strconv.ParseInt(f[i], 10, 64)
				n += x
			}
		}
		return n
	}
	// fields after the command: [0] state, [1] ppid, ..., [11] utime,
	// [12] stime, [13] cutime, [14] cstime
	t := ticks(p.backend, 11, 12) + ticks(p.postmstr, 13, 14)
	return time.Duration(t) * 10 * time.Millisecond
}

// procStat returns the fields of /proc/<pid>/stat after the command name.
func procStat(pid int) ([]string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	return strings.Fields(string(b[i+1:])), nil
}

func msOf(d time.Duration) float64 { return math.Round(float64(d)/float64(time.Microsecond)) / 1000 }

func newResult(name, stat string, ours, theirs []time.Duration, target, check string) benchResult {
	o, t := statsOf(ours), statsOf(theirs)
	r := benchResult{Query: name, Statistic: stat, EngineMs: msOf(o.median), PostgresMs: msOf(t.median),
		Speedup:     math.Round(100*float64(t.median)/float64(o.median)) / 100,
		EngineMinMs: msOf(o.min), EngineMaxMs: msOf(o.max), PgMinMs: msOf(t.min), PgMaxMs: msOf(t.max),
		Target: target, Check: check}
	for _, d := range ours {
		r.EngineAllMs = append(r.EngineAllMs, msOf(d))
	}
	for _, d := range theirs {
		r.PgAllMs = append(r.PgAllMs, msOf(d))
	}
	return r
}

// writeResults writes the report as the other bench suites do
// (cmd/pgproxy writeBenchFile): bench-results/<kind>-<time>.json unless
// -out names a file.
func writeResults(out string, started time.Time, rep *report) error {
	if out == "" {
		if err := os.MkdirAll("bench-results", 0o755); err != nil {
			return err
		}
		out = filepath.Join("bench-results", "exec-"+started.Format("20060102-150405")+".json")
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Printf("results written to %s\n", out)
	return nil
}
