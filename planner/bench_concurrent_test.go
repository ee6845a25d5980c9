package planner

import (
	"context"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/objstore"
)

// BenchmarkInsertConcurrent is the multi-client small-commit workload of
// `pgproxy bench --suite sql` (INSERT/s with N clients): PGGRAPH_BENCH_CLIENTS
// connections (default 16) each run 1-row autocommit INSERTs of distinct
// keys, b.N in all, over objstore.Local as `pgproxy serve` runs it
// (background compaction at 64 fragments, group commit). It reports
// inserts per second, the process's CPU per insert (client included),
// fsyncs per insert and the mean size of a group commit. With
// -cpuprofile/-mutexprofile/-blockprofile it is the profile of that
// workload (docs/architecture.md, "Group commit").
//
//	go test -run xxx -bench InsertConcurrent -benchtime 3000x ./planner/
func BenchmarkInsertConcurrent(b *testing.B) {
	clients := 16
	if v, err := strconv.Atoi(os.Getenv("PGGRAPH_BENCH_CLIENTS")); err == nil && v > 0 {
		clients = v
	}
	dir := b.TempDir()
	st, err := objstore.NewLocal(dir)
	if err != nil {
		b.Fatal(err)
	}
	g, err := adapters.Open(context.Background(), st, adapters.Options{Create: true, Actor: "bench", Location: dir, AutoOptimizeFragments: 64})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(g.Close)
	ts := startServerOn(b, g)
	ctx := context.Background()
	setup := ts.connectB(b)
	if _, err := setup.Exec(ctx, "create table t (id int8 primary key, v text not null)"); err != nil {
		b.Fatal(err)
	}
	conns := make([]*pgx.Conn, clients)
	for i := range conns {
		conns[i] = ts.connectB(b)
	}
	var next, left atomic.Int64
	left.Store(int64(b.N))
	gc0, gm0 := g.GroupStats()
	b.ReportAllocs()
	b.ResetTimer()
	t0 := time.Now()
	cpu0, f0 := processCPU(), st.Fsyncs()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				if _, err := c.Exec(ctx, "insert into t values ($1, 'x')", next.Add(1)); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	el := time.Since(t0)
	b.StopTimer()
	gc1, gm1 := g.GroupStats()
	b.ReportMetric(float64(b.N)/el.Seconds(), "inserts/s")
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(st.Fsyncs()-f0)/float64(b.N), "fsyncs/op")
	if gc1 > gc0 {
		b.ReportMetric(float64(gm1-gm0)/float64(gc1-gc0), "members/group")
	}
}
