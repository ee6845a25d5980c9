package planner

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkDMLStatement is the per-statement cost of 1-row DML in
// autocommit over a table with a CHECK constraint: INSERT … RETURNING,
// UPDATE … WHERE pk and DELETE … WHERE pk … RETURNING. The planner hands
// exec the statement's parse trees; this measures what building and
// binding those queries costs on top of the commit.
func BenchmarkDMLStatement(b *testing.B) {
	for _, bc := range []struct {
		name, sql string
		prefill   bool // the table holds rows 0..b.N-1 before the loop
	}{
		{"insert-returning", "insert into t values ($1, 'x') returning id, v", false},
		{"update", "update t set v = v || 'y' where id = $1", true},
		{"delete-returning", "delete from t where id = $1 returning v", true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ts := startServer(b, nil)
			c := ts.connectB(b)
			ctx := context.Background()
			if _, err := c.Exec(ctx, "create table t (id int8 primary key, v text check (length(v) > 0))"); err != nil {
				b.Fatal(err)
			}
			if bc.prefill {
				var sb strings.Builder
				for i := 0; i < b.N; i++ {
					fmt.Fprintf(&sb, "%d\tv\n", i)
				}
				if _, err := c.PgConn().CopyFrom(ctx, strings.NewReader(sb.String()), "COPY t FROM STDIN"); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := processCPU()
			for i := 0; i < b.N; i++ {
				if _, err := c.Exec(ctx, bc.sql, int64(i)); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}
