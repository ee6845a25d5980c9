package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/exec"
)

const lookupSQL = "SELECT v FROM big WHERE id = $1"

type lookupConfig struct {
	rows, runs, lookups int
	dataDir, cpuProfile string
	memProfile          string
	// pgproxyBin, when set, serves the lookups from `pgproxyBin serve`
	// in a child process instead of a server in this process.
	pgproxyBin string
	// pgConn and pgCPU reach the same PostgreSQL for the pgbench rounds
	pgConn string
	pgCPU  *pgCPU
}

// servedLoad describes pgproxy's copy of the big table.
type servedLoad struct {
	// CopySeconds is the wall time of COPY big FROM STDIN over the wire
	// (rows parsed, written as Lance files, committed, fsynced).
	CopySeconds float64 `json:"copy_seconds"`
	RowsPerSec  float64 `json:"rows_per_second"`
	DataBytes   int64   `json:"data_directory_bytes"`
	DataDir     string  `json:"data_directory"`
	// StorePerLookup is what one served lookup asked of the data
	// directory (objstore operations, averaged over the timed lookups).
	StorePerLookup string `json:"store_operations_per_lookup,omitempty"`
	// Served says where pgproxy ran (this process or a child process).
	Served string `json:"served"`
}

// percentile is the q-quantile (nearest rank) of d.
func percentile(d []time.Duration, q float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

// runLookups times the point lookup served by pgproxy against
// PostgreSQL's (both over local TCP with pgx's prepared statements), and
// the in-process engine as an informational row.
func runLookups(ctx context.Context, c lookupConfig, eng *exec.Engine, pg *pgx.Conn, rep *report) error {
	where := "in this process"
	if c.pgproxyBin != "" {
		where = "as a child process: " + c.pgproxyBin + " serve"
	}
	fmt.Printf("\nstarting pgproxy %s (planner + wire over a data directory of real files) and loading %d rows by COPY...\n", where, c.rows)
	px, err := startTarget(ctx, c.pgproxyBin, c.dataDir)
	if err != nil {
		return fmt.Errorf("starting pgproxy: %w", err)
	}
	defer px.stop()
	pc, err := pgx.Connect(ctx, px.connString())
	if err != nil {
		return fmt.Errorf("connecting to pgproxy: %w", err)
	}
	defer pc.Close(context.Background())
	took, err := loadServed(ctx, pc, c.rows)
	if err != nil {
		return fmt.Errorf("loading pgproxy: %w", err)
	}
	rep.ServedLoad = &servedLoad{CopySeconds: took.Seconds(), RowsPerSec: float64(c.rows) / took.Seconds(),
		DataBytes: dirBytes(px.dir()), DataDir: px.dir(), Served: where}
	fmt.Printf("pgproxy load: %d rows by COPY in %.2f s (%.0f rows/s), data directory %.1f MB\n",
		c.rows, took.Seconds(), rep.ServedLoad.RowsPerSec, float64(rep.ServedLoad.DataBytes)/1e6)

	p, err := eng.Prepare(lookupSQL, nil)
	if err != nil {
		return err
	}
	check := "ok"
	mismatch := func(id int64, what string, got, want float64) {
		if check == "ok" {
			check = fmt.Sprintf("MISMATCH id %d: %s %v, postgres %v", id, what, got, want)
		}
	}
	// the first lookups build the key indexes (in process and in pgproxy)
	for _, id := range []int64{1, int64(c.rows), int64(c.rows/2 + 1)} {
		var want, got float64
		if err := pg.QueryRow(ctx, lookupSQL, id).Scan(&want); err != nil {
			return err
		}
		if err := pc.QueryRow(ctx, lookupSQL, id).Scan(&got); err != nil {
			return fmt.Errorf("pgproxy lookup: %w", err)
		}
		if got != want {
			mismatch(id, "pgproxy", got, want)
		}
		r, err := p.Execute(ctx, nil, []any{id})
		if err != nil {
			return err
		}
		if txt, _ := r.Text(0, 0); txt != strconv.FormatFloat(want, 'g', -1, 64) {
			check = fmt.Sprintf("MISMATCH id %d: engine %s, postgres %v", id, txt, want)
		}
	}
	if c.cpuProfile != "" {
		f, err := os.Create(c.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	ops0, counted := px.ops()
	var served, inproc, theirs, servedP99, inprocP99, theirsP99 []time.Duration
	for round := 0; round < c.runs; round++ {
		s, e, t := make([]time.Duration, 0, c.lookups), make([]time.Duration, 0, c.lookups), make([]time.Duration, 0, c.lookups)
		for i := 0; i < c.lookups; i++ {
			id := int64(rand.IntN(c.rows) + 1)
			var got, want float64
			timePG := func() error {
				t0 := time.Now()
				err := pg.QueryRow(ctx, lookupSQL, id).Scan(&want)
				t = append(t, time.Since(t0))
				return err
			}
			timeServed := func() error {
				t0 := time.Now()
				err := pc.QueryRow(ctx, lookupSQL, id).Scan(&got)
				s = append(s, time.Since(t0))
				if err != nil {
					return fmt.Errorf("pgproxy lookup of id %d: %w", id, err)
				}
				return nil
			}
			// alternate which side goes first so neither always follows the other
			first, second := timeServed, timePG
			if i%2 == 1 {
				first, second = timePG, timeServed
			}
			if err := first(); err != nil {
				return err
			}
			if err := second(); err != nil {
				return err
			}
			if got != want {
				mismatch(id, "pgproxy", got, want)
			}
			t0 := time.Now()
			if _, err := p.Execute(ctx, nil, []any{id}); err != nil {
				return err
			}
			e = append(e, time.Since(t0))
		}
		served, inproc, theirs = append(served, percentile(s, 0.5)), append(inproc, percentile(e, 0.5)), append(theirs, percentile(t, 0.5))
		servedP99, inprocP99, theirsP99 = append(servedP99, percentile(s, 0.99)), append(inprocP99, percentile(e, 0.99)), append(theirsP99, percentile(t, 0.99))
	}
	ops1, _ := px.ops()
	ops := ops1.minus(ops0)
	if check == "ok" {
		check = fmt.Sprintf("ok (%d lookups equal)", 3+c.runs*c.lookups)
	}
	if c.memProfile != "" {
		if err := writeHeapProfile(c.memProfile); err != nil {
			return err
		}
	}
	fmt.Printf("\n%d rows, %d rounds of %d lookups (random ids; pgproxy and postgres interleaved per lookup)\n", c.rows, c.runs, c.lookups)
	printHeader()
	res := newResult("point lookup by pk", "p50 latency per round of lookups", served, theirs, "p50 <= 2x postgres", check)
	res.Pass = res.EngineMs <= 2*res.PostgresMs
	res.OursP99Ms, res.PgP99Ms = msOf(statsOf(servedP99).median), msOf(statsOf(theirsP99).median)
	res.Note = "pgproxy served " + where + " over a data directory of real files, and postgres, both over local TCP by pgx (prepared, extended protocol): each p50 includes one client round trip"
	rep.Results = append(rep.Results, res)
	printResult(res)
	info := newResult("  in-process engine", "p50 latency per round of lookups", inproc, theirs, "", "same ids, in-memory table")
	info.OursP99Ms, info.PgP99Ms = msOf(statsOf(inprocP99).median), res.PgP99Ms
	info.Note = "exec.Engine over an in-memory table in this process (no storage, wire or round trip); informational"
	rep.Results = append(rep.Results, info)
	printResult(info)
	fmt.Printf("%-24s pgproxy p50 / postgres p50 = %.2f (target <= 2)\n", "", res.EngineMs/res.PostgresMs)
	fmt.Printf("%-24s p99 (median of rounds): pgproxy %.3g ms, in-process %.3g ms, postgres %.3g ms\n", "", res.OursP99Ms, info.OursP99Ms, res.PgP99Ms)
	if counted {
		rep.ServedLoad.StorePerLookup = ops.perOp(c.runs * c.lookups)
		fmt.Printf("%-24s pgproxy data-directory operations per lookup: %s\n", "", rep.ServedLoad.StorePerLookup)
	}
	if c.pgConn != "" {
		proxyCPU := processCPU // the server runs in this process
		if px.child != nil {
			pid := px.child.cmd.Process.Pid
			proxyCPU = func() time.Duration { return procCPU(pid) }
		}
		pgCPUFn := func() time.Duration { return 0 }
		if c.pgCPU != nil && c.pgCPU.ok {
			pgCPUFn = c.pgCPU.used
		}
		fmt.Printf("\nthe same lookup through pgbench (PostgreSQL's C client), %d rounds of %d per side and mode\n", c.runs, c.lookups)
		printHeader()
		if err := runPgbench(c.rows, c.runs, c.lookups, &pgbenchTarget{name: "pgproxy", conn: px.connString(), cpu: proxyCPU},
			&pgbenchTarget{name: "postgres", conn: c.pgConn, cpu: pgCPUFn}, rep); err != nil {
			return err
		}
	}
	return nil
}

// procCPU is a process's user+system CPU time (0 when unreadable).
func procCPU(pid int) time.Duration {
	f, err := procStat(pid)
	if err != nil || len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * 10 * time.Millisecond
}

// writeHeapProfile writes the live heap (after a GC) to path.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
