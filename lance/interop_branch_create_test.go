package lance

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/pggraph/pggraph/internal/oracle"
)

// opsOracle runs testdata/oracle/ops.js with the oracle's
// node_modules and decodes its JSON output into out.
func opsOracle(t *testing.T, out any, args ...string) {
	t.Helper()
	oracle.SkipShort(t)
	if err := oracle.Ready(); err != nil {
		t.Fatalf("the Lance oracle is not installed (%v): run `%s` from the repository root", err, oracle.InstallCommand)
	}
	script, err := filepath.Abs("testdata/oracle/ops.js")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", append([]string{script}, args...)...)
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(oracle.Dir(), "node_modules"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("ops.js %v: %v\n%s", args, err, stderr.String())
	}
	if out != nil {
		if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
			t.Fatalf("ops.js %v output %q: %v", args, stdout.String(), err)
		}
	}
}

type oracleBranch struct {
	ParentBranch  *string `json:"parentBranch"`
	ParentVersion uint64  `json:"parentVersion"`
	ManifestSize  int64   `json:"manifestSize"`
}

type oracleCount struct {
	Version uint64 `json:"version"`
	Rows    int    `json:"rows"`
}

func listOracleBranches(t *testing.T, dir string) map[string]oracleBranch {
	t.Helper()
	var m map[string]oracleBranch
	opsOracle(t, &m, "list", dir, "t")
	return m
}

// TestInteropBranchCreateDelete: branches we create are listed, checked
// out (latest and pinned), read, appended to and deleted from by Lance;
// we read what Lance wrote on them and Lance's fork of them, branch off
// them, and delete a branch Lance created, after which Lance re-creates
// it.
func TestInteropBranchCreateDelete(t *testing.T) {
	ctx := context.Background()
	store, dir := localStore(t)
	main, err := Create(ctx, store, "t.lance", rowsReader(t, 0, 50, 50), Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := main.StageAppend(ctx, rowsReader(t, 50, 100, 50), StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if main, err = st.Commit(ctx, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	v1, err := main.Checkout(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	br, err := main.CreateBranch(ctx, "feat/a", 1)
	if err != nil {
		t.Fatal(err)
	}
	if st, err = br.StageAppend(ctx, rowsReader(t, 100, 120, 20), StageOptions{}); err != nil {
		t.Fatal(err)
	}
	if br, err = st.Commit(ctx, CommitOptions{}); err != nil {
		t.Fatal(err)
	}

	// Lance lists, checks out and reads our branch
	bs := listOracleBranches(t, dir)
	if b, ok := bs["feat/a"]; !ok || b.ParentBranch != nil || b.ParentVersion != 1 || b.ManifestSize != v1.ManifestSize() || len(bs) != 1 {
		t.Fatalf("Lance lists %+v", bs)
	}
	want := append(idRange(0, 50), idRange(100, 120)...)
	checkRows(t, oracleRows(t, oracle.Read(t, dir, "t", oracle.OnBranch("feat/a"))), want)
	var c oracleCount
	opsOracle(t, &c, "count", dir, "t", "feat/a", "1")
	if c.Rows != 50 || c.Version != 1 {
		t.Fatalf("Lance at feat/a@1: %+v", c)
	}

	// Lance appends and deletes on our branch; we read the result
	opsOracle(t, &c, "append", dir, "t", "feat/a", "300", "310")
	opsOracle(t, &c, "delete-rows", dir, "t", "feat/a", "id < 5")
	if c.Version != 4 {
		t.Fatalf("Lance's commits on feat/a: %+v", c)
	}
	want = append(append(idRange(5, 50), idRange(100, 120)...), idRange(300, 310)...)
	got, err := br.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got.Version() != 4 {
		t.Fatalf("we see feat/a at %d", got.Version())
	}
	checkRows(t, scanAll(t, got, ScanOptions{}), want)

	// a branch of our branch (made by us after Lance's commits); Lance
	// reads and appends to it
	sub, err := got.CreateBranch(ctx, "feat/a/b", 0)
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, oracleRows(t, oracle.Read(t, dir, "t", oracle.OnBranch("feat/a/b"))), want)
	opsOracle(t, &c, "append", dir, "t", "feat/a/b", "400", "402")
	if sub, err = sub.Latest(ctx); err != nil {
		t.Fatal(err)
	}
	checkRows(t, scanAll(t, sub, ScanOptions{}), append(want, 400, 401))
	if bs := listOracleBranches(t, dir); bs["feat/a/b"].ParentBranch == nil || *bs["feat/a/b"].ParentBranch != "feat/a" || bs["feat/a/b"].ParentVersion != 4 {
		t.Fatalf("Lance lists %+v", bs)
	}

	// Lance forks our branch; we read Lance's fork (its inherited files
	// resolve through base paths into our tree and the root) and tag it
	opsOracle(t, &c, "create", dir, "t", "lance-fork", "feat/a")
	fork, err := main.CheckoutBranch(ctx, "lance-fork")
	if err != nil {
		t.Fatal(err)
	}
	if fork.Version() != 4 || len(fork.Manifest().BasePaths) != 2 {
		t.Fatalf("Lance's fork of our branch: v%d base paths %+v", fork.Version(), fork.Manifest().BasePaths)
	}
	checkRows(t, scanAll(t, fork, ScanOptions{}), want)
	if ref, err := main.BranchRef(ctx, "lance-fork"); err != nil || ref.ParentBranchName() != "feat/a" {
		t.Fatalf("fork ref %+v %v", ref, err)
	}
	if _, err := fork.CreateTag(ctx, "fork-tag", 0); err != nil {
		t.Fatal(err)
	}
	checkRows(t, oracleRows(t, oracle.Read(t, dir, "t", oracle.AtTag("fork-tag"))), want)
	if err := main.DeleteBranch(ctx, "lance-fork"); err != nil {
		t.Fatal(err)
	}

	// Lance creates a branch, we delete it (ref and tree), Lance agrees
	// and re-creates it at the same version
	opsOracle(t, &c, "create", dir, "t", "lx")
	if err := main.DeleteBranch(ctx, "feat/a"); !IsInUse(err) {
		t.Fatalf("deleting a parent: %v", err)
	}
	if err := main.DeleteBranch(ctx, "lx"); err != nil {
		t.Fatal(err)
	}
	// (the local store may leave empty directories; no file may remain)
	_ = filepath.WalkDir(filepath.Join(dir, "t.lance", "tree", "lx"), func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			t.Errorf("tree/lx not reclaimed: %s", p)
		}
		return nil
	})
	if _, ok := listOracleBranches(t, dir)["lx"]; ok {
		t.Fatal("Lance still lists lx")
	}
	opsOracle(t, &c, "create", dir, "t", "lx")
	if c.Version != 2 || c.Rows != 100 {
		t.Fatalf("Lance re-created lx: %+v", c)
	}
	// Lance deletes our nested branch; we see it gone and delete its parent
	opsOracle(t, nil, "delete", dir, "t", "feat/a/b")
	if _, err := main.CheckoutBranch(ctx, "feat/a/b"); !IsNotFound(err) {
		t.Fatalf("feat/a/b after Lance deleted it: %v", err)
	}
	if err := main.DeleteBranch(ctx, "feat/a"); err != nil {
		t.Fatal(err)
	}
	if bs := listOracleBranches(t, dir); len(bs) != 1 {
		t.Fatalf("Lance lists %+v", bs)
	}
	// main never moved
	checkRows(t, oracleRows(t, oracle.Read(t, dir, "t")), idRange(0, 100))
}

// TestInteropRefNames: Lance accepts exactly the branch and tag names
// ValidateBranchName and ValidateTagName accept.
func TestInteropRefNames(t *testing.T) {
	ctx := context.Background()
	store, dir := localStore(t)
	if _, err := Create(ctx, store, "t.lance", rowsReader(t, 0, 3, 3), Options{}); err != nil {
		t.Fatal(err)
	}
	common := []string{"ok", "a.b", "A-_9", "main", "a..b", "a.lock", "a b", "a\\b", "ü", "日本", "Ⅷ", "٣",
		"e\u0301", ".a", "a.", "-a", "_", "a:b", "a*b", "a~b", "a^b", "a@{b", "a?", "a\u200bb"}
	for _, tc := range []struct {
		kind     string
		extra    []string
		validate func(string) error
	}{
		{"branch", []string{"a/b", "x/y/z", "a//b", "/a", "a/", "a/./b", "a/.lock/b", "a/../b"}, ValidateBranchName},
		{"tag", []string{"a/b"}, ValidateTagName},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			names := append(append([]string{}, common...), tc.extra...)
			var accepted map[string]bool
			opsOracle(t, &accepted, append([]string{"try-" + tc.kind + "-names", dir, "t"}, names...)...)
			for _, n := range names {
				ours := tc.validate(n) == nil
				if got, ok := accepted[n]; !ok || ours != got {
					t.Errorf("%s name %q: Lance accepts=%v (reported %v), we accept=%v", tc.kind, n, got, ok, ours)
				}
			}
		})
	}
}

// TestInteropBranchOfV1Dataset: like Lance, a branch of a V1-named
// dataset gets V2 manifest names; Lance reads it and appends to it.
func TestInteropBranchOfV1Dataset(t *testing.T) {
	ctx := context.Background()
	store, dir := localStore(t)
	ds, err := Create(ctx, store, "t.lance", rowsReader(t, 0, 10, 10), Options{Naming: NamingV1})
	if err != nil {
		t.Fatal(err)
	}
	br, err := ds.CreateBranch(ctx, "v1b", 0)
	if err != nil {
		t.Fatal(err)
	}
	if br.Naming() != NamingV2 {
		t.Fatalf("branch naming %s", br.Naming())
	}
	if _, err := store.Stat(ctx, "t.lance/tree/v1b/_versions/"+manifestName(NamingV2, 1)); err != nil {
		t.Fatal(err)
	}
	var c oracleCount
	opsOracle(t, &c, "append", dir, "t", "v1b", "10", "12")
	if c.Version != 2 || c.Rows != 12 {
		t.Fatalf("Lance on the branch: %+v", c)
	}
	got, err := br.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, scanAll(t, got, ScanOptions{}), idRange(0, 12))
	if main, err := ds.Latest(ctx); err != nil || main.Naming() != NamingV1 || main.Version() != 1 {
		t.Fatalf("main %v %v", main, err)
	}
}
