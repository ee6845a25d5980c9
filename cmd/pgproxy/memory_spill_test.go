package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pggraph/pggraph/exec"
)

// heapPeak samples the process's in-use heap (the server runs in this
// process) until stopped and returns the largest value in MB.
func heapPeak() func() float64 {
	runtime.GC()
	done := make(chan struct{})
	res := make(chan uint64, 1)
	go func() {
		var peak uint64
		var ms runtime.MemStats
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-done:
				res <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return func() float64 { close(done); return float64(<-res) / (1 << 20) }
}

// skipScaleInShort leaves the million-row memory tests out of -short
// (make test-short, the edit–test loop): each costs minutes of CPU under
// -race. make test runs them.
func skipScaleInShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: a million-row memory test")
	}
}

// TestSortSpillsUnderWorkMem: a 1M-row sort under SET work_mem = '1MB'
// spills to disk and returns every row in order; with a work_mem it fits
// in, it sorts in memory. Both peaks are logged.
func TestSortSpillsUnderWorkMem(t *testing.T) {
	skipScaleInShort(t)
	addr, stop, stderr := startServe(t, "--data", t.TempDir(), "--temp-dir", t.TempDir())
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, "postgres://alice@"+addr+"/main?sslmode=disable")
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	const q = "SELECT g, md5(g::text) FROM generate_series(1, 1000000) g ORDER BY md5(g::text) DESC"
	for _, wm := range []string{"1MB", "1GB"} {
		if _, err := conn.Exec(ctx, "SET work_mem = '"+wm+"'"); err != nil {
			t.Fatal(err)
		}
		spilled := exec.SpillBytesWritten()
		peak := heapPeak()
		rows, err := conn.Query(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		n, prev := 0, "\xff"
		for rows.Next() {
			var g int64
			var s string
			if err := rows.Scan(&g, &s); err != nil {
				t.Fatal(err)
			}
			if s > prev {
				t.Fatalf("work_mem %s: row %d out of order: %s after %s", wm, n, s, prev)
			}
			prev = s
			n++
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("work_mem %s: %v", wm, err)
		}
		mb := peak()
		disk := exec.SpillBytesWritten() - spilled
		if n != 1000000 {
			t.Fatalf("work_mem %s: %d rows", wm, n)
		}
		if (wm == "1MB") != (disk > 0) {
			t.Fatalf("work_mem %s: %d bytes spilled", wm, disk)
		}
		t.Logf("1M-row sort, work_mem %s: peak heap in use %.0f MB, %d MB spilled", wm, mb, disk>>20)
	}
	conn.Close(ctx)
	if code := stop(); code != 0 {
		t.Fatalf("serve exited %d: %s", code, stderr.String())
	}
}

// TestMillionRowTransaction: a 1M-row INSERT … SELECT in one transaction
// fails with 53200 naming the transaction's pending rows under a 16 MB
// budget (first, so the peak measured is its own), and the session goes
// on; under the default budget it commits.
func TestMillionRowTransaction(t *testing.T) {
	skipScaleInShort(t)
	for _, budget := range []string{"16777216", "1073741824"} {
		addr, stop, stderr := startServe(t, "--data", t.TempDir(), "--query-memory", budget)
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, "postgres://alice@"+addr+"/main?sslmode=disable")
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		if _, err := conn.Exec(ctx, "CREATE TABLE big (id int8 PRIMARY KEY, v text)"); err != nil {
			t.Fatal(err)
		}
		peak := heapPeak()
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, err = tx.Exec(ctx, "INSERT INTO big SELECT g, 'row ' || g FROM generate_series(1, 1000000) g")
		if err == nil {
			err = tx.Commit(ctx)
		} else {
			_ = tx.Rollback(ctx)
		}
		mb := peak()
		var count int64
		if err2 := conn.QueryRow(ctx, "SELECT count(*) FROM big").Scan(&count); err2 != nil {
			t.Fatalf("after the transaction: %v", err2)
		}
		var pe *pgconn.PgError
		switch budget {
		case "1073741824":
			if err != nil || count != 1000000 {
				t.Fatalf("1M-row transaction: %v, %d rows", err, count)
			}
		default:
			if !errors.As(err, &pe) || pe.Code != "53200" || !strings.Contains(pe.Detail, "pending rows") || count != 0 {
				t.Fatalf("1M-row transaction under 16 MB: %v, %d rows", err, count)
			}
			// the statement's rows count as they arrive: it stops near
			// the budget instead of building all 1M rows first (~150 MB)
			if mb > 96 {
				t.Fatalf("1M-row transaction under 16 MB peaked at %.0f MB", mb)
			}
		}
		t.Logf("1M-row INSERT … SELECT in one transaction, --query-memory %s: %v; peak heap in use %.0f MB", budget, errOrOK(err), mb)
		conn.Close(ctx)
		if code := stop(); code != 0 {
			t.Fatalf("serve exited %d: %s", code, stderr.String())
		}
	}
}

func errOrOK(err error) string {
	if err == nil {
		return "committed"
	}
	return err.Error()
}

// TestServerMemoryBudget: with a server-wide budget of 96 MB, three
// sessions each building an 80 MB value at once cannot all have it: the
// ones that cannot get memory fail with 53200 naming the server's budget,
// the process stays up, and the account returns to zero. A sort under
// the same pressure spills instead of failing.
func TestServerMemoryBudget(t *testing.T) {
	skipScaleInShort(t)
	addr, stop, stderr := startServe(t, "--data", t.TempDir(), "--server-query-memory", "100663296", "--work-mem", "1GB")
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := pgx.Connect(ctx, "postgres://alice@"+addr+"/main?sslmode=disable")
			if err != nil {
				errs[i] = err
				return
			}
			defer conn.Close(ctx)
			var n int64
			errs[i] = conn.QueryRow(ctx, "SELECT length(string_agg(repeat('x', 1000), '')) FROM generate_series(1, 80000)").Scan(&n)
		}()
	}
	wg.Wait()
	failed := 0
	for _, err := range errs {
		var pe *pgconn.PgError
		switch {
		case err == nil:
		case errors.As(err, &pe) && pe.Code == "53200" && strings.Contains(pe.Detail, "server's memory budget"):
			failed++
		default:
			t.Fatalf("unexpected: %v", err)
		}
	}
	if failed == 0 {
		t.Fatalf("three 80 MB values under a 96 MB server budget: none failed")
	}
	conn, err := pgx.Connect(ctx, "postgres://alice@"+addr+"/main?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	// the account is back to zero (a statement's charge ends with it)
	if used, _ := exec.ServerMemoryUsed(); used != 0 {
		t.Fatalf("server account holds %d bytes after the statements ended", used)
	}
	// a sort bigger than the budget's pressure mark spills although
	// work_mem (1GB) would allow it in memory
	spilled := exec.SpillBytesWritten()
	var n, s int64
	if err := conn.QueryRow(ctx, "SELECT count(*), sum(x) FROM (SELECT g AS x, repeat('y', 100) FROM generate_series(1, 1000000) g ORDER BY 2, 1 DESC) t").Scan(&n, &s); err != nil {
		t.Fatal(err)
	}
	if n != 1000000 || s != 500000500000 || exec.SpillBytesWritten() == spilled {
		t.Fatalf("sort under pressure: %d rows, sum %d, spilled %d bytes", n, s, exec.SpillBytesWritten()-spilled)
	}
	_, peak := exec.ServerMemoryUsed()
	t.Logf("server budget 96 MB: %d of 3 concurrent 80 MB string_aggs failed with 53200; peak accounted %s", failed, fmt.Sprintf("%.0f MB", float64(peak)/(1<<20)))
	conn.Close(ctx)
	if code := stop(); code != 0 {
		t.Fatalf("serve exited %d: %s", code, stderr.String())
	}
}
