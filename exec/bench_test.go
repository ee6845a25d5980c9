package exec

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func benchTable(n int) *MemTable {
	cols := []ColumnDef{{Name: "id", Type: TInt8}, {Name: "grp", Type: TInt8}, {Name: "v", Type: TFloat8}, {Name: "flag", Type: TBool}}
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "grp", Type: arrow.PrimitiveTypes.Int64}, {Name: "v", Type: arrow.PrimitiveTypes.Float64}, {Name: "flag", Type: arrow.FixedWidthTypes.Boolean}}, nil)
	mt := &MemTable{Cols: cols, Keys: []int{0}}
	for lo := 1; lo <= n; lo += 1 << 16 {
		hi := min(lo+(1<<16)-1, n)
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		for i := lo; i <= hi; i++ {
			b.Field(0).(*array.Int64Builder).Append(int64(i))
			b.Field(1).(*array.Int64Builder).Append(int64(i % 1000))
			b.Field(2).(*array.Float64Builder).Append(float64(i*7%1000) / 10)
			b.Field(3).(*array.BooleanBuilder).Append(i%3 == 0)
		}
		mt.Records = append(mt.Records, b.NewRecordBatch())
	}
	return mt
}

func BenchmarkScanAgg10M(b *testing.B) {
	cat := NewMemCatalog()
	mt := benchTable(10_000_000)
	cat.Add(&TableDef{Name: "big", Columns: mt.Cols, Source: mt})
	eng := &Engine{Catalog: cat}
	for _, q := range []string{"SELECT sum(v), count(v), count(*) FROM big", "SELECT grp, count(*), sum(v), min(v), max(v) FROM big WHERE flag GROUP BY grp"} {
		b.Run(q[:20], func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := eng.Query(context.Background(), nil, q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkJoin(b *testing.B) {
	cat := NewMemCatalog()
	mt := benchTable(10_000_000)
	cat.Add(&TableDef{Name: "big", Columns: mt.Cols, Source: mt})
	rows := make([][]any, 1_000_000)
	for i := range rows {
		rows[i] = []any{int64((i + 1) * 10), int64(i % 7)}
	}
	sm, _ := NewMemTable([]ColumnDef{{Name: "id", Type: TInt8}, {Name: "w", Type: TInt8}}, rows)
	cat.Add(&TableDef{Name: "small", Columns: sm.Cols, Source: sm})
	eng := &Engine{Catalog: cat}
	for i := 0; i < b.N; i++ {
		if _, err := eng.Query(context.Background(), nil, "SELECT count(*), sum(small.w) FROM big JOIN small ON big.id = small.id"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSort1M(b *testing.B) {
	eng := &Engine{}
	for i := 0; i < b.N; i++ {
		if _, err := eng.Query(context.Background(), nil, "SELECT x FROM generate_series(1, 1000000) x ORDER BY x % 1000 DESC, x LIMIT 1 OFFSET 999999"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParallel runs execbench's scan queries at 2M rows serially
// (w0) and on GOMAXPROCS workers (wN), interleaved; cpu-ms/op is the
// process's CPU time per query (the work done, whatever the machine's
// load).
func BenchmarkParallel(b *testing.B) {
	cat := NewMemCatalog()
	mt := benchTable(2_000_000)
	cat.Add(&TableDef{Name: "big", Columns: mt.Cols, Source: mt})
	rows := make([][]any, 200_000)
	for i := range rows {
		rows[i] = []any{int64((i + 1) * 10), int64(i % 7)}
	}
	sm, err := NewMemTable([]ColumnDef{{Name: "id", Type: TInt8}, {Name: "w", Type: TInt8}}, rows)
	if err != nil {
		b.Fatal(err)
	}
	cat.Add(&TableDef{Name: "small", Columns: sm.Cols, Source: sm})
	eng := &Engine{Catalog: cat}
	saved := parallelWorkers
	defer func() { parallelWorkers = saved }()
	queries := map[string]string{
		"scanagg": "SELECT sum(v), count(v), count(*) FROM big",
		"groupby": "SELECT grp, count(*), sum(v), min(v), max(v) FROM big WHERE flag GROUP BY grp",
		"join":    "SELECT count(*), sum(small.w) FROM big JOIN small ON big.id = small.id",
		"topn":    "SELECT id, v FROM big ORDER BY v DESC, id LIMIT 100",
	}
	for _, name := range []string{"scanagg", "groupby", "join", "topn"} {
		for _, w := range []int{0, saved()} {
			b.Run(fmt.Sprintf("%s/w%d", name, w), func(b *testing.B) {
				parallelWorkers = func() int { return w }
				c0 := processCPU()
				for i := 0; i < b.N; i++ {
					if _, err := eng.Query(context.Background(), nil, queries[name]); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(processCPU()-c0)/float64(b.N)/1e6, "cpu-ms/op")
			})
		}
	}
}

// processCPU is the user+system CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
