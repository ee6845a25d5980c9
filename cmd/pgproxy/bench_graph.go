package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/objstore"
)

// The graph write path benchmark: `pgproxy bench-graph` (make bench).
var benchGraphCmd = &command{
	name:     "bench-graph",
	synopsis: "pgproxy bench-graph [--data DIR] [--iterations N] [--history N] [--bulk-rows N] [--auto-optimize N] [--out FILE]",
	about:    "measure graph commits: latency, durable ops/fsyncs/rounds per commit vs the physical floor, history flatness, bulk insert",
}

func init() {
	commands = append(commands, benchGraphCmd)
	benchGraphCmd.run = func(ctx context.Context, env *runEnv, args []string) error {
		fs := flag.NewFlagSet("bench-graph", flag.ContinueOnError)
		var c graphBenchConfig
		fs.StringVar(&c.dir, "data", ".", "directory to measure in (a scratch subdirectory is created and removed)")
		fs.StringVar(&c.out, "out", "", "results file (JSON); default bench-results/graph-<time>.json")
		fs.IntVar(&c.iterations, "iterations", 200, "commits per latency sample set")
		fs.IntVar(&c.history, "history", 10000, "prior commits before the second history sample")
		fs.IntVar(&c.bulkRows, "bulk-rows", 1000000, "rows of the bulk insert (one commit)")
		fs.IntVar(&c.autoOptimize, "auto-optimize", 64, "history run: compact a table in the background once a commit leaves it with this many fragments (0 = never)")
		lf := addLogFlags(fs)
		if err := parseCommand(benchGraphCmd, fs, args, env); err != nil {
			return err
		}
		_ = lf.newLogger(env.stderr)
		if c.iterations < 10 || c.history < 10 || c.bulkRows < 1 {
			return usagef("need --iterations >= 10, --history >= 10, --bulk-rows >= 1")
		}
		return runGraphBench(ctx, env, c)
	}
}

type graphBenchConfig struct {
	dir, out                      string
	iterations, history, bulkRows int
	autoOptimize                  int
}

type latencyResult struct {
	Name    string  `json:"name"`
	Samples int     `json:"samples"`
	P50ms   float64 `json:"p50_ms"`
	P99ms   float64 `json:"p99_ms"`
	// OpsPerCommit and BytesReadPerCommit (history samples): storage
	// operations are O(1) in history; bytes grow with the table's
	// fragment count (uncompacted data, not history).
	OpsPerCommit       float64 `json:"ops_per_commit,omitempty"`
	BytesReadPerCommit float64 `json:"bytes_read_per_commit,omitempty"`
	// TableFragments is the written table's fragment count (one per
	// 1-row commit until compaction): what makes bytes per commit grow.
	TableFragments int `json:"table_fragments,omitempty"`
	// OptimizeRuns: background compactions started so far (history run).
	OptimizeRuns int64 `json:"optimize_runs,omitempty"`
}

type costResult struct {
	Name         string  `json:"name"`
	DurableOps   float64 `json:"durable_ops_per_commit"`
	Fsyncs       float64 `json:"fsyncs_per_commit"`
	Rounds       float64 `json:"storage_rounds_per_commit"`
	AllOps       float64 `json:"all_ops_per_commit"`
	CommitP50ms  float64 `json:"commit_p50_ms"`
	FloorP50ms   float64 `json:"floor_p50_ms"`
	VsFloor      float64 `json:"commit_vs_floor"`
	FloorAbout   string  `json:"floor_about"`
	DurableBytes float64 `json:"durable_bytes_per_commit"`
}

type graphBenchReport struct {
	Kind      string          `json:"kind"`
	StartedAt time.Time       `json:"started_at"`
	Latency   []latencyResult `json:"latency"`
	Cost      []costResult    `json:"cost"`
	History   []latencyResult `json:"history"`
	Bulk      struct {
		Rows       int     `json:"rows"`
		Seconds    float64 `json:"seconds"`
		RowsPerSec float64 `json:"rows_per_sec"`
		PeakHeapMB float64 `json:"peak_heap_mb"`
	} `json:"bulk"`
}

var benchIDSchema = arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "v", Type: arrow.BinaryTypes.String}}, nil)

func oneRow(id int64) adapters.Source {
	return func(ctx context.Context) (array.RecordReader, error) {
		b := array.NewRecordBuilder(memory.DefaultAllocator, benchIDSchema)
		defer b.Release()
		b.Field(0).(*array.Int64Builder).Append(id)
		b.Field(1).(*array.StringBuilder).Append("row")
		r := b.NewRecordBatch()
		defer r.Release()
		return array.NewRecordReader(benchIDSchema, []arrow.RecordBatch{r})
	}
}

// opRecorder remembers the write operations of a commit, for the floor.
type opRecorder struct {
	objstore.Store
	mu  sync.Mutex
	on  bool
	ops []recordedOp
}

type recordedOp struct {
	kind string
	size int
}

func (r *opRecorder) rec(kind string, n int) {
	r.mu.Lock()
	if r.on {
		r.ops = append(r.ops, recordedOp{kind, n})
	}
	r.mu.Unlock()
}
func (r *opRecorder) Put(ctx context.Context, k string, b []byte) error {
	r.rec("put", len(b))
	return r.Store.Put(ctx, k, b)
}
func (r *opRecorder) PutIfAbsent(ctx context.Context, k string, b []byte) error {
	r.rec("put", len(b))
	return r.Store.PutIfAbsent(ctx, k, b)
}
func (r *opRecorder) Delete(ctx context.Context, k string) error {
	r.rec("delete", 0)
	return r.Store.Delete(ctx, k)
}

func benchGraph(ctx context.Context, store objstore.Store, tables, autoOptimize int) (*adapters.Graph, []string, error) {
	g, err := adapters.Open(ctx, store, adapters.Options{Create: true, Actor: "bench", AutoOptimizeFragments: autoOptimize})
	if err != nil {
		return nil, nil, err
	}
	var names []string
	_, err = g.Write(ctx, adapters.WriteOptions{}, func(ctx context.Context, s *adapters.Stage) error {
		for i := 0; i < tables; i++ {
			n := fmt.Sprintf("t%d", i)
			names = append(names, n)
			if err := s.CreateTable(adapters.TableSpec{Name: n, Kind: graph.NodeTable, Columns: []graph.ColumnSpec{
				{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "v", Type: arrow.BinaryTypes.String}}}); err != nil {
				return err
			}
		}
		return nil
	})
	return g, names, err
}

func commitRows(ctx context.Context, g *adapters.Graph, names []string, id int64) error {
	_, err := g.Write(ctx, adapters.WriteOptions{}, func(ctx context.Context, s *adapters.Stage) error {
		for _, n := range names {
			if err := s.Insert(n, oneRow(id)); err != nil {
				return err
			}
		}
		return nil
	})
	return err
}

func runGraphBench(ctx context.Context, env *runEnv, c graphBenchConfig) error {
	if err := objstore.CheckDir(c.dir); err != nil {
		return err
	}
	scratch, err := os.MkdirTemp(c.dir, ".pgproxy-bench-graph-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	rep := graphBenchReport{Kind: "graph", StartedAt: time.Now().UTC()}
	n := 0
	newStore := func() (*objstore.Local, string, error) {
		n++
		d := filepath.Join(scratch, fmt.Sprintf("g%d", n))
		if err := os.Mkdir(d, 0o755); err != nil {
			return nil, "", err
		}
		s, err := objstore.NewLocal(d)
		return s, d, err
	}
	// 1 + 2: latency and cost for one and three tables, with the floor
	for _, tables := range []int{1, 3} {
		local, _, err := newStore()
		if err != nil {
			return err
		}
		counting := objstore.NewCounting(local)
		rec := &opRecorder{Store: counting}
		g, names, err := benchGraph(ctx, rec, tables, 0)
		if err != nil {
			return err
		}
		var lat []time.Duration
		var ops, fsyncs, rounds, all, bytes int64
		for i := 0; i < c.iterations; i++ {
			counting.Reset()
			rec.mu.Lock()
			rec.on = i == 0 // record the first commit's sequence for the floor
			rec.mu.Unlock()
			t0 := time.Now()
			if err := commitRows(ctx, g, names, int64(i)); err != nil {
				return err
			}
			lat = append(lat, time.Since(t0))
			st := counting.Stats()
			for op, k := range st.Ops {
				all += k
				if op.IsWrite() {
					ops += k
				}
			}
			fsyncs += st.Fsyncs
			rounds += st.Rounds
			bytes += st.BytesWritten
		}
		g.Close()
		rec.mu.Lock()
		seq := append([]recordedOp(nil), rec.ops...)
		rec.mu.Unlock()
		floor, err := measureFloor(scratch, seq, c.iterations)
		if err != nil {
			return err
		}
		name := fmt.Sprintf("1-row insert, %d table(s)", tables)
		it := float64(c.iterations)
		p50 := ms(percentile(lat, 0.5))
		rep.Latency = append(rep.Latency, latencyResult{Name: name, Samples: len(lat), P50ms: p50, P99ms: ms(percentile(lat, 0.99))})
		fp := ms(percentile(floor, 0.5))
		cr := costResult{Name: name, DurableOps: float64(ops) / it, Fsyncs: float64(fsyncs) / it, Rounds: float64(rounds) / it,
			AllOps: float64(all) / it, DurableBytes: float64(bytes) / it, CommitP50ms: p50, FloorP50ms: fp,
			FloorAbout: fmt.Sprintf("the commit's %d durable ops replayed as raw tmp+fsync+rename+fsync(dir) / unlink+fsync(dir), sequentially", len(seq))}
		if fp > 0 {
			cr.VsFloor = round3(p50 / fp)
		}
		rep.Cost = append(rep.Cost, cr)
	}
	// 3: history flatness: latency after 10 and after --history commits
	{
		local, _, err := newStore()
		if err != nil {
			return err
		}
		counting := objstore.NewCounting(local)
		g, names, err := benchGraph(ctx, counting, 1, c.autoOptimize)
		if err != nil {
			return err
		}
		sample := func(label string, base int) error {
			var lat []time.Duration
			counting.Reset()
			for i := 0; i < 50; i++ {
				t0 := time.Now()
				if err := commitRows(ctx, g, names, int64(base+i)); err != nil {
					return err
				}
				lat = append(lat, time.Since(t0))
			}
			st := counting.Stats()
			var all int64
			for _, k := range st.Ops {
				all += k
			}
			frags := 0
			if sn, err := g.Head(ctx, ""); err == nil {
				if ds, _, err := g.Table(ctx, sn, names[0]); err == nil {
					frags = len(ds.Fragments())
				}
			}
			rep.History = append(rep.History, latencyResult{Name: label, Samples: len(lat), P50ms: ms(percentile(lat, 0.5)), P99ms: ms(percentile(lat, 0.99)),
				OpsPerCommit: round3(float64(all) / 50), BytesReadPerCommit: round3(float64(st.BytesRead) / 50), TableFragments: frags})
			rep.History[len(rep.History)-1].OptimizeRuns, _ = g.AutoOptimizeStats()
			return nil
		}
		for i := 0; i < 10; i++ {
			if err := commitRows(ctx, g, names, int64(-i-1)); err != nil {
				return err
			}
		}
		if err := sample("after 10 commits", 1_000_000); err != nil {
			return err
		}
		for i := 60; i < c.history; i++ {
			if err := commitRows(ctx, g, names, int64(2_000_000+i)); err != nil {
				return err
			}
		}
		if err := sample(fmt.Sprintf("after %d commits", c.history), 3_000_000); err != nil {
			return err
		}
		g.Close()
	}
	// 4: bulk insert in one commit, streamed
	{
		local, _, err := newStore()
		if err != nil {
			return err
		}
		g, names, err := benchGraph(ctx, local, 1, 0)
		if err != nil {
			return err
		}
		var peak atomic.Uint64
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			var m runtime.MemStats
			for {
				runtime.ReadMemStats(&m)
				if m.HeapAlloc > peak.Load() {
					peak.Store(m.HeapAlloc)
				}
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		}()
		t0 := time.Now()
		_, err = g.Write(ctx, adapters.WriteOptions{}, func(ctx context.Context, s *adapters.Stage) error {
			return s.Insert(names[0], generatedRows(c.bulkRows))
		})
		el := time.Since(t0)
		close(stop)
		wg.Wait()
		g.Close()
		if err != nil {
			return err
		}
		rep.Bulk.Rows, rep.Bulk.Seconds = c.bulkRows, round3(el.Seconds())
		rep.Bulk.RowsPerSec = round3(float64(c.bulkRows) / el.Seconds())
		rep.Bulk.PeakHeapMB = round3(float64(peak.Load()) / (1 << 20))
	}
	w := env.stdout
	fmt.Fprintf(w, "%-32s %9s %9s %8s %12s %10s\n", "commit latency", "p50 ms", "p99 ms", "ops", "bytes read", "fragments")
	for _, l := range append(append([]latencyResult(nil), rep.Latency...), rep.History...) {
		fmt.Fprintf(w, "%-32s %9.3f %9.3f %8.1f %12.0f %10d\n", l.Name, l.P50ms, l.P99ms, l.OpsPerCommit, l.BytesReadPerCommit, l.TableFragments)
	}
	fmt.Fprintf(w, "%-32s %8s %8s %8s %8s %10s %10s\n", "cost per commit", "durable", "fsyncs", "rounds", "all ops", "floor ms", "x floor")
	for _, c := range rep.Cost {
		fmt.Fprintf(w, "%-32s %8.1f %8.1f %8.1f %8.1f %10.3f %10.2f\n", c.Name, c.DurableOps, c.Fsyncs, c.Rounds, c.AllOps, c.FloorP50ms, c.VsFloor)
	}
	fmt.Fprintf(w, "bulk insert: %d rows in one commit, %.1f s, %.0f rows/s, peak heap %.1f MiB\n",
		rep.Bulk.Rows, rep.Bulk.Seconds, rep.Bulk.RowsPerSec, rep.Bulk.PeakHeapMB)
	return writeBenchFile(env, c.out, "graph", rep.StartedAt, rep)
}

// measureFloor replays a commit's durable operations as raw filesystem
// calls, iterations times.
func measureFloor(scratch string, seq []recordedOp, iterations int) ([]time.Duration, error) {
	dir := filepath.Join(scratch, "floor")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var out []time.Duration
	for i := 0; i < iterations; i++ {
		path := func(j int) string { return filepath.Join(dir, fmt.Sprintf("%d-%d", i, j)) }
		for j, op := range seq { // what a delete removes exists beforehand (untimed)
			if op.kind == "delete" {
				if err := rawWriteFsync(path(j), nil); err != nil {
					return nil, err
				}
			}
		}
		t0 := time.Now()
		for j, op := range seq {
			switch op.kind {
			case "put":
				if err := rawPublish(path(j), make([]byte, op.size)); err != nil {
					return nil, err
				}
			case "delete":
				if err := os.Remove(path(j)); err != nil {
					return nil, err
				}
				if err := syncDir(dir); err != nil {
					return nil, err
				}
			}
		}
		out = append(out, time.Since(t0))
	}
	return out, nil
}

// generatedRows streams n rows in 64k-row batches, built lazily.
func generatedRows(n int) adapters.Source {
	return func(ctx context.Context) (array.RecordReader, error) {
		return &genReader{n: n}, nil
	}
}

type genReader struct {
	refs atomic.Int64
	n    int
	done int
	cur  arrow.RecordBatch
}

func (g *genReader) Retain()               { g.refs.Add(1) }
func (g *genReader) Release()              {}
func (g *genReader) Schema() *arrow.Schema { return benchIDSchema }
func (g *genReader) Err() error            { return nil }
func (g *genReader) Next() bool {
	if g.cur != nil {
		g.cur.Release()
		g.cur = nil
	}
	if g.done >= g.n {
		return false
	}
	k := min(65536, g.n-g.done)
	b := array.NewRecordBuilder(memory.DefaultAllocator, benchIDSchema)
	defer b.Release()
	ib := b.Field(0).(*array.Int64Builder)
	sb := b.Field(1).(*array.StringBuilder)
	for i := 0; i < k; i++ {
		ib.Append(int64(g.done + i))
		sb.Append("bulk-row-payload")
	}
	g.done += k
	g.cur = b.NewRecordBatch()
	return true
}
func (g *genReader) RecordBatch() arrow.RecordBatch { return g.cur }
func (g *genReader) Record() arrow.RecordBatch      { return g.cur }
