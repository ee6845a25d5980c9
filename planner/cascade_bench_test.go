package planner

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/objstore"
)

// BenchmarkBulkDML is the sql bench suite's bulk part in process: a
// node table of PGGRAPH_BENCH_ROWS rows (default 200k) on a local store
// with rows/10 edges (ON DELETE CASCADE), then an UPDATE of 1% of the
// nodes and a DELETE of 1% cascading to their edges. It reports each
// statement's seconds and the peak Go heap while it ran (sampled), so
// memory proportional to the table (not to the rows changed) shows.
// H3_PROFILE=dir writes cpu/heap profiles of each statement there.
func BenchmarkBulkDML(b *testing.B) {
	rows := int64(200000)
	if v, err := strconv.ParseInt(os.Getenv("PGGRAPH_BENCH_ROWS"), 10, 64); err == nil && v > 0 {
		rows = v
	}
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		ctx := context.Background()
		st, err := objstore.NewLocal(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		g, err := adapters.Open(ctx, st, adapters.Options{Create: true, Actor: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		ts := startServerOn(b, g)
		c := ts.connectB(b)
		for _, s := range []string{
			"CREATE TABLE bench_nodes (id int8 PRIMARY KEY, name text NOT NULL, score float8, payload text)",
			"CREATE TABLE bench_edges (src int8 NOT NULL REFERENCES bench_nodes (id) ON DELETE CASCADE, dst int8 NOT NULL REFERENCES bench_nodes (id) ON DELETE CASCADE, weight float8) WITH (graph.kind = edge)",
			"CREATE INDEX bench_edges_src ON bench_edges (src)",
			"CREATE INDEX bench_edges_dst ON bench_edges (dst)",
		} {
			if _, err := c.Exec(ctx, s); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := c.PgConn().CopyFrom(ctx, &genRows{n: rows, row: func(buf []byte, i int64) []byte {
			return fmt.Appendf(buf, "%d\tname-%d\t1.5\tpayload-payload-payload-payload\n", i, i)
		}}, "COPY bench_nodes FROM STDIN"); err != nil {
			b.Fatal(err)
		}
		if _, err := c.PgConn().CopyFrom(ctx, &genRows{n: rows / 10, row: func(buf []byte, i int64) []byte {
			return fmt.Appendf(buf, "%d\t%d\t0.5\n", i, i+1)
		}}, "COPY bench_edges FROM STDIN"); err != nil {
			b.Fatal(err)
		}
		for _, stmt := range []struct{ name, sql, tag string }{
			{"update", "UPDATE bench_nodes SET score = score + 1 WHERE id % 100 = 0", fmt.Sprintf("UPDATE %d", rows/100)},
			{"delete", "DELETE FROM bench_nodes WHERE id % 100 = 1", fmt.Sprintf("DELETE %d", rows/100)},
		} {
			runtime.GC()
			base := heapNow()
			stop := profile(b, stmt.name)
			stopLive := liveProfile(b, stmt.name)
			peak := heapPeak()
			t0, c0 := time.Now(), cpuTime()
			b.StartTimer()
			tag, err := c.Exec(ctx, stmt.sql)
			b.StopTimer()
			el, cpu := time.Since(t0), cpuTime()-c0
			mb := peak()
			stopLive()
			stop()
			if err != nil {
				b.Fatal(err)
			}
			if tag.String() != stmt.tag {
				b.Fatalf("%s: tag %s, want %s", stmt.sql, tag, stmt.tag)
			}
			b.ReportMetric(el.Seconds(), stmt.name+"-s")
			b.ReportMetric(cpu.Seconds(), stmt.name+"-cpu-s")
			b.ReportMetric(mb-base, stmt.name+"-heapgrowth-MB")
		}
		var left int64
		if err := c.QueryRow(ctx, "SELECT count(*) FROM bench_edges").Scan(&left); err != nil {
			b.Fatal(err)
		}
		if want := rows/10 - 2*((rows/10)/100); left < want-2 || left > want+2 {
			b.Fatalf("edges left %d, want about %d", left, want)
		}
		g.Close()
	}
}

// cpuTime is the process's user+system CPU time (the machine is shared:
// CPU time compares runs better than wall time).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// heapNow is the live heap in MB.
func heapNow() float64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return float64(s[0].Value.Uint64()) / (1 << 20)
}

// heapPeak samples the live heap until the returned function is called,
// which answers the peak in MB.
func heapPeak() func() float64 {
	done := make(chan struct{})
	var wg sync.WaitGroup
	var peak uint64
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() float64 {
		close(done)
		wg.Wait()
		return float64(peak) / (1 << 20)
	}
}

func profile(b *testing.B, name string) func() {
	dir := os.Getenv("H3_PROFILE")
	if dir == "" {
		return func() {}
	}
	f, err := os.Create(dir + "/" + name + ".cpu")
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	runtime.MemProfileRate = 64 << 10
	writeAllocs(b, dir+"/"+name+".heap0")
	return func() {
		pprof.StopCPUProfile()
		f.Close()
		writeAllocs(b, dir+"/"+name+".heap")
	}
}

// liveProfile (H3_LIVEPROF=dir) collects every 100 ms while a
// statement runs and writes the in-use heap profile of the largest live
// heap seen: what the statement keeps, not what it churns.
func liveProfile(b *testing.B, name string) func() {
	dir := os.Getenv("H3_LIVEPROF")
	if dir == "" {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var best float64
		for {
			select {
			case <-done:
				b.Logf("%s: largest live heap %.1f MB", name, best)
				return
			case <-time.After(100 * time.Millisecond):
			}
			runtime.GC()
			if h := heapNow(); h > best {
				best = h
				writeProfile(b, "heap", dir+"/"+name+".live")
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// writeAllocs writes the allocation profile so far (diff two with
// pprof -base).
func writeAllocs(b *testing.B, path string) {
	h, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	_ = pprof.Lookup("allocs").WriteTo(h, 0)
}

func writeProfile(b *testing.B, kind, path string) {
	h, err := os.Create(path)
	if err != nil {
		b.Error(err)
		return
	}
	defer h.Close()
	_ = pprof.Lookup(kind).WriteTo(h, 0)
}

// genRows streams n generated COPY text rows.
type genRows struct {
	n, i int64
	row  func([]byte, int64) []byte
	buf  []byte
}

func (g *genRows) Read(p []byte) (int, error) {
	for len(g.buf) < len(p) && g.i < g.n {
		g.buf = g.row(g.buf, g.i)
		g.i++
	}
	if len(g.buf) == 0 {
		return 0, io.EOF
	}
	k := copy(p, g.buf)
	g.buf = g.buf[:copy(g.buf, g.buf[k:])]
	return k, nil
}
