package file

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/pggraph/pggraph/objstore"
)

// FuzzReader opens and fully scans arbitrary bytes, in memory and through
// a store (where pages are decoded in place in the fresh read buffers): it
// must return a typed error or batches, never panic.
func FuzzReader(f *testing.F) {
	for _, p := range []string{"worked-example.lance", "lance-plain/data/000.lance", "lance-default/data/000.lance", "lance-encodings/data/000.lance", "lance-zstd-bss/data/000.lance", "lance-lists/data/000.lance"} {
		b, err := os.ReadFile(filepath.Join("testdata", p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("LANC"))
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzScan(t, b, false)
		fuzzScan(t, b, true)
	})
}

func fuzzScan(t *testing.T, b []byte, viaStore bool) {
	ctx := context.Background()
	var r *Reader
	var err error
	if viaStore {
		store := objstore.NewMem()
		if err := store.Put(ctx, "f.lance", b); err != nil {
			t.Fatal(err)
		}
		r, err = Open(ctx, store, "f.lance")
	} else {
		r, err = OpenBytes(b)
	}
	if err != nil {
		if !IsCorrupt(err) && !IsUnsupported(err) {
			t.Fatalf("untyped open error: %v", err)
		}
		return
	}
	fuzzSparse(t, r)
	// A tiny file may legitimately claim billions of all-null rows;
	// scan a bounded prefix.
	sc, err := r.Scan(ScanOptions{BatchRows: 1000})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	for i := 0; i < 50; i++ {
		rec, err := sc.Next(ctx)
		if err == io.EOF {
			return
		}
		if err != nil {
			if !IsCorrupt(err) && !IsUnsupported(err) {
				t.Fatalf("untyped scan error: %v", err)
			}
			return
		}
		rec.Release()
	}
}

// fuzzSparse reads the first and last row of (at most 50) pages of every
// column sparsely: a typed error or rows, never a panic.
func fuzzSparse(t *testing.T, r *Reader) {
	ctx := context.Background()
	for ci, cm := range r.cols {
		for pi, pm := range cm.pages[:min(len(cm.pages), 50)] {
			if pm.length == 0 || (pm.layout.kind == layoutAllNull && len(pm.layout.layers) <= 1) {
				continue
			}
			for _, lo := range []uint64{0, pm.length - 1} {
				a, _, err := r.decodeRows(ctx, ci, pi, lo, lo+1)
				if err != nil {
					if !IsCorrupt(err) && !IsUnsupported(err) {
						t.Fatalf("untyped sparse read error: %v", err)
					}
					continue
				}
				a.Release()
			}
		}
	}
}
