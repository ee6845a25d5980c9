package adapters

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/protocol"
)

// TestMain lets the test binary act as a separate writer process.
func TestMain(m *testing.M) {
	if os.Getenv("PGGRAPH_CHILD_WRITER") != "" {
		os.Exit(childWriter())
	}
	os.Exit(m.Run())
}

// childWriter commits rows base..base+n-1 into its own table and into
// the shared one, printing "ack <commit> <table> <id>" per commit.
func childWriter() int {
	dir := os.Getenv("PGGRAPH_CHILD_DIR")
	own := os.Getenv("PGGRAPH_CHILD_TABLE")
	base, _ := strconv.Atoi(os.Getenv("PGGRAPH_CHILD_BASE"))
	n, _ := strconv.Atoi(os.Getenv("PGGRAPH_CHILD_N"))
	store, err := objstore.NewLocal(dir)
	if err != nil {
		fmt.Println("error", err)
		return 2
	}
	ctx := context.Background()
	g, err := Open(ctx, store, Options{Actor: "child-" + own})
	if err != nil {
		fmt.Println("error", err)
		return 2
	}
	defer g.Close()
	for i := 0; i < n; i++ {
		id := int64(base + i)
		for _, tbl := range []string{own, "shared"} {
			rc, err := g.Write(ctx, WriteOptions{MaxReprepare: 50}, func(ctx context.Context, s *Stage) error {
				return s.Insert(tbl, rowsOf(id))
			})
			switch {
			case err == nil:
				fmt.Printf("ack %s %s %d\n", rc.CommitID, tbl, id)
			case protocol.Retryable(err):
				fmt.Printf("conflict %s %d %s\n", tbl, id, protocol.SQLState(err))
			default:
				fmt.Println("error", err)
				return 1
			}
		}
	}
	return 0
}

func TestConcurrentProcesses(t *testing.T) {
	const procs, n = 3, 4
	dir := t.TempDir()
	store, err := objstore.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	g := openGraph(t, store, true)
	createTables(t, g, "p0", "p1", "p2", "shared")
	g.Close()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		out string
		err error
	}
	results := make(chan result, procs)
	for p := 0; p < procs; p++ {
		cmd := exec.Command(self, "-test.run=^$")
		cmd.Env = append(os.Environ(), "PGGRAPH_CHILD_WRITER=1", "PGGRAPH_CHILD_DIR="+dir,
			fmt.Sprintf("PGGRAPH_CHILD_TABLE=p%d", p), fmt.Sprintf("PGGRAPH_CHILD_BASE=%d", p*1000),
			fmt.Sprintf("PGGRAPH_CHILD_N=%d", n))
		go func() {
			out, err := cmd.CombinedOutput()
			results <- result{string(out), err}
		}()
	}
	var acked []string
	want := map[string][]int64{}
	for p := 0; p < procs; p++ {
		r := <-results
		if r.err != nil {
			t.Fatalf("child failed: %v\n%s", r.err, r.out)
		}
		sc := bufio.NewScanner(strings.NewReader(r.out))
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) == 4 && f[0] == "ack" {
				acked = append(acked, f[1])
				id, _ := strconv.ParseInt(f[3], 10, 64)
				want[f[2]] = append(want[f[2]], id)
			} else if len(f) > 0 && f[0] == "error" {
				t.Fatalf("child: %s", sc.Text())
			}
		}
	}
	g = openGraph(t, store, false)
	defer g.Close()
	checkHistory(t, g, acked)
	sn := head(t, g)
	for _, tbl := range []string{"p0", "p1", "p2", "shared"} {
		w := want[tbl]
		sort.Slice(w, func(i, j int) bool { return w[i] < w[j] })
		got, _ := readIDs(t, g, sn, tbl)
		if !slices.Equal(got, w) {
			t.Fatalf("%s: graph has %v, acknowledged %v", tbl, got, w)
		}
	}
	// disjoint tables: every commit of every process landed
	for p := 0; p < procs; p++ {
		if len(want[fmt.Sprintf("p%d", p)]) != n {
			t.Fatalf("disjoint writer p%d: %d of %d commits acknowledged", p, len(want[fmt.Sprintf("p%d", p)]), n)
		}
	}
	if objs, _ := store.List(context.Background(), "__recovery/"); len(objs) != 0 {
		t.Fatalf("sidecars left: %v", objs)
	}
}
