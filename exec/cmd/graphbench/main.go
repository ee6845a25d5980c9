// Command graphbench is the graph traversal benchmark of `make bench`
// (internal/graphbench): a generated power-law social graph loaded into
// pgproxy and a throwaway PostgreSQL 15 with the same indexes, every
// query's answers compared, medians, p95 and the ratio printed and
// written to bench-results/graph-<time>.json.
//
//	go run ./exec/cmd/graphbench [-persons 100000] [-rounds 15] [-pgproxy BIN] [-data-dir DIR] [-out FILE] [-only REGEXP] [-cpuprofile FILE] [-explain]
//
// PGGRAPH_BENCH_GRAPH_PERSONS sets the default of -persons (about 5
// edges per person). With -pgproxy BIN the server is `BIN serve` in a
// child process (the deployed shape), else a server in this process.
// -only runs the queries whose name matches a regular expression;
// -cpuprofile writes a CPU profile of the timed rounds (an in-process
// server's work included); -explain prints both sides' EXPLAIN ANALYZE
// of each selected query (first start node) before the timed rounds.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/pprof"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pggraph/pggraph/internal/graphbench"
	"github.com/pggraph/pggraph/internal/pgtest"
)

func main() {
	def := 100_000
	if v, err := strconv.Atoi(os.Getenv("PGGRAPH_BENCH_GRAPH_PERSONS")); err == nil && v > 0 {
		def = v
	}
	persons := flag.Int("persons", def, "persons in the graph (about 5 knows edges each)")
	rounds := flag.Int("rounds", 15, "timed rounds per query (each from another start node)")
	bin := flag.String("pgproxy", "", "serve from this pgproxy binary's `serve` in a child process (default: a server in this process)")
	dataDir := flag.String("data-dir", "", "parent of pgproxy's scratch data directory (default: the system temp directory)")
	out := flag.String("out", "", "results file (default bench-results/graph-<time>.json)")
	only := flag.String("only", "", "run only the queries whose name matches this regular expression")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the query rounds to this file")
	explain := flag.Bool("explain", false, "print EXPLAIN ANALYZE of each selected query on both sides first")
	flag.Parse()
	if *persons < 100 || *rounds < 3 {
		fail("need -persons >= 100 and -rounds >= 3")
	}
	ctx := context.Background()
	started := time.Now().UTC()
	g := graphbench.Generate(*persons, 1)
	fmt.Printf("graph: %d persons, %d knows edges\n", g.Persons, g.Edges)
	pg, err := pgtest.StartWith(ctx, pgtest.Options{SharedBuffers: "1GB"})
	if err != nil {
		fail(err)
	}
	defer pg.Stop()
	pc, err := pg.Connect(ctx)
	if err != nil {
		fail(err)
	}
	defer pc.Close(ctx)
	px, err := graphbench.StartProxy(ctx, *bin, *dataDir)
	if err != nil {
		fail(err)
	}
	defer px.Stop()
	xc, err := pgx.Connect(ctx, px.ConnString())
	if err != nil {
		fail(err)
	}
	defer xc.Close(ctx)
	c := graphbench.Config{Persons: *persons, Seed: 1, Rounds: *rounds, Proxy: xc, Postgres: pc, Log: os.Stdout}
	t0 := time.Now()
	if err := graphbench.Load(ctx, c, g); err != nil {
		fail(err)
	}
	fmt.Printf("loaded both sides in %.1f s; %d rounds per query, sides interleaved\n\n%s\n", time.Since(t0).Seconds(), *rounds, graphbench.Header())
	if *only != "" {
		re, err := regexp.Compile(*only)
		if err != nil {
			fail(err)
		}
		c.Only = re.MatchString
	}
	if *explain {
		if err := graphbench.Explain(ctx, c, os.Stdout); err != nil {
			fail(err)
		}
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fail(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fail(err)
		}
	}
	res, err := graphbench.Run(ctx, c)
	if *cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	if err != nil {
		fail(err)
	}
	fmt.Printf("\nratio = postgres median / pgproxy median (above 1: pgproxy faster); load average %s\n", loadAvg())
	rep := map[string]any{"kind": "graph-vs-postgres", "started_at": started, "persons": g.Persons, "edges": g.Edges,
		"rounds": *rounds, "gomaxprocs": runtime.GOMAXPROCS(0), "results": res}
	if *out == "" {
		if err := os.MkdirAll("bench-results", 0o755); err != nil {
			fail(err)
		}
		*out = filepath.Join("bench-results", "graph-"+started.Format("20060102-150405")+".json")
	}
	b, _ := json.MarshalIndent(rep, "", "  ")
	if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
		fail(err)
	}
	fmt.Printf("results written to %s\n", *out)
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return string(b[:len(b)-1])
}

func fail(args ...any) {
	fmt.Fprintln(os.Stderr, append([]any{"graphbench:"}, args...)...)
	os.Exit(1)
}
