package main

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestSeveralProcessesOnOneBucket: three pgproxy processes serve one
// graph root in an S3 bucket; eight clients spread over them insert
// keyed rows; one process is SIGKILLed mid-run and restarted. Commits
// from different processes are arbitrated by the manifest's conditional
// PUT alone. Afterwards every acknowledged insert is present exactly
// once, no insert is present twice, and recover + verify find nothing
// left pending.
func TestSeveralProcessesOnOneBucket(t *testing.T) {
	const procs, clients = 3, 8
	ctx := context.Background()
	r := newS3Root(t, "shared")
	if code, out, errOut := runCmd(t, nil, append([]string{"init"}, r.flags()...)...); code != 0 {
		t.Fatalf("init: exit %d\n%s%s", code, out, errOut)
	}
	var pmu sync.Mutex
	servers := make([]*serveProcess, procs)
	for i := range servers {
		servers[i] = startS3Serve(t, r)
	}
	conn, err := servers[0].connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE t (k int8, c int4)"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)

	var mu sync.Mutex
	acked := map[int64]bool{}
	attempted := map[int64]bool{}
	codes := map[string]int{} // failed statements by SQLSTATE ("conn" = connection lost)
	ackedBy := make([]int, procs)
	next := int64(0)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			var cn *pgx.Conn
			defer func() {
				if cn != nil {
					cn.Close(context.Background())
				}
			}()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if cn == nil {
					pmu.Lock()
					p := servers[c%procs]
					pmu.Unlock()
					var cerr error // err is the test's: each client has its own
					if cn, cerr = p.connect(ctx); cerr != nil {
						cn = nil
						time.Sleep(20 * time.Millisecond)
						continue
					}
				}
				mu.Lock()
				next++
				k := next
				attempted[k] = true
				mu.Unlock()
				_, err := cn.Exec(ctx, "INSERT INTO t VALUES ($1, $2)", k, c)
				mu.Lock()
				if err == nil {
					acked[k] = true
					ackedBy[c%procs]++
				} else {
					var pe *pgconn.PgError
					if errors.As(err, &pe) {
						codes[pe.Code]++
					} else {
						codes["conn"]++
					}
				}
				mu.Unlock()
				if err != nil && cn.IsClosed() {
					cn = nil
				}
			}
		})
	}
	// waitFor polls until cond holds (under mu), bounded so a stuck run
	// fails instead of hanging
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(90 * time.Second)
		for {
			mu.Lock()
			ok := cond()
			mu.Unlock()
			if ok {
				return
			}
			if time.Now().After(deadline) {
				close(stop)
				wg.Wait()
				t.Fatalf("timed out waiting for %s (acknowledged by process: %v; failures %v)", what, ackedBy, codes)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// every process has served writes before one of them is killed
	waitFor("commits through every process", func() bool { return min(ackedBy[0], ackedBy[1], ackedBy[2]) >= 3 })
	pmu.Lock()
	victim := servers[1]
	pmu.Unlock()
	victim.kill()
	mu.Lock()
	ackedAtKill := len(acked)
	victimAcks := ackedBy[1]
	mu.Unlock()
	restarted := startS3Serve(t, r)
	pmu.Lock()
	servers[1] = restarted
	pmu.Unlock()
	// the restarted process serves writes again, next to the others
	waitFor("commits through the restarted process", func() bool { return ackedBy[1] >= victimAcks+3 && len(acked) >= ackedAtKill+10 })
	close(stop)
	wg.Wait()
	for i, p := range servers {
		if err := p.stop(t); err != nil {
			t.Fatalf("process %d: clean shutdown: %v\n%s", i, err, p.stderr.String())
		}
	}

	if code, out, errOut := runCmd(t, nil, append([]string{"recover"}, r.flags()...)...); code != 0 {
		t.Fatalf("recover after the run: exit %d\n%s%s", code, out, errOut)
	}
	final := startS3Serve(t, r)
	conn, err = final.connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seen := countKeys(ctx, t, conn)
	conn.Close(ctx)
	if err := final.stop(t); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	var missing, twice, unknown []int64
	for k := range acked {
		if seen[k] != 1 {
			missing = append(missing, k)
		}
	}
	for k, n := range seen {
		if n > 1 {
			twice = append(twice, k)
		}
		if !attempted[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Slice(missing, func(i, j int) bool { return missing[i] < missing[j] })
	if len(missing) > 0 || len(twice) > 0 || len(unknown) > 0 {
		t.Fatalf("acknowledged but not present exactly once: %v; present twice: %v; never sent: %v", missing, twice, unknown)
	}
	var unacked int
	for k := range attempted {
		if !acked[k] && seen[k] == 1 {
			unacked++
		}
	}
	var cs []string
	for c, n := range codes {
		cs = append(cs, c+"="+itoa(n))
	}
	sort.Strings(cs)
	t.Logf("%d processes × %d clients: %d inserts sent, %d acknowledged (%d before the SIGKILL; by process %v), %d unacknowledged but landed; failures by SQLSTATE: %s",
		procs, clients, len(attempted), len(acked), ackedAtKill, ackedBy, unacked, strings.Join(cs, " "))
	if code, out, errOut := runCmd(t, nil, append([]string{"verify"}, r.flags()...)...); code != 0 || !strings.Contains(out, "no pending recovery") {
		t.Fatalf("verify: exit %d\n%s%s", code, out, errOut)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
