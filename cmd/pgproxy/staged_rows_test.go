package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pggraph/pggraph/planner"
)

// stagedBudget is the --query-memory of the staged-rows tests: a quarter
// of it (4 MB) is the transaction's spill threshold.
const stagedBudget = 16 << 20

// payloadRows is a COPY source of n rows (id, 100-byte text) from first.
func payloadRows(first, n int) pgx.CopyFromSource {
	pad := strings.Repeat("p", 90)
	i := 0
	return pgx.CopyFromFunc(func() ([]any, error) {
		if i == n {
			return nil, nil
		}
		id := int64(first + i)
		i++
		return []any{id, fmt.Sprintf("%s%010d", pad, id)}, nil
	})
}

// TestStagedTransaction: one transaction of COPY and INSERT … SELECT
// statements holding several times the 16 MB memory budget in pending
// rows commits, every row visible; the transaction's in-memory pending
// rows stay under the budget (the server's own account of them) because
// the rest is staged to disk, and the staged file is gone afterwards.
func TestStagedTransaction(t *testing.T) {
	skipScaleInShort(t)
	tmp := t.TempDir()
	addr, stop, stderr := startServe(t, "--data", t.TempDir(), "--temp-dir", tmp, "--query-memory", fmt.Sprint(stagedBudget))
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, "postgres://alice@"+addr+"/main?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	// big is keyed; log has no key, so its INSERTs take no key locks
	// (row locks live in memory at 640 B each and are budgeted apart)
	for _, ddl := range []string{"CREATE TABLE big (id int8 PRIMARY KEY, v text)", "CREATE TABLE log (id int8, v text)"} {
		if _, err := conn.Exec(ctx, ddl); err != nil {
			t.Fatal(err)
		}
	}
	planner.ResetPendingRowPeak()
	_, stagedBefore, _ := planner.PendingRowStats()
	heap := heapPeak()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const copyRows, selects, selectRows = 400000, 4, 40000
	if n, err := tx.CopyFrom(ctx, pgx.Identifier{"big"}, []string{"id", "v"}, payloadRows(1, copyRows)); err != nil || n != copyRows {
		t.Fatalf("COPY in the transaction: %d rows, %v", n, err)
	}
	for i := 0; i < selects; i++ {
		lo := copyRows + i*selectRows + 1
		if _, err := tx.Exec(ctx, fmt.Sprintf("INSERT INTO log SELECT g, repeat('s', 90) || g FROM generate_series(%d, %d) g", lo, lo+selectRows-1)); err != nil {
			t.Fatalf("INSERT … SELECT %d: %v %s", i, err, errDetail(err))
		}
	}
	var inTx int64
	if err := tx.QueryRow(ctx, "SELECT count(*) FROM (SELECT id FROM big UNION ALL SELECT id FROM log) u WHERE id % 1000 = 7").Scan(&inTx); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatalf("COMMIT: %v", err)
	}
	heapMB := heap()
	peak, staged, _ := planner.PendingRowStats()
	staged -= stagedBefore
	const total = copyRows + selects*selectRows
	var count, sum int64
	if err := conn.QueryRow(ctx, "SELECT count(*), sum(id) FROM (SELECT id FROM big UNION ALL SELECT id FROM log) u").Scan(&count, &sum); err != nil {
		t.Fatal(err)
	}
	if count != total || sum != int64(total)*(total+1)/2 || inTx != total/1000 {
		t.Fatalf("after COMMIT: %d rows, sum %d (in the transaction %d of every 1000th)", count, sum, inTx)
	}
	if staged < 3*stagedBudget {
		t.Fatalf("only %d bytes staged for a transaction of ~%d MB", staged, total*110>>20)
	}
	if peak > stagedBudget {
		t.Fatalf("the transaction held %d bytes of pending rows in memory (budget %d)", peak, stagedBudget)
	}
	t.Logf("%d-row transaction under --query-memory 16 MB: %d MB staged, at most %.1f MB of pending rows in memory, peak heap in use %.0f MB",
		total, staged>>20, float64(peak)/(1<<20), heapMB)
	waitStagedClosed(t)
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Fatalf("temporary directory not empty: %v", ents)
	}
	conn.Close(ctx)
	if code := stop(); code != 0 {
		t.Fatalf("serve exited %d: %s", code, stderr.String())
	}
}

// waitStagedClosed waits until no staged file is open in this process
// (their descriptors close once the ended transactions' records are
// collected).
func waitStagedClosed(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; {
		runtime.GC()
		if _, _, open := planner.PendingRowStats(); open == 0 {
			return
		} else if time.Now().After(deadline) {
			t.Fatalf("%d staged files still open after the transactions ended", open)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stagedFDs lists a process's open descriptors of staged files (unlinked:
// the link reads "…/pggraph-pending-… (deleted)").
func stagedFDs(pid int) []string {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && strings.Contains(l, "pggraph-pending-") {
			out = append(out, l)
		}
	}
	return out
}

func errDetail(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Detail
	}
	return ""
}
