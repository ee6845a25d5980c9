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

// TestStagedTransactionEnds: a transaction that staged rows and ends by
// ROLLBACK or by a disconnect leaves no row and no open staged file.
func TestStagedTransactionEnds(t *testing.T) {
	tmp := t.TempDir()
	addr, stop, stderr := startServe(t, "--data", t.TempDir(), "--temp-dir", tmp, "--query-memory", fmt.Sprint(stagedBudget))
	ctx := context.Background()
	url := "postgres://alice@" + addr + "/main?sslmode=disable"
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE big (id int8 PRIMARY KEY, v text)"); err != nil {
		t.Fatal(err)
	}
	for _, end := range []string{"rollback", "disconnect"} {
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		_, staged0, _ := planner.PendingRowStats()
		tx, err := c.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"big"}, []string{"id", "v"}, payloadRows(1, 100000)); err != nil {
			t.Fatalf("%s: COPY: %v", end, err)
		}
		if _, staged, open := planner.PendingRowStats(); staged == staged0 || open == 0 {
			t.Fatalf("%s: nothing staged (%d bytes, %d files open)", end, staged-staged0, open)
		}
		switch end {
		case "rollback":
			if err := tx.Rollback(ctx); err != nil {
				t.Fatal(err)
			}
			c.Close(ctx)
		case "disconnect":
			c.PgConn().Conn().Close() // no Terminate message: the socket just goes
		}
		waitStagedClosed(t)
		var n int64
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM big").Scan(&n); err != nil || n != 0 {
			t.Fatalf("%s: %d rows visible, %v", end, n, err)
		}
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Fatalf("temporary directory not empty: %v", ents)
	}
	conn.Close(ctx)
	if code := stop(); code != 0 {
		t.Fatalf("serve exited %d: %s", code, stderr.String())
	}
}

// TestStagedTransactionCrash: serve is SIGKILLed in the middle of a COPY
// of a transaction whose rows are staged (its open, unlinked staged file
// seen in /proc): after the restart no row of it is visible, the
// temporary directory is empty, and verify finds the root clean.
func TestStagedTransactionCrash(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "g")
	tmp := t.TempDir()
	srv := startServeProcess(t, dir, fmt.Sprintf("PGGRAPH_QUERY_MEMORY=%d", stagedBudget), "PGGRAPH_TEMP_DIR="+tmp)
	conn, err := srv.connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE big (id int8 PRIMARY KEY, v text)"); err != nil {
		t.Fatal(err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"big"}, []string{"id", "v"}, payloadRows(1, 100000)); err != nil {
		t.Fatal(err)
	}
	// a second COPY stops sending halfway; the process dies under it
	mid, killed, copyDone := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		rows := payloadRows(100001, 50000)
		sent := 0
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"big"}, []string{"id", "v"}, pgx.CopyFromFunc(func() ([]any, error) {
			if sent == 25000 {
				close(mid)
				<-killed
			}
			sent++
			if !rows.Next() {
				return nil, nil
			}
			return rows.Values()
		}))
		copyDone <- err
	}()
	<-mid
	fds := stagedFDs(srv.cmd.Process.Pid)
	if len(fds) == 0 || !strings.HasSuffix(fds[0], "(deleted)") {
		srv.kill()
		close(killed)
		t.Fatalf("the serve process holds no unlinked staged file: %v", fds)
	}
	srv.kill()
	close(killed)
	if err := <-copyDone; err == nil {
		t.Fatal("the COPY under the killed process succeeded")
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Fatalf("temporary directory not empty after the crash: %v", ents)
	}
	srv = startServeProcess(t, dir)
	conn, err = srv.connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM big").Scan(&n); err != nil || n != 0 {
		srv.kill()
		t.Fatalf("after the crash: %d rows visible, %v", n, err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO big VALUES (1, 'after')"); err != nil {
		srv.kill()
		t.Fatal(err)
	}
	conn.Close(ctx)
	if err := srv.stop(t); err != nil {
		t.Fatalf("clean shutdown: %v\n%s", err, srv.stderr.String())
	}
	if code, out, errOut := runCmd(t, nil, "verify", "--data", dir); code != 0 {
		t.Fatalf("verify after the crash: exit %d\n%s%s", code, out, errOut)
	} else {
		t.Logf("verify: %s", strings.TrimSpace(out))
	}
}

// TestStagedTransactionDiskFull: a transaction whose staged rows do not
// fit in the temporary directory (an 8 MB file system) fails with 53100
// naming what could not be written, no path; the session goes on and a
// small transaction commits.
func TestStagedTransactionDiskFull(t *testing.T) {
	tmp := t.TempDir()
	mountSmallFS(t, tmp, "8m")
	addr, stop, stderr := startServe(t, "--data", t.TempDir(), "--temp-dir", tmp, "--query-memory", fmt.Sprint(stagedBudget))
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, "postgres://alice@"+addr+"/main?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE big (id int8 PRIMARY KEY, v text)"); err != nil {
		t.Fatal(err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tx.CopyFrom(ctx, pgx.Identifier{"big"}, []string{"id", "v"}, payloadRows(1, 200000))
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "53100" || !strings.Contains(pe.Message, "pending rows: No space left on device") || strings.Contains(pe.Message+pe.Detail, "/") {
		t.Fatalf("COPY of 22 MB staged into 8 MB: %v", err)
	}
	t.Logf("%s (hint: %s)", pe.Message, pe.Hint)
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	waitStagedClosed(t)
	tx, err = conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"big"}, []string{"id", "v"}, payloadRows(1, 50000)); err != nil {
		t.Fatalf("a 5 MB transaction after the space came back: %v", err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM big").Scan(&n); err != nil || n != 50000 {
		t.Fatalf("%d rows, %v", n, err)
	}
	conn.Close(ctx)
	if code := stop(); code != 0 {
		t.Fatalf("serve exited %d: %s", code, stderr.String())
	}
}
