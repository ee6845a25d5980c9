package main

import (
	"context"
	"fmt"
	"time"

	"github.com/pggraph/pggraph/lance"
)

// lanceBenchRows is the table size of the lance suite (issue target: 10M
// rows, 6 columns). Override with PGGRAPH_BENCH_LANCE_ROWS for a quick run.
const lanceBenchRows = 10_000_000

// lanceBenchReport wraps the runs of one suite invocation.
type lanceBenchReport struct {
	Kind      string                    `json:"kind"`
	StartedAt time.Time                 `json:"started_at"`
	Runs      []*lance.ThroughputReport `json:"runs"`
}

func init() {
	benchSuites = append(benchSuites, benchSuite{
		name:  "lance",
		about: "Lance data-file write throughput vs raw write+fsync of the same bytes, and full-scan decode throughput",
		run:   runLanceBench,
	})
}

func runLanceBench(ctx context.Context, env *runEnv, c benchConfig) error {
	rows := int64(lanceBenchRows)
	if v, ok := env.getenv("PGGRAPH_BENCH_LANCE_ROWS"); ok {
		if _, err := fmt.Sscan(v, &rows); err != nil || rows < 1 {
			return usagef("PGGRAPH_BENCH_LANCE_ROWS=%q is not a positive row count", v)
		}
	}
	rep := lanceBenchReport{Kind: "lance-throughput", StartedAt: time.Now().UTC()}
	for r := range c.round {
		fmt.Fprintf(env.stderr, "\rbench lance: round %d/%d, writing and scanning %d rows", r+1, c.round, rows)
		t, err := lance.MeasureThroughput(ctx, c.dir, rows, 0)
		if err != nil {
			return err
		}
		rep.Runs = append(rep.Runs, t)
	}
	fmt.Fprintln(env.stderr)
	fmt.Fprintf(env.stdout, "lance throughput: %d rows x %d columns per round, %d rounds, dir %s\n", rows, rep.Runs[0].Columns, c.round, c.dir)
	fmt.Fprintf(env.stdout, "%-6s %12s %10s %10s %10s %12s %10s %12s\n", "round", "write rows/s", "write MB/s", "raw MB/s", "write/raw", "scan MB/s", "scan/1GB/s", "peak heap MB")
	for i, t := range rep.Runs {
		fmt.Fprintf(env.stdout, "%-6d %12.0f %10.1f %10.1f %9.2fx %12.1f %9.2fx %12.1f\n", i+1, t.WriteRowsPerSec, t.WriteMBPerSec,
			t.RawMBPerSec, t.WriteVsRaw, t.ScanMBPerSec, t.ScanMBPerSec/1000, float64(t.PeakHeapBytes)/(1<<20))
	}
	return writeBenchFile(env, c.out, rep.Kind, rep.StartedAt, rep)
}
