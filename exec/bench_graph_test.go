package exec_test

import (
	"context"
	"math/rand"
	"syscall"
	"testing"
	"time"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/internal/graphbench"
)

// BenchmarkGraphWhole runs the graph benchmark's whole-graph queries
// (internal/graphbench) in process over memory tables of the same shape
// (100k persons, power-law in-degrees, about 5 edges each); cpu-ms/op is
// the process's CPU time per query, steadier than wall time on a shared
// machine.
func BenchmarkGraphWhole(b *testing.B) {
	const n = 100_000
	r := rand.New(rand.NewSource(1))
	persons := make([][]any, n)
	for i := range persons {
		persons[i] = []any{int64(i + 1), "person", int64(18 + r.Intn(60))}
	}
	perm := r.Perm(n)
	z := rand.NewZipf(r, 1.2, 4, uint64(n-1))
	var knows [][]any
	for src := 1; src <= n; src++ {
		for d := 1 + r.Intn(9); d > 0; d-- {
			knows = append(knows, []any{int64(src), int64(perm[z.Uint64()] + 1), int64(2000 + r.Intn(25)), int64(r.Intn(1000))})
		}
	}
	cat := exec.NewMemCatalog()
	pt, err := exec.NewMemTable([]exec.ColumnDef{{Name: "id", Type: exec.TInt8}, {Name: "name", Type: exec.TText}, {Name: "age", Type: exec.TInt4}}, persons)
	if err != nil {
		b.Fatal(err)
	}
	pt.Keys = []int{0}
	cat.Add(&exec.TableDef{Name: "person", Columns: pt.Cols, Source: pt, PrimaryKey: []int{0}})
	kt, err := exec.NewMemTable([]exec.ColumnDef{{Name: "src", Type: exec.TInt8}, {Name: "dst", Type: exec.TInt8}, {Name: "since", Type: exec.TInt4}, {Name: "w", Type: exec.TInt4}}, knows)
	if err != nil {
		b.Fatal(err)
	}
	cat.Add(&exec.TableDef{Name: "knows", Columns: kt.Cols, Source: kt})
	eng := &exec.Engine{Catalog: cat}
	// the server's default work_mem (cmd/pgproxy), not the engine's
	sess := &exec.Session{Setting: func(name string) (string, bool) {
		if name == "work_mem" {
			return "64MB", true
		}
		return "", false
	}}
	for _, q := range graphbench.Queries {
		if !q.WholeGraph {
			continue
		}
		b.Run(q.Name, func(b *testing.B) {
			c0 := cpuTime()
			for i := 0; i < b.N; i++ {
				if _, err := eng.Query(context.Background(), sess, q.SQL); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-c0)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}

// cpuTime is the user+system CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
