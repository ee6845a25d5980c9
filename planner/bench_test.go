package planner

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/exec/lancesrc"
	"github.com/pggraph/pggraph/objstore"
)

// BenchmarkSelect1 is the trivial query through the planner and exec.
func BenchmarkSelect1(b *testing.B) {
	ts := startServer(b, nil)
	c := ts.connectB(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var one int
		if err := c.QueryRow(ctx, "select 1").Scan(&one); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInsertAutocommit is a 1-row INSERT, each its own graph
// commit, as pgproxy serve runs it (background compaction at 64
// fragments): over an in-memory store ("mem", the CPU of the commit
// path) and over objstore.Local ("local", real files and fsyncs).
func BenchmarkInsertAutocommit(b *testing.B) {
	open := func(b *testing.B, st objstore.Store, dir string) *testServer {
		g, err := adapters.Open(context.Background(), st, adapters.Options{Create: true, Actor: "bench", Location: dir, AutoOptimizeFragments: 64})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(g.Close)
		return startServerOn(b, g)
	}
	b.Run("mem", func(b *testing.B) {
		st := objstore.NewMem()
		benchInsertAutocommit(b, open(b, st, ""), st.Fsyncs)
	})
	b.Run("local", func(b *testing.B) {
		dir := b.TempDir()
		st, err := objstore.NewLocal(dir)
		if err != nil {
			b.Fatal(err)
		}
		benchInsertAutocommit(b, open(b, st, dir), st.Fsyncs)
	})
}

// benchInsertAutocommit reports, besides time and allocations, the
// process's CPU per commit (client included) and the store's fsyncs per
// commit (background materialization and compaction included).
func benchInsertAutocommit(b *testing.B, ts *testServer, fsyncs func() int64) {
	c := ts.connectB(b)
	ctx := context.Background()
	if _, err := c.Exec(ctx, "create table t (id int8 primary key, v text)"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, f0 := processCPU(), fsyncs()
	for i := 0; i < b.N; i++ {
		if _, err := c.Exec(ctx, "insert into t values ($1, 'x')", int64(i)); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(fsyncs()-f0)/float64(b.N), "fsyncs/op")
}

func (ts *testServer) connectB(b *testing.B) *pgx.Conn {
	c, err := pgx.Connect(context.Background(), ts.url("main"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// BenchmarkInsertLargeTable is a 1-row INSERT into a large table
// (PGGRAPH_BENCH_ROWS rows, default 300k): the primary-key probe looks
// the key up in the table version's key index. "shared" derives each
// new version's index from the previous one (exec/lancesrc's cache);
// "per-version" disables the cache, so every commit rescans the key
// column (the behaviour before the cache: a plain scan of the key
// column per INSERT). One warm-up INSERT builds the first index.
func BenchmarkInsertLargeTable(b *testing.B) {
	rows := 300000
	if v, err := strconv.Atoi(os.Getenv("PGGRAPH_BENCH_ROWS")); err == nil && v > 0 {
		rows = v
	}
	for _, mode := range []struct {
		name  string
		limit int64
	}{{"shared", lancesrc.DefaultIndexCacheBytes}, {"per-version", 0}} {
		b.Run(mode.name, func(b *testing.B) {
			lancesrc.SetIndexCacheLimit(mode.limit)
			defer lancesrc.SetIndexCacheLimit(lancesrc.DefaultIndexCacheBytes)
			ts := startServer(b, nil)
			c := ts.connectB(b)
			ctx := context.Background()
			if _, err := c.Exec(ctx, "create table t (id int8 primary key, v text)"); err != nil {
				b.Fatal(err)
			}
			var sb strings.Builder
			for i := 0; i < rows; i++ {
				fmt.Fprintf(&sb, "%d\tv\n", i)
			}
			if _, err := c.PgConn().CopyFrom(ctx, strings.NewReader(sb.String()), "COPY t FROM STDIN"); err != nil {
				b.Fatal(err)
			}
			if _, err := c.Exec(ctx, "insert into t values ($1, 'x')", int64(-1)); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := c.Exec(ctx, "insert into t values ($1, 'x')", int64(rows+1000000+i)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPointLookup is SELECT … WHERE pk = $1 in autocommit over a
// table of PGGRAPH_BENCH_ROWS rows (default 300k): the per-statement
// cost of a read (snapshot, catalog, key-index probe, wire), over an
// in-memory store ("mem") and over objstore.Local, real files as `pgproxy
// serve` reads them ("local").
func BenchmarkPointLookup(b *testing.B) {
	rows := 300000
	if v, err := strconv.Atoi(os.Getenv("PGGRAPH_BENCH_ROWS")); err == nil && v > 0 {
		rows = v
	}
	b.Run("mem", func(b *testing.B) { benchPointLookup(b, startServer(b, nil), rows) })
	b.Run("local", func(b *testing.B) {
		dir := b.TempDir()
		st, err := objstore.NewLocal(dir)
		if err != nil {
			b.Fatal(err)
		}
		g, err := adapters.Open(context.Background(), st, adapters.Options{Create: true, Actor: "bench", Location: dir})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(g.Close)
		benchPointLookup(b, startServerOn(b, g), rows)
	})
}

// createLookupTable makes t(id int8 primary key, v text) with rows rows
// (v = 'v<id>') in one COPY.
func createLookupTable(b *testing.B, c *pgx.Conn, rows int) {
	ctx := context.Background()
	if _, err := c.Exec(ctx, "create table t (id int8 primary key, v text)"); err != nil {
		b.Fatal(err)
	}
	var sb strings.Builder
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&sb, "%d\tv%d\n", i, i)
	}
	if _, err := c.PgConn().CopyFrom(ctx, strings.NewReader(sb.String()), "COPY t FROM STDIN"); err != nil {
		b.Fatal(err)
	}
}

func benchPointLookup(b *testing.B, ts *testServer, rows int) {
	c := ts.connectB(b)
	ctx := context.Background()
	createLookupTable(b, c, rows)
	var v string
	if err := c.QueryRow(ctx, "select v from t where id = $1", int64(7)).Scan(&v); err != nil || v != "v7" {
		b.Fatalf("warm-up lookup: %q %v", v, err)
	}
	b.ResetTimer()
	cpu0 := processCPU()
	for i := 0; i < b.N; i++ {
		id := int64(i*7919) % int64(rows)
		if err := c.QueryRow(ctx, "select v from t where id = $1", id).Scan(&v); err != nil {
			b.Fatal(err)
		}
		if want := "v" + strconv.FormatInt(id, 10); v != want {
			b.Fatalf("id %d: %q, want %q", id, v, want)
		}
	}
	b.StopTimer()
	// CPU time (client, server and GC alike: one process) depends much
	// less on the shared machine's load than wall time.
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

// processCPU is this process's user+system CPU time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
