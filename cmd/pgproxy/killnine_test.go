package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// serveProcess is `pgproxy serve` in a child OS process (this test binary
// standing in for pgproxy, see TestMain), so it can be SIGKILLed.
type serveProcess struct {
	cmd    *exec.Cmd
	addr   string
	stderr *syncBuffer
	done   chan error
}

// startServeProcess starts serve on dir, with env added to this
// process's environment, and waits until it listens.
func startServeProcess(t *testing.T, dir string, env ...string) *serveProcess {
	t.Helper()
	cmd := exec.Command(os.Args[0], "serve", "--data", dir, "--listen", "127.0.0.1:0", "--log-level", "warn")
	cmd.Env = append(append(os.Environ(), "PGGRAPH_TEST_AS_PGPROXY=1"), env...)
	p := &serveProcess{cmd: cmd, stderr: &syncBuffer{}, done: make(chan error, 1)}
	cmd.Stderr = p.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.Contains(line, "listening on ") {
		_ = cmd.Process.Kill()
		<-p.done
		t.Fatalf("serve did not start (%q, %v): %s", line, err, p.stderr.String())
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	p.addr = strings.TrimSuffix(strings.Fields(strings.SplitN(line, "listening on ", 2)[1])[0], ";")
	return p
}

// kill sends SIGKILL: no shutdown, no cleanup of any kind.
func (p *serveProcess) kill() {
	_ = p.cmd.Process.Kill()
	<-p.done
}

// stop sends SIGINT and returns the exit error (nil on a clean exit).
func (p *serveProcess) stop(t *testing.T) error {
	t.Helper()
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-p.done:
		return err
	case <-time.After(60 * time.Second):
		p.kill()
		return fmt.Errorf("serve did not stop within 60s")
	}
}

func (p *serveProcess) connect(ctx context.Context) (*pgx.Conn, error) {
	return p.connectTo(ctx, "main")
}

// connectTo connects to one graph branch.
func (p *serveProcess) connectTo(ctx context.Context, branch string) (*pgx.Conn, error) {
	return pgx.Connect(ctx, "postgres://tester@"+p.addr+"/"+branch+"?sslmode=disable")
}

// TestKillNineServeNeverAppliesTwice is the experiment a careful client
// runs after a crash: clients insert keyed rows through a serve process
// and note each acknowledgement; the process is SIGKILLed mid-stream and
// restarted; the client reads which keys landed and retries each
// unacknowledged key that is absent. No key may ever appear twice (a read
// after the restart must not miss a write that recovery later rolls
// forward), and every acknowledged key must be present exactly once. The
// table has no key, so a double apply shows up as a duplicate row. After
// the last round a clean shutdown leaves nothing for verify to report
// (docs/operations.md, "Startup and shutdown"). Inserts into a touched
// table take commit path v2, which arms no sidecar, so a random kill
// rarely leaves a write for startup recovery; TestRestartReadsAfterRecovery
// crashes a sidecar write at the one point that matters, every run.
func TestKillNineServeNeverAppliesTwice(t *testing.T) {
	rounds := 6
	if s := os.Getenv("PGGRAPH_KILL9_ROUNDS"); s != "" {
		rounds, _ = strconv.Atoi(s)
	}
	const clients = 4
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "g")
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewSource(seed))
	t.Logf("seed %d", seed)

	srv := startServeProcess(t, dir)
	conn, err := srv.connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE t (k int8, c int4)"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)

	var mu sync.Mutex
	acked := map[int64]bool{}     // acknowledged (by the first try or a retry)
	attempted := map[int64]bool{} // sent at least once
	next := int64(0)
	retried, flips := 0, 0
	for r := 0; r < rounds; r++ {
		// clients insert until the server dies under them
		var wg sync.WaitGroup
		for c := 0; c < clients; c++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cn, err := srv.connect(ctx)
				if err != nil {
					return
				}
				defer cn.Close(context.Background())
				for {
					mu.Lock()
					next++
					k := next
					attempted[k] = true
					mu.Unlock()
					if _, err := cn.Exec(ctx, "INSERT INTO t VALUES ($1, 1)", k); err != nil {
						return // connection gone (or a failure): k is unacknowledged
					}
					mu.Lock()
					acked[k] = true
					mu.Unlock()
				}
			}()
		}
		time.Sleep(time.Duration(100+rng.Intn(400)) * time.Millisecond)
		srv.kill()
		wg.Wait()

		srv = startServeProcess(t, dir)
		conn, err := srv.connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// the read a client does first: which of my keys landed?
		seen := countKeys(ctx, t, conn)
		for k, n := range seen {
			if n > 1 {
				t.Fatalf("round %d: key %d applied %d times", r, k, n)
			}
		}
		mu.Lock()
		for k := range acked {
			if seen[k] != 1 {
				t.Fatalf("round %d: acknowledged key %d present %d times", r, k, seen[k])
			}
		}
		var retry []int64
		for k := range attempted {
			if !acked[k] && seen[k] == 0 {
				retry = append(retry, k)
			}
		}
		mu.Unlock()
		for _, k := range retry {
			if _, err := conn.Exec(ctx, "INSERT INTO t VALUES ($1, 2)", k); err != nil {
				t.Fatalf("round %d: retry of key %d: %v", r, k, err)
			}
			acked[k] = true
			retried++
		}
		after := countKeys(ctx, t, conn)
		for k := range attempted {
			if acked[k] && after[k] != 1 {
				flips++
				t.Errorf("round %d: key %d was absent after the restart, retried, and is now present %d times (the restarted server answered a read before recovery rolled the interrupted write forward)", r, k, after[k])
			}
		}
		for k, n := range after {
			if !attempted[k] || n > 1 {
				t.Fatalf("round %d: key %d present %d times (attempted %v)", r, k, n, attempted[k])
			}
		}
		conn.Close(ctx)
		if t.Failed() {
			srv.kill()
			t.FailNow()
		}
	}
	if err := srv.stop(t); err != nil {
		t.Fatalf("clean shutdown: %v\n%s", err, srv.stderr.String())
	}
	code, out, errOut := runCmd(t, nil, "verify", "--data", dir)
	if code != 0 || !strings.Contains(out, "no pending recovery") {
		t.Fatalf("verify after a clean shutdown: exit %d\n%s%s", code, out, errOut)
	}
	t.Logf("%d rounds × %d clients: %d keys attempted, %d acknowledged on the first try, %d retried after a restart, %d double applies",
		rounds, clients, len(attempted), len(acked)-retried, retried, flips)
}

// countKeys returns how many rows each key has.
func countKeys(ctx context.Context, t *testing.T, conn *pgx.Conn) map[int64]int {
	t.Helper()
	rows, err := conn.Query(ctx, "SELECT k FROM t")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := map[int64]int{}
	for rows.Next() {
		var k int64
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		seen[k]++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return seen
}
