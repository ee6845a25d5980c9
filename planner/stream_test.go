package planner

import (
	"context"
	"testing"
	"time"
)

// TestStreamingResults: rows arrive batch by batch — a runtime error after the first batch comes
// after the rows before it, and a cancelled statement ends with 57014.
func TestStreamingResults(t *testing.T) {
	ts := startServer(t, nil)
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			c := ts.connect(t, m.mode)
			ctx := context.Background()

			// Division by zero at g = 3000 (third batch): rows first, then 22012.
			rows, err := c.Query(ctx, "select 1 / (g - 3000) from generate_series(1, 5000) g")
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for rows.Next() {
				n++
			}
			if sqlState(rows.Err()) != "22012" || n == 0 || n >= 3000 {
				t.Fatalf("after %d rows: %v, want 22012", n, rows.Err())
			}

			// Cancel a long aggregate.
			cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			defer cancel()
			var cnt int64
			begin := time.Now()
			err = c.QueryRow(cctx, "select count(*) from generate_series(1, 10000000000) g").Scan(&cnt)
			if err == nil || time.Since(begin) > 10*time.Second {
				t.Fatalf("count: %d, %v after %v", cnt, err, time.Since(begin))
			}
			// the server stopped the query: a new connection is served at once
			c2 := ts.connect(t, m.mode)
			var one int
			if err := c2.QueryRow(ctx, "select 1").Scan(&one); err != nil || one != 1 {
				t.Fatalf("after cancel: %v", err)
			}
		})
	}
}
