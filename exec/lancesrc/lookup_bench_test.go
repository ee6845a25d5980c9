package lancesrc

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
)

// BenchmarkLookupKeysOne is the storage side of a point lookup by
// primary key: one int8 key through the key index and a by-address read
// of two columns of a 1M-row dataset.
func BenchmarkLookupKeysOne(b *testing.B) {
	const rows = 1 << 20
	mem := newPersonDataset(b, rows)
	b.Run("mem", func(b *testing.B) { benchLookupOne(b, mem, rows) })
	// the same dataset copied to a local directory (a read is a file
	// open, stat, pread and close)
	dir := b.TempDir()
	local, err := objstore.NewLocal(dir)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	objs, err := mem.Store().List(ctx, "")
	if err != nil {
		b.Fatal(err)
	}
	for _, o := range objs {
		data, err := mem.Store().Get(ctx, o.Key)
		if err != nil {
			b.Fatal(err)
		}
		if err := local.Put(ctx, o.Key, data); err != nil {
			b.Fatal(err)
		}
	}
	onDisk, err := lance.Open(ctx, local, "person.lance", lance.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("local", func(b *testing.B) { benchLookupOne(b, onDisk, rows) })
	// as served: data files kept open (objstore.Local.CacheImmutableReads)
	served, err := objstore.NewLocal(dir)
	if err != nil {
		b.Fatal(err)
	}
	served.CacheImmutableReads(lance.IsDataFileKey, 64)
	onDiskServed, err := lance.Open(ctx, served, "person.lance", lance.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("local-open-files", func(b *testing.B) { benchLookupOne(b, onDiskServed, rows) })
}

func benchLookupOne(b *testing.B, ds *lance.Dataset, rows int64) {
	cols := []exec.ColumnDef{{Name: "id", Type: exec.TInt8, NotNull: true}, {Name: "name", Type: exec.TText}, {Name: "score", Type: exec.TFloat8}}
	src := New(ds, cols, []int{0})
	ctx := context.Background()
	keys := exec.NewVec(exec.TInt8, 1)
	req := exec.ScanRequest{Columns: []int{0, 1}}
	found := 0
	emit := func(rec arrow.RecordBatch, _ []uint64) error {
		found += int(rec.NumRows())
		return nil
	}
	keys.I[0] = 7
	if err := src.LookupKeys(ctx, 0, keys, req, emit); err != nil || found != 1 {
		b.Fatalf("warm-up: %d rows, %v", found, err)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		keys.I[0] = int64(i*7919) % rows
		found = 0
		if err := src.LookupKeys(ctx, 0, keys, req, emit); err != nil || found != 1 {
			b.Fatalf("%d rows, %v", found, err)
		}
	}
}
