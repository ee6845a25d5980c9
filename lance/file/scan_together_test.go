package file

import (
	"context"
	"reflect"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/objstore"
)

// TestScanReadsColumnsTogether: a scan of every column of a file whose
// pages were flushed together fetches them with fewer reads than pages,
// none larger than maxCoalescedRead, and returns the rows written.
func TestScanReadsColumnsTogether(t *testing.T) {
	ctx := context.Background()
	s := benchSchema()
	rng := newRand(3)
	var recs []arrow.RecordBatch
	for range 4 {
		recs = append(recs, randomBatch(rng, memory.DefaultAllocator, s, 65536, 0.05))
	}
	store := objstore.NewMem()
	w, err := NewWriter(ctx, store, "f.lance", s, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	sizes := &rangeSizes{Store: store}
	r, err := Open(ctx, sizes, "f.lance")
	if err != nil {
		t.Fatal(err)
	}
	pages := 0
	for ci := range r.cols {
		pages += len(r.cols[ci].pages)
	}
	sizes.reset()
	out, err := r.ReadAll(ctx, ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reads, largest := sizes.get()
	t.Logf("%d pages in %d columns: %d reads, the largest %d bytes", pages, len(r.cols), reads, largest)
	if reads >= pages || largest > maxCoalescedRead {
		t.Fatalf("a full scan of %d pages made %d reads (largest %d bytes): want fewer reads than pages, each ≤ %d", pages, reads, largest, maxCoalescedRead)
	}
	row := 0
	for _, b := range out {
		for i := 0; i < int(b.NumRows()); i, row = i+1, row+1 {
			in := recs[row/65536]
			for c := range int(b.NumCols()) {
				if got, want := jsonValue(b.Column(c), i), jsonValue(in.Column(c), row%65536); !reflect.DeepEqual(got, want) {
					t.Fatalf("row %d column %d: %v, want %v", row, c, got, want)
				}
			}
		}
		b.Release()
	}
	if row != 4*65536 {
		t.Fatalf("scan returned %d rows", row)
	}
}

// rangeSizes counts a store's range reads and the largest.
type rangeSizes struct {
	objstore.Store
	mu      sync.Mutex
	n       int
	largest int64
}

func (c *rangeSizes) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	c.mu.Lock()
	c.n++
	c.largest = max(c.largest, n)
	c.mu.Unlock()
	return c.Store.GetRange(ctx, key, off, n)
}

func (c *rangeSizes) reset() {
	c.mu.Lock()
	c.n, c.largest = 0, 0
	c.mu.Unlock()
}

func (c *rangeSizes) get() (int, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n, c.largest
}
