package recovery_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/protocol"
	"github.com/pggraph/pggraph/recovery"
)

// TestMain lets the test binary act as a separate owner process.
func TestMain(m *testing.M) {
	if os.Getenv("PGGRAPH_LEASE_CHILD") != "" {
		os.Exit(leaseChild())
	}
	os.Exit(m.Run())
}

// slowTables delays the first table HEAD move (the first durable effect
// after the sidecar) by delay: a long write.
type slowTables struct {
	objstore.Store
	delay time.Duration
	once  sync.Once
}

func (s *slowTables) PutIfAbsent(ctx context.Context, key string, b []byte) error {
	if strings.HasPrefix(key, "tables/") && strings.Contains(key, "/_versions/") {
		s.once.Do(func() { time.Sleep(s.delay) })
	}
	return s.Store.PutIfAbsent(ctx, key, b)
}

const childLease = 3 * time.Second

// leaseChild inserts one row into table a with a write slowed past
// several lease durations; it prints "ok" or "failed <sqlstate>".
func leaseChild() int {
	store, err := objstore.NewLocal(os.Getenv("PGGRAPH_LEASE_DIR"))
	if err != nil {
		fmt.Println("error", err)
		return 2
	}
	ctx := context.Background()
	delay := 7 * time.Second // more than two leases
	if d, err := time.ParseDuration(os.Getenv("PGGRAPH_LEASE_DELAY")); err == nil {
		delay = d
	}
	g, err := adapters.Open(ctx, &slowTables{Store: store, delay: delay}, adapters.Options{Actor: "lease-child",
		Recovery: recovery.Options{LeaseDuration: childLease}, LegacyCommitPath: true}) // a write with a sidecar (recovery_test.go open)
	if err != nil {
		fmt.Println("error", err)
		return 2
	}
	defer g.Close()
	// strict (default): a fenced attempt must fail, not transparently
	// re-prepare
	o := adapters.WriteOptions{Branch: os.Getenv("PGGRAPH_LEASE_BRANCH"), Strict: os.Getenv("PGGRAPH_LEASE_LAX") == ""}
	_, err = g.Write(ctx, o, func(ctx context.Context, s *adapters.Stage) error {
		return s.Insert("a", rows(4242))
	})
	if err != nil {
		fmt.Println("failed", protocol.SQLState(err), err)
		return 0
	}
	fmt.Println("ok", g.Recovery.Stats().LeaseRenewals)
	return 0
}

// startLeaseChild starts the owner process; exited delivers its Wait.
func startLeaseChild(t *testing.T, dir string, env ...string) (cmd *exec.Cmd, out *strings.Builder, exited <-chan error) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(self, "-test.run=^$")
	cmd.Env = append(append(os.Environ(), "PGGRAPH_LEASE_CHILD=1", "PGGRAPH_LEASE_DIR="+dir), env...)
	out = &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ch := make(chan error, 1)
	go func() { ch <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGCONT)
		_ = cmd.Process.Kill()
	})
	return cmd, out, ch
}

// waitSidecar waits for the child's sidecar and returns its key.
func waitSidecar(t *testing.T, store objstore.Store) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		objs, err := store.List(context.Background(), "__recovery/")
		if err == nil && len(objs) == 1 {
			return objs[0].Key
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the child never armed its write")
	return ""
}

func readSidecar(t *testing.T, store objstore.Store, key string) *recovery.Sidecar {
	t.Helper()
	b, err := store.Get(context.Background(), key)
	if objstore.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	sc, err := recovery.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func localRoot(t *testing.T) (string, objstore.Store) {
	dir := t.TempDir()
	store, err := objstore.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	g := open(t, store, true, recovery.Options{})
	defer g.Close()
	_, err = g.Write(context.Background(), adapters.WriteOptions{}, func(ctx context.Context, s *adapters.Stage) error {
		return s.CreateTable(adapters.TableSpec{Name: "a", Columns: []graph.ColumnSpec{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}})
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir, store
}

// A write in another process that runs for several lease durations keeps
// renewing its lease: a concurrent recoverer sees a live owner every
// time and never fences it, and the write commits.
func TestLongWriteRenewsItsLease(t *testing.T) {
	dir, store := localRoot(t)
	_, out, exited := startLeaseChild(t, dir)
	key := waitSidecar(t, store)
	first := readSidecar(t, store, key)
	g := open(t, store, false, recovery.Options{})
	defer g.Close()
	ctx := context.Background()
	latest := first.Owner.LeaseExpiry
	rounds := 0
	for done := false; !done; {
		select {
		case err := <-exited:
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			done = true
			continue
		case <-time.After(100 * time.Millisecond):
		}
		if sc := readSidecar(t, store, key); sc != nil && sc.Owner.LeaseExpiry.After(latest) {
			latest = sc.Owner.LeaseExpiry
		}
		reps, err := g.Recovery.Recover(ctx)
		if err != nil {
			t.Fatalf("recover beside a live owner: %v", err)
		}
		for _, r := range reps {
			if r.Fenced || r.Decision != recovery.SkippedLive && r.Decision != recovery.Vanished {
				t.Fatalf("round %d: recovery acted on a live, renewing owner: %+v", rounds, r)
			}
		}
		rounds++
	}
	if !strings.HasPrefix(out.String(), "ok") {
		t.Fatalf("the long write did not commit: %s", out)
	}
	if !latest.After(first.Owner.LeaseExpiry.Add(childLease)) {
		t.Fatalf("lease never renewed past its first expiry (%s → %s)", first.Owner.LeaseExpiry, latest)
	}
	if a := ids(t, g, "a"); !slices.Equal(a, []int64{4242}) {
		t.Fatalf("a = %v", a)
	}
	t.Logf("%d recovery rounds beside the live owner; lease extended by %s", rounds, latest.Sub(first.Owner.LeaseExpiry))
}

// An owner that stops renewing (SIGSTOP: a frozen process, alive by pid)
// is fenced once its lease runs out; resumed, its pending commit cannot
// land and nothing of its write becomes visible.
func TestStalledOwnerIsFencedAfterItsLease(t *testing.T) {
	dir, store := localRoot(t)
	cmd, out, exited := startLeaseChild(t, dir)
	key := waitSidecar(t, store)
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	sc := readSidecar(t, store, key)
	g := open(t, store, false, recovery.Options{})
	defer g.Close()
	ctx := context.Background()
	// before the lease ends the frozen owner is presumed alive
	if within := time.Now().Add(200 * time.Millisecond).Before(sc.Owner.LeaseExpiry); within {
		if reps, err := g.Recovery.Recover(ctx); err != nil || len(reps) != 1 || reps[0].Decision != recovery.SkippedLive {
			t.Fatalf("recover within the lease: %+v %v", reps, err)
		}
	}
	time.Sleep(time.Until(readSidecar(t, store, key).Owner.LeaseExpiry) + 100*time.Millisecond)
	reps, err := g.Recovery.Recover(ctx)
	if err != nil || len(reps) != 1 || !reps[0].Fenced {
		t.Fatalf("recover after the lease: %+v %v", reps, err)
	}
	if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if err := <-exited; err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	line, _, _ := strings.Cut(out.String(), "\n")
	if !strings.HasPrefix(line, "failed") {
		t.Fatalf("the fenced owner's write succeeded: %s", out)
	}
	if a := ids(t, g, "a"); len(a) != 0 {
		t.Fatalf("a fenced write is visible: a = %v", a)
	}
	if objs, _ := store.List(ctx, "__recovery/"); len(objs) != 0 {
		t.Fatalf("sidecars remain: %v", objs)
	}
	sc2 := bufio.NewScanner(strings.NewReader(out.String()))
	for sc2.Scan() {
		t.Log("child:", sc2.Text())
	}
}
