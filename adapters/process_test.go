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
	"time"

	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/protocol"
	"github.com/pggraph/pggraph/recovery"
)

// TestMain lets the test binary act as a separate writer process.
func TestMain(m *testing.M) {
	if os.Getenv("PGGRAPH_CHILD_WRITER") != "" {
		os.Exit(childWriter())
	}
	if os.Getenv("PGGRAPH_CHILD_LOOP") != "" {
		os.Exit(childLoop())
	}
	code := m.Run()
	removeSeedTemplates()
	os.Exit(code)
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

// childLoop commits forever (until killed): each commit inserts one id
// into its own table and into "shared" (one graph commit), printing
// "ack <commit> <id>" after the commit returns and "try <id>" before.
func childLoop() int {
	dir := os.Getenv("PGGRAPH_CHILD_DIR")
	own := os.Getenv("PGGRAPH_CHILD_TABLE")
	base, _ := strconv.Atoi(os.Getenv("PGGRAPH_CHILD_BASE"))
	store, err := objstore.NewLocal(dir)
	if err != nil {
		fmt.Println("error", err)
		return 2
	}
	ctx := context.Background()
	g, err := Open(ctx, store, Options{Actor: "loop-" + own, Location: "/test-root"})
	if err != nil {
		fmt.Println("error", err)
		return 2
	}
	w := bufio.NewWriter(os.Stdout)
	fmt.Fprintf(w, "pid %d recoverer %s\n", os.Getpid(), g.Recovery.Instance())
	for i := 0; ; i++ {
		id := int64(base + i)
		fmt.Fprintf(w, "try %d\n", id)
		w.Flush()
		rc, err := g.Write(ctx, WriteOptions{MaxReprepare: 50}, func(ctx context.Context, s *Stage) error {
			if err := s.Insert(own, rowsOf(id)); err != nil {
				return err
			}
			return s.Insert("shared", rowsOf(id))
		})
		switch {
		case err == nil:
			fmt.Fprintf(w, "ack %s %d\n", rc.CommitID, id)
		case protocol.Retryable(err) || protocol.IsRecoveryRequired(err):
			fmt.Fprintf(w, "noack %d %s\n", id, protocol.SQLState(err))
		default:
			fmt.Fprintf(w, "error %v\n", err)
			if protocol.IsUncoveredDrift(err) {
				dumpRoot(ctx, g, w)
			}
			w.Flush()
			return 1
		}
		w.Flush()
	}
}

// dumpRoot prints what one CI failure needs to diagnose drift: for
// every table its pin, its Lance HEAD as a cold open sees it, the raw
// version hint, every version file with its transaction (uuid, op,
// properties, time); every pending sidecar (phase, owner, lease, and
// each effect's pin, planned uuid and confirmed version); every manifest
// version with its commit and pins; the audit log.
func dumpRoot(ctx context.Context, g *Graph, w *bufio.Writer) {
	fmt.Fprintf(w, "dump pid %d at %s\n", os.Getpid(), time.Now().UTC().Format(time.RFC3339Nano))
	sn, err := g.Head(ctx, "")
	if err != nil {
		fmt.Fprintf(w, "dump head: %v\n", err)
		return
	}
	names := sn.Catalog().Tables()
	for _, e := range names {
		fmt.Fprintf(w, "dump table %s key=%s location=%s branch=%q pin=%d epoch=%d\n", e.Name, e.Key(), e.Location, e.Branch, e.Version, e.Epoch)
		ds, err := lance.Open(ctx, g.Root.Store(), e.Location, g.Root.DatasetOptions(e.Location, e.Branch, 0))
		if err != nil {
			fmt.Fprintf(w, "dump   open: %v\n", err)
			continue
		}
		fmt.Fprintf(w, "dump   cold-open HEAD %d\n", ds.Version())
		hint, herr := g.Root.Store().Get(ctx, e.Location+"/_versions/latest_version_hint.json")
		fmt.Fprintf(w, "dump   hint %q %v\n", hint, herr)
		if objs, err := g.Root.Store().List(ctx, e.Location+"/_versions/"); err == nil {
			for _, o := range objs {
				fmt.Fprintf(w, "dump   file %s size=%d mtime=%s\n", o.Key, o.Size, o.ModTime.UTC().Format(time.RFC3339Nano))
			}
		}
		vs, err := ds.ListVersions(ctx)
		if err != nil {
			fmt.Fprintf(w, "dump   versions: %v\n", err)
		}
		for _, v := range vs {
			props := map[string]string{}
			if t, err := ds.Transaction(ctx, v.Version); err == nil {
				props = t.Properties
			}
			fmt.Fprintf(w, "dump   v%d uuid=%s op=%s time=%s props=%v\n", v.Version, v.TransactionUUID, v.Operation, v.Timestamp.UTC().Format(time.RFC3339Nano), props)
		}
	}
	pending, bad, err := g.Recovery.Pending(ctx)
	if err != nil {
		fmt.Fprintf(w, "dump sidecars: %v\n", err)
	}
	for k, e := range bad {
		fmt.Fprintf(w, "dump sidecar %s unreadable: %v\n", k, e)
	}
	for _, sc := range pending {
		fmt.Fprintf(w, "dump sidecar %s phase=%s owner=%s/%d/%s lease=%s created=%s base=v%d\n", sc.OperationID, sc.Phase, sc.Owner.Host, sc.Owner.PID,
			sc.Owner.Instance, sc.Owner.LeaseExpiry.Format(time.RFC3339Nano), sc.CreatedAt.Format(time.RFC3339Nano), sc.Write.Base.ManifestVersion)
		for _, e := range sc.Write.Effects {
			conf := "-"
			if e.Confirmed != nil {
				conf = fmt.Sprint(e.Confirmed.Version)
			}
			fmt.Fprintf(w, "dump   effect %s kind=%s pin=%d txn=%s confirmed=%s\n", e.Table, e.Kind, e.ExpectedVersion, e.TxnUUID, conf)
		}
	}
	h, _ := g.Root.History(ctx, "")
	for _, s := range h {
		var pins []string
		for _, e := range names {
			if te, ok := s.State.TableByName(e.Name); ok {
				pins = append(pins, fmt.Sprintf("%s=%d/e%d", e.Name, te.Version, te.Epoch))
			}
		}
		fmt.Fprintf(w, "dump manifest v%d commit=%s op=%s rec=%s actor=%s time=%s pins=%v\n", s.Version, s.Commit.ID, s.Commit.OperationID, s.Commit.Recovery,
			s.Commit.Actor, s.Commit.Time.Format(time.RFC3339Nano), pins)
	}
	recs, _ := recovery.ReadAudit(ctx, g.Root)
	for _, r := range recs {
		fmt.Fprintf(w, "dump audit %+v\n", r)
	}
}

// TestKillNineLoop runs writer processes on one root and SIGKILLs them
// mid-write, restarting each, for several rounds. Afterwards the history
// checker confirms every acknowledged commit is visible exactly once,
// every commit is all-or-nothing (its id is in both tables or neither),
// and a final write leaves no sidecar.
func TestKillNineLoop(t *testing.T) {
	const procs, minRounds, maxRounds = 2, 4, 10
	dir := t.TempDir()
	store, err := objstore.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	g := openGraph(t, store, true)
	createTables(t, g, "k0", "k1", "shared")
	g.Close()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var acked []string
	ackedIDs := map[int64]bool{}
	rounds := 0
	for r := 0; r < maxRounds && (r < minRounds || len(ackedIDs) == 0); r++ {
		rounds++
		type child struct {
			cmd *exec.Cmd
			out *strings.Builder
		}
		var kids []child
		for p := 0; p < procs; p++ {
			cmd := exec.Command(self, "-test.run=^$")
			cmd.Env = append(os.Environ(), "PGGRAPH_CHILD_LOOP=1", "PGGRAPH_CHILD_DIR="+dir,
				fmt.Sprintf("PGGRAPH_CHILD_TABLE=k%d", p), fmt.Sprintf("PGGRAPH_CHILD_BASE=%d", (r*procs+p)*100000))
			var out strings.Builder
			cmd.Stdout = &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			kids = append(kids, child{cmd, &out})
		}
		time.Sleep(time.Duration(150+100*r) * time.Millisecond)
		for _, k := range kids {
			_ = k.cmd.Process.Kill() // SIGKILL: no cleanup of any kind
			_ = k.cmd.Wait()
			for _, l := range strings.Split(k.out.String(), "\n") {
				f := strings.Fields(l)
				if len(f) == 3 && f[0] == "ack" {
					acked = append(acked, f[1])
					id, _ := strconv.ParseInt(f[2], 10, 64)
					ackedIDs[id] = true
				}
				if len(f) > 0 && f[0] == "error" {
					t.Fatalf("child: %s\n%s", l, k.out.String())
				}
			}
		}
	}
	g = openGraph(t, store, false)
	defer g.Close()
	// the next write resolves whatever the kills left behind
	if err := insert(context.Background(), g, WriteOptions{}, map[string][]int64{"k0": {-1}}); err != nil {
		t.Fatal(err)
	}
	checkHistory(t, g, acked)
	sn := head(t, g)
	shared, _ := readIDs(t, g, sn, "shared")
	own0, _ := readIDs(t, g, sn, "k0")
	own1, _ := readIDs(t, g, sn, "k1")
	own := map[int64]bool{}
	for _, id := range append(own0, own1...) {
		if id != -1 {
			own[id] = true
		}
	}
	sharedSet := map[int64]bool{}
	for _, id := range shared {
		if sharedSet[id] {
			t.Fatalf("id %d twice in shared", id)
		}
		sharedSet[id] = true
		if !own[id] {
			t.Fatalf("torn commit: id %d in shared but not in its own table", id)
		}
	}
	for id := range own {
		if !sharedSet[id] {
			t.Fatalf("torn commit: id %d in its own table but not in shared", id)
		}
	}
	for id := range ackedIDs {
		if !sharedSet[id] {
			t.Fatalf("acknowledged id %d lost", id)
		}
	}
	if objs, _ := store.List(context.Background(), "__recovery/"); len(objs) != 0 {
		t.Fatalf("sidecars left: %v", objs)
	}
	if len(ackedIDs) == 0 {
		t.Fatal("no commit was acknowledged; the loop measured nothing")
	}
	t.Logf("kill -9 loop: %d rounds × %d processes, %d acknowledged commits, %d visible", rounds, procs, len(ackedIDs), len(sharedSet))
}
