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
	"github.com/pggraph/pggraph/planner"
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

// TestMillionRowTransaction: under a 16 MB budget, a 1M-row INSERT …
// SELECT into a keyed table commits in one transaction (its rows join
// the pending state chunk by chunk and are staged; its 1M key locks are
// one bulk set of 8 bytes a key), and a DELETE of every row commits
// too; the budget's accounting of pending rows and locks stays under
// the budget throughout. Before, the INSERT failed with 53200 (its key
// locks alone took ~640 MB).
func TestMillionRowTransaction(t *testing.T) {
	skipScaleInShort(t)
	const budget = 16 << 20
	addr, stop, stderr := startServe(t, "--data", t.TempDir(), "--query-memory", fmt.Sprint(budget))
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, "postgres://alice@"+addr+"/main?sslmode=disable")
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE big (id int8 PRIMARY KEY, v text)"); err != nil {
		t.Fatal(err)
	}
	planner.ResetPendingRowPeak()
	planner.ResetRowLockPeak()
	_, stagedBefore, _ := planner.PendingRowStats()
	peak := heapPeak()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err = tx.Exec(ctx, "INSERT INTO big SELECT g, 'row ' || g FROM generate_series(1, 1000000) g"); err != nil {
		t.Fatalf("1M-row INSERT … SELECT under 16 MB: %v", err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatalf("COMMIT: %v", err)
	}
	mb := peak()
	var count, sum int64
	if err := conn.QueryRow(ctx, "SELECT count(*), sum(id) FROM big").Scan(&count, &sum); err != nil || count != 1000000 || sum != 500000500000 {
		t.Fatalf("after the transaction: %v, %d rows, sum %d", err, count, sum)
	}
	inMemory, staged, _ := planner.PendingRowStats()
	locks := planner.RowLockPeakBytes()
	// the accounting the budget checks: pending rows held in memory and
	// lock bytes each under the budget, the locks ~8 bytes a key
	if inMemory > budget || staged == stagedBefore || locks > budget || locks < 8*1000000 {
		t.Fatalf("pending rows in memory %d, staged %d, lock bytes %d (budget %d)", inMemory, staged-stagedBefore, locks, budget)
	}
	t.Logf("1M-row INSERT … SELECT in one transaction under 16 MB: committed; pending rows in memory at most %.1f MB, %.0f MB staged, locks %.1f MB, peak heap in use %.0f MB",
		float64(inMemory)/(1<<20), float64(staged-stagedBefore)/(1<<20), float64(locks)/(1<<20), mb)
	planner.ResetRowLockPeak()
	peak = heapPeak()
	tag, err := conn.Exec(ctx, "DELETE FROM big WHERE id > 10")
	mb = peak()
	if err != nil || tag.RowsAffected() != 999990 {
		t.Fatalf("DELETE of 999,990 rows under 16 MB: %v (%s)", err, tag)
	}
	// the DELETE's 999,990 row locks are a bitmap: a bit a row
	if locks := planner.RowLockPeakBytes(); locks > 1<<20 {
		t.Fatalf("DELETE: lock bytes %d, want a bitmap (~125 KB)", locks)
	}
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM big").Scan(&count); err != nil || count != 10 {
		t.Fatalf("after the DELETE: %v, %d rows", err, count)
	}
	t.Logf("DELETE of 999,990 rows under 16 MB: committed; locks %.0f KB, peak heap in use %.0f MB", float64(planner.RowLockPeakBytes())/(1<<10), mb)
	conn.Close(ctx)
	if code := stop(); code != 0 {
		t.Fatalf("serve exited %d: %s", code, stderr.String())
	}
}

// TestMillionRowUpsert: INSERT … SELECT … ON CONFLICT of a million
// rows into a keyed table of a million commits under a 16 MB budget —
// DO UPDATE (half the rows updated, half inserted) and DO NOTHING — as
// its rows join the pending state chunk by chunk; before, both failed
// with 53200 (an ON CONFLICT held every new row in memory).
func TestMillionRowUpsert(t *testing.T) {
	skipScaleInShort(t)
	const budget = 16 << 20
	addr, stop, stderr := startServe(t, "--data", t.TempDir(), "--query-memory", fmt.Sprint(budget))
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, "postgres://alice@"+addr+"/main?sslmode=disable")
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	for _, q := range []string{
		"CREATE TABLE big (id int8 PRIMARY KEY, v text)",
		"INSERT INTO big SELECT g, 'row ' || g FROM generate_series(1, 1000000) g",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, tc := range []struct {
		sql, tag   string
		count, sum int64 // after it
	}{
		{"INSERT INTO big SELECT g, 'new ' || g FROM generate_series(500001, 1500000) g ON CONFLICT (id) DO UPDATE SET v = excluded.v",
			"INSERT 0 1000000", 1500000, 1125000750000},
		{"INSERT INTO big SELECT g, 'more ' || g FROM generate_series(1, 2000000) g ON CONFLICT DO NOTHING",
			"INSERT 0 500000", 2000000, 2000001000000},
	} {
		planner.ResetPendingRowPeak()
		peak := heapPeak()
		start := time.Now()
		tag, err := conn.Exec(ctx, tc.sql)
		mb := peak()
		if err != nil || tag.String() != tc.tag {
			t.Fatalf("%s under 16 MB: %v (%s)", tc.sql, err, tag)
		}
		var count, sum int64
		if err := conn.QueryRow(ctx, "SELECT count(*), sum(id) FROM big").Scan(&count, &sum); err != nil || count != tc.count || sum != tc.sum {
			t.Fatalf("after %s: %v, %d rows, sum %d", tc.sql, err, count, sum)
		}
		inMemory, _, _ := planner.PendingRowStats()
		if inMemory > budget {
			t.Fatalf("%s: pending rows in memory %d (budget %d)", tc.sql, inMemory, budget)
		}
		t.Logf("%s under 16 MB: %s in %s; pending rows in memory at most %.1f MB, peak heap in use %.0f MB",
			tc.sql, tag, time.Since(start).Round(time.Second), float64(inMemory)/(1<<20), mb)
	}
	conn.Close(ctx)
	if code := stop(); code != 0 {
		t.Fatalf("serve exited %d: %s", code, stderr.String())
	}
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
