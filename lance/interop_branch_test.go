package lance

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/internal/oracle"
	"github.com/pggraph/pggraph/lance/format"
)

// copyCorpus copies the Lance-written corpus to dir/g.lance and points
// the branch manifests' base paths at the copy (re-encoding them with our
// codec), so Lance can read the relocated branch.
func copyCorpus(t *testing.T, dir string) {
	t.Helper()
	src := "testdata/oracle/g.lance"
	dst := filepath.Join(dir, "g.lance")
	err := filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, ".manifest") {
			mf, err := format.DecodeManifestFile(b)
			if err != nil {
				return err
			}
			for i := range mf.Manifest.BasePaths {
				mf.Manifest.BasePaths[i].Path = strings.Replace(mf.Manifest.BasePaths[i].Path, corpusLocation, dst, 1)
			}
			if b, err = format.EncodeManifestFile(mf.Manifest, mf.Transaction); err != nil {
				return err
			}
		}
		out := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// corpusOracleRows converts the oracle's rows of the corpus (id, name).
func corpusOracleRows(t *testing.T, d oracle.Dump) map[int64]*string {
	t.Helper()
	out := map[int64]*string{}
	for _, r := range d.Rows {
		var id int64
		if _, err := fmt.Sscan(fmt.Sprint(r["id"]), &id); err != nil {
			t.Fatal(err)
		}
		if n, ok := r["name"].(string); ok {
			out[id] = &n
		} else {
			out[id] = nil
		}
	}
	return out
}

func sameNames(t *testing.T, got, want map[int64]*string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for id, w := range want {
		g, ok := got[id]
		if !ok || (g == nil) != (w == nil) || (g != nil && *g != *w) {
			t.Fatalf("id %d: got %v want %v", id, g, w)
		}
	}
}

// TestInteropBranchWrites: on a branch Lance created, we append and
// delete (inherited fragments live in the parent, resolved through
// base_paths; our files go under tree/<branch>/), tag the branch version,
// and Lance reads all of it; main is untouched.
func TestInteropBranchWrites(t *testing.T) {
	ctx := context.Background()
	store, dir := localStore(t)
	copyCorpus(t, dir)

	br, err := Open(ctx, store, "g.lance", Options{Branch: "feature/x"})
	if err != nil {
		t.Fatal(err)
	}
	want := corpusWant(6, true)
	sameNames(t, corpusOracleRows(t, oracle.Read(t, dir, "g", oracle.OnBranch("feature/x"))), want)

	// delete an inherited row (fragment 0 lives in the parent) and a row
	// of the branch's own fragment
	addrs := map[int64]uint64{}
	sc, err := br.Scan(ctx, ScanOptions{Columns: []string{"id"}, WithRowAddress: true})
	if err != nil {
		t.Fatal(err)
	}
	for {
		rec, err := sc.Next(ctx)
		if err != nil {
			break
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			addrs[rec.Column(0).(*array.Int64).Value(i)] = rec.Column(1).(*array.Uint64).Value(i)
		}
		rec.Release()
	}
	sc.Close()
	st, err := br.StageDelete(ctx, []uint64{addrs[5], addrs[201]}, StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if br, err = st.Commit(ctx, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if br.Version() != 7 || br.Manifest().Branch == nil || *br.Manifest().Branch != "feature/x" {
		t.Fatalf("branch commit %d %v", br.Version(), br.Manifest().Branch)
	}
	if _, err := store.Stat(ctx, "g.lance/tree/feature/x/_versions/"+manifestName(NamingV2, 7)); err != nil {
		t.Fatal(err)
	}
	delete(want, 5)
	delete(want, 201)

	// append on the branch: the new file goes under tree/feature/x/data
	b := array.NewRecordBuilder(memory.DefaultAllocator, br.Schema())
	for id := int64(300); id < 303; id++ {
		b.Field(0).(*array.Int64Builder).Append(id)
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("b%d", id))
		s := fmt.Sprintf("b%d", id)
		want[id] = &s
	}
	rec := b.NewRecordBatch()
	b.Release()
	rdr, _ := array.NewRecordReader(br.Schema(), []arrow.RecordBatch{rec})
	rec.Release()
	if st, err = br.StageAppend(ctx, rdr, StageOptions{}); err != nil {
		t.Fatal(err)
	}
	if br, err = st.Commit(ctx, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	last := br.Fragments()[len(br.Fragments())-1]
	if last.Files[0].BaseID != nil {
		t.Fatal("branch-local file has a base id")
	}
	if _, err := store.Stat(ctx, "g.lance/tree/feature/x/data/"+last.Files[0].Path); err != nil {
		t.Fatal(err)
	}
	sameNames(t, corpusOracleRows(t, oracle.Read(t, dir, "g", oracle.OnBranch("feature/x"))), want)
	if _, err := br.CreateTag(ctx, "on-branch", 0); err != nil {
		t.Fatal(err)
	}
	sameNames(t, corpusOracleRows(t, oracle.Read(t, dir, "g", oracle.AtTag("on-branch"))), want)
	// main did not move
	sameNames(t, corpusOracleRows(t, oracle.Read(t, dir, "g")), corpusWant(7, false))
	if tags := oracle.Tags(t, dir, "g"); tags["on-branch"].Version != 8 {
		t.Fatalf("tags %+v", tags)
	}
}

// TestRebaseOverLanceTransactions: stale stagers at version 4 of the
// Lance-written corpus rebase over Lance's own Update (merge-insert),
// ReserveFragments and Rewrite (compaction) transactions.
func TestRebaseOverLanceTransactions(t *testing.T) {
	ctx := context.Background()
	store, dir := localStore(t)
	copyCorpus(t, dir)
	v4, err := Open(ctx, store, "g.lance", Options{Version: 4})
	if err != nil {
		t.Fatal(err)
	}
	// a delete of fragment 1 conflicts with the compaction that rewrote it
	del, err := v4.StageDelete(ctx, []uint64{RowAddress(1, 0)}, StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rewrite, err := v4.Transaction(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	_, err = del.Commit(ctx, CommitOptions{Mode: CommitRebase})
	var ce *ConflictError
	if !errors.As(err, &ce) || ce.Kind != ConflictRetryable || ce.Version != 7 || ce.WinnerUUID() != rewrite.UUID {
		t.Fatalf("want retryable conflict with the Rewrite at v7, got %v", err)
	}
	// an append rebases over all three and gets a fresh fragment id
	b := array.NewRecordBuilder(memory.DefaultAllocator, v4.Schema())
	b.Field(0).(*array.Int64Builder).Append(777)
	b.Field(1).(*array.StringBuilder).Append("late")
	rec := b.NewRecordBatch()
	b.Release()
	rdr, _ := array.NewRecordReader(v4.Schema(), []arrow.RecordBatch{rec})
	rec.Release()
	app, err := v4.StageAppend(ctx, rdr, StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := app.Commit(ctx, CommitOptions{Mode: CommitRebase})
	if err != nil {
		t.Fatal(err)
	}
	frs := got.Fragments()
	if got.Version() != 8 || frs[len(frs)-1].ID != 5 {
		t.Fatalf("v%d last fragment %d", got.Version(), frs[len(frs)-1].ID)
	}
	want := corpusWant(7, false)
	s := "late"
	want[777] = &s
	sameNames(t, corpusOracleRows(t, oracle.Read(t, dir, "g")), want)
}
