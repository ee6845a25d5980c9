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
