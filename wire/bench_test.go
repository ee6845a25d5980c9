package wire

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Round trips of trivial statements through the server and the fake
// engine: the wire layer's own latency (go test -bench . ./wire).
func BenchmarkRoundTrip(b *testing.B) {
	ts := startServer(b, nil)
	modes := []struct {
		name string
		mode pgx.QueryExecMode
	}{
		{"simple", pgx.QueryExecModeSimpleProtocol},
		{"prepared", pgx.QueryExecModeCacheStatement},
		{"unnamed_extended", pgx.QueryExecModeDescribeExec},
	}
	for _, m := range modes {
		b.Run(m.name, func(b *testing.B) {
			c := ts.pgx(b, "")
			ctx := context.Background()
			var one int32
			b.ReportAllocs()
			for b.Loop() {
				if err := c.QueryRow(ctx, "select 1", m.mode).Scan(&one); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkRowThroughput(b *testing.B) {
	ts := startServer(b, nil)
	c := ts.pgx(b, "")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		rows, err := c.Query(ctx, "select gen(1000)")
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for rows.Next() {
			n++
		}
		if rows.Err() != nil || n != 1000 {
			b.Fatal(rows.Err(), n)
		}
	}
	b.ReportMetric(float64(b.N*1000)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkConnect(b *testing.B) {
	ts := startServer(b, nil)
	ctx := context.Background()
	url := ts.url(testUser, "", "main", "")
	for b.Loop() {
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			b.Fatal(err)
		}
		c.Close(ctx)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "conns/s")
}
