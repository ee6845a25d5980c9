package lance

import (
	"context"
	"os"
	"testing"

	"github.com/pggraph/pggraph/lance/format"
	"github.com/pggraph/pggraph/objstore"
)

// FuzzOpenManifest stores arbitrary bytes as version 1's manifest and
// opens, scans (addresses only) and stages on it: corrupt manifests give
// errors, never panics.
func FuzzOpenManifest(f *testing.F) {
	for _, name := range []string{
		"testdata/oracle/g.lance/_versions/18446744073709551611.manifest",
		"testdata/oracle/g.lance/tree/feature/x/_versions/18446744073709551610.manifest",
	} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("LANC"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ctx := context.Background()
		mem := objstore.NewMem()
		if err := mem.Put(ctx, "t/_versions/"+manifestName(NamingV2, 1), b); err != nil {
			t.Fatal(err)
		}
		ds, err := Open(ctx, mem, "t", Options{Version: 1})
		if err != nil {
			return
		}
		sc, err := ds.Scan(ctx, ScanOptions{Columns: []string{}, WithRowAddress: true, BatchRows: 1 << 12})
		if err == nil {
			for i := 0; i < 4; i++ { // bounded: physical row counts may be huge
				rec, err := sc.Next(ctx)
				if err != nil {
					break
				}
				rec.Release()
			}
			sc.Close()
		}
		_ = ds.CountRows()
		if format.CheckWritable(ds.Manifest()) == nil {
			_, _ = ds.StageRestore(ctx, 1, StageOptions{})
		}
	})
}

// FuzzBranchRef stores arbitrary bytes as a branch ref of a small
// dataset and lists, opens (which may complete the branch) and deletes
// it: a malformed ref gives an error, never a panic.
func FuzzBranchRef(f *testing.F) {
	b, err := os.ReadFile("testdata/oracle/g.lance/_refs/branches/feature%2Fx.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	good, _ := encodeBranchRef(nil, []BranchVersionID{{Version: 1, ID: "0123456789abcdef0123456789abcdef"}}, 1, 1, 100)
	f.Add(good)
	f.Add([]byte(`{"parentBranch": "nope", "parentVersion": 1, "identifier": {"version_mapping": [[1, "zz"]]}}`))
	f.Add([]byte(`{"identifier": {"version_mapping": [[1]]}}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		ctx := context.Background()
		mem := objstore.NewMem()
		ds, err := Create(ctx, mem, "t", rowsReader(t, 0, 2, 2), Options{Location: "/t"})
		if err != nil {
			t.Fatal(err)
		}
		if err := mem.Put(ctx, "t/_refs/branches/b.json", raw); err != nil {
			t.Fatal(err)
		}
		if refs, err := ds.ListBranches(ctx); err == nil {
			for _, r := range refs {
				_, _ = r.VersionMapping()
				_ = r.ID()
				_ = r.ParentBranchName()
			}
		} else if !IsCorrupt(err) {
			t.Fatalf("list: untyped error %v", err)
		}
		if br, err := Open(ctx, mem, "t", Options{Branch: "b", Location: "/t"}); err == nil {
			_ = br.CountRows()
		}
		_ = ds.DeleteBranch(ctx, "b")
	})
}
