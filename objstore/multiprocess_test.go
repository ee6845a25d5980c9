package objstore_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pggraph/pggraph/objstore"
)

// Child-process roles, selected by environment variable, so the test
// binary can race against copies of itself.
const (
	envChildRole = "PGGRAPH_OBJSTORE_CHILD"
	envChildDir  = "PGGRAPH_OBJSTORE_DIR"
	envChildID   = "PGGRAPH_OBJSTORE_ID"
	envChildWrap = "PGGRAPH_OBJSTORE_WRAP"
	envChildKeys = "PGGRAPH_OBJSTORE_KEYS"
)

func TestMain(m *testing.M) {
	switch os.Getenv(envChildRole) {
	case "race":
		os.Exit(childRace())
	case "churn":
		os.Exit(childChurn())
	}
	os.Exit(m.Run())
}

func childStore() (objstore.Store, error) {
	local, err := objstore.NewLocal(os.Getenv(envChildDir))
	if err != nil {
		return nil, err
	}
	switch os.Getenv(envChildWrap) {
	case "", "none":
		return local, nil
	case "faulty":
		return objstore.NewFaulty(local), nil
	case "counting":
		return objstore.NewCounting(local), nil
	case "tracing":
		return objstore.NewTracing(local), nil
	}
	return nil, fmt.Errorf("unknown wrapper %q", os.Getenv(envChildWrap))
}

// childRace waits for a line on stdin (the start signal), then tries to
// create every key once, in random order, printing "win <key>" or
// "lose <key>" per attempt.
func childRace() int {
	s, err := childStore()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	keys, _ := strconv.Atoi(os.Getenv(envChildKeys))
	id := os.Getenv(envChildID)
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		return 2
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for _, k := range rand.Perm(keys) {
		key := fmt.Sprintf("cas/%05d", k)
		err := s.PutIfAbsent(context.Background(), key, []byte(id))
		switch {
		case err == nil:
			fmt.Fprintln(out, "win", key)
		case objstore.IsExists(err):
			fmt.Fprintln(out, "lose", key)
		default:
			fmt.Fprintln(os.Stderr, "unexpected:", err)
			return 1
		}
	}
	return 0
}

// TestPutIfAbsentAcrossProcesses races child processes on the same keys
// of one directory: exactly one winner per key, every loser ErrExists,
// and the stored bytes are the winner's.
func TestPutIfAbsentAcrossProcesses(t *testing.T) {
	t.Parallel() // own server, store and directory; mostly waits on requests and fsyncs
	for _, wrap := range []string{"none", "faulty", "counting", "tracing"} {
		t.Run(wrap, func(t *testing.T) {
			raceProcesses(t, wrap, 4, 1000)
		})
	}
}

func raceProcesses(t *testing.T, wrap string, procs, keys int) {
	dir := t.TempDir()
	type result struct {
		id   int
		out  []byte
		err  error
		serr string
	}
	results := make([]result, procs)
	var wg sync.WaitGroup
	starts := make([]func(), procs)
	for i := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), envChildRole+"=race", envChildDir+"="+dir,
			envChildID+"="+strconv.Itoa(i), envChildWrap+"="+wrap, envChildKeys+"="+strconv.Itoa(keys))
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		starts[i] = func() { _, _ = stdin.Write([]byte("go\n")) }
		wg.Go(func() {
			err := cmd.Wait()
			results[i] = result{id: i, out: stdout.Bytes(), err: err, serr: stderr.String()}
		})
	}
	for _, s := range starts { // release all children as close together as possible
		s()
	}
	wg.Wait()
	winners := map[string][]int{}
	losers := map[string]int{}
	for _, r := range results {
		if r.err != nil {
			t.Fatalf("child %d: %v\n%s", r.id, r.err, r.serr)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(r.out)), "\n") {
			f := strings.Fields(line)
			if len(f) != 2 {
				t.Fatalf("child %d printed %q", r.id, line)
			}
			if f[0] == "win" {
				winners[f[1]] = append(winners[f[1]], r.id)
			} else {
				losers[f[1]]++
			}
		}
	}
	s, err := objstore.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	interleaved := 0
	for k := range keys {
		key := fmt.Sprintf("cas/%05d", k)
		w := winners[key]
		if len(w) != 1 || losers[key] != procs-1 {
			t.Fatalf("%s: winners %v, losers %d; want exactly 1 winner and %d losers", key, w, losers[key], procs-1)
		}
		got, err := s.Get(context.Background(), key)
		if err != nil || string(got) != strconv.Itoa(w[0]) {
			t.Fatalf("%s holds %q (%v), winner was %d", key, got, err, w[0])
		}
		if w[0] != 0 {
			interleaved++
		}
	}
	list, err := s.List(context.Background(), "")
	if err != nil || len(list) != keys {
		t.Fatalf("List found %d objects (%v), want %d: staging files must never be listed", len(list), err, keys)
	}
	t.Logf("%d keys, %d processes; %d keys won by a process other than 0", keys, procs, interleaved)
}

// childChurn overwrites one key forever with self-checking payloads of
// varying size; the parent kills it with SIGKILL at a random moment.
func childChurn() int {
	s, err := childStore()
	if err != nil {
		return 2
	}
	for v := 0; ; v++ {
		b := byte('a' + v%26)
		n := 1000 + (v*7919)%200000
		if err := s.Put(context.Background(), "churn/obj", bytes.Repeat([]byte{b}, n)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if v == 0 {
			fmt.Println("ready")
		}
		_ = s.PutIfAbsent(context.Background(), fmt.Sprintf("churn/v%06d", v), bytes.Repeat([]byte{b}, n))
	}
}

// TestKilledWriterLeavesNoPartialObject kills writers at random points:
// every object that exists afterwards is complete, and no staging file
// is ever listed.
func TestKilledWriterLeavesNoPartialObject(t *testing.T) {
	dir := t.TempDir()
	for round := range 8 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), envChildRole+"=churn", envChildDir+"="+dir)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil {
			t.Fatalf("round %d: child did not start: %v", round, err)
		}
		time.Sleep(time.Duration(5+rand.IntN(40)) * time.Millisecond)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()

		s, err := objstore.NewLocal(dir)
		if err != nil {
			t.Fatal(err)
		}
		list, err := s.List(context.Background(), "churn/")
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range list {
			b, err := s.Get(context.Background(), o.Key)
			if err != nil {
				t.Fatal(err)
			}
			if len(b) < 1000 || !bytes.Equal(b, bytes.Repeat(b[:1], len(b))) {
				t.Fatalf("round %d: %s is partial (%d bytes)", round, o.Key, len(b))
			}
		}
	}
}
