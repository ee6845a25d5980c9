package lance

import (
	"context"
	"io"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/pggraph/pggraph/objstore"
)

// benchRows is the table size of the dataset benchmarks
// (LANCE_BENCH_ROWS overrides; the figure is 10M rows).
func benchRows(b *testing.B) int64 {
	rows := int64(1 << 20)
	if s := os.Getenv("LANCE_BENCH_ROWS"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 {
			b.Fatalf("LANCE_BENCH_ROWS=%q", s)
		}
		rows = n
	}
	return rows
}

// BenchmarkStageOverwrite writes the throughput table into a local store
// (fsyncs included) and reports Arrow bytes per second.
func BenchmarkStageOverwrite(b *testing.B) {
	rows := benchRows(b)
	const batchRows = 64 << 10
	batch := throughputBatch(batchRows)
	defer batch.Release()
	ctx := context.Background()
	b.SetBytes(approxBytes(batch) * rows / batchRows)
	b.ResetTimer()
	defer reportCPU(b)()
	for i := 0; i < b.N; i++ {
		store, err := objstore.NewLocal(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := New(store, "t.lance", Options{}).StageOverwrite(ctx, &repeatReader{rec: batch, left: rows, batchRows: batchRows}, StageOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScan scans the throughput table from the page cache and
// reports decoded Arrow bytes per second.
func BenchmarkScan(b *testing.B) {
	rows := benchRows(b)
	const batchRows = 64 << 10
	batch := throughputBatch(batchRows)
	defer batch.Release()
	ctx := context.Background()
	store, err := objstore.NewLocal(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	ds, err := Create(ctx, store, "t.lance", &repeatReader{rec: batch, left: rows, batchRows: batchRows}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(approxBytes(batch) * rows / batchRows)
	b.ResetTimer()
	defer reportCPU(b)()
	for i := 0; i < b.N; i++ {
		sc, err := ds.Scan(ctx, ScanOptions{BatchRows: batchRows})
		if err != nil {
			b.Fatal(err)
		}
		var n int64
		for {
			rec, err := sc.Next(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n += rec.NumRows()
			rec.Release()
		}
		sc.Close()
		if n != rows {
			b.Fatalf("scanned %d rows of %d", n, rows)
		}
	}
}

// reportCPU adds the process CPU time (user+sys) per op to a benchmark:
// on a shared machine it moves less than wall time does.
func reportCPU(b *testing.B) func() {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := cpu()
	return func() {
		b.ReportMetric(float64((cpu()-start).Milliseconds())/float64(b.N), "cpu-ms/op")
	}
}
