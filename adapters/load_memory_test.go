package adapters

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/objstore"
)

// dataSink is an in-memory store that keeps only the size of data files
// (everything else — transactions, manifests, sidecars — is stored), so
// a load's heap profile is the write path's own, not the backend's copy
// of the data.
type dataSink struct {
	*objstore.Mem
	dataBytes atomic.Int64
	dataFiles atomic.Int64
}

func (d *dataSink) Put(ctx context.Context, key string, b []byte) error {
	if strings.Contains(key, "/data/") {
		d.dataBytes.Add(int64(len(b)))
		d.dataFiles.Add(1)
		return nil
	}
	return d.Mem.Put(ctx, key, b)
}

// PutNew is how data files are created (objstore.PutNew).
func (d *dataSink) PutNew(ctx context.Context, key string, b []byte) error {
	if strings.Contains(key, "/data/") {
		d.dataBytes.Add(int64(len(b)))
		d.dataFiles.Add(1)
		return nil
	}
	return d.Mem.PutNew(ctx, key, b)
}

// wideSource streams n rows (id, a 56-byte string) generated lazily in
// batches of 8192: nothing holds the whole input.
func wideSource(n int) Source {
	return func(ctx context.Context) (array.RecordReader, error) { return &wideReader{n: n}, nil }
}

type wideReader struct {
	n, done int
	cur     arrow.RecordBatch
}

func (l *wideReader) Retain()               {}
func (l *wideReader) Release()              {}
func (l *wideReader) Schema() *arrow.Schema { return testSchema }
func (l *wideReader) Err() error            { return nil }
func (l *wideReader) Next() bool {
	if l.cur != nil {
		l.cur.Release()
		l.cur = nil
	}
	if l.done >= l.n {
		return false
	}
	k := min(8192, l.n-l.done)
	b := array.NewRecordBuilder(memory.DefaultAllocator, testSchema)
	defer b.Release()
	ids, vs := b.Field(0).(*array.Int64Builder), b.Field(1).(*array.StringBuilder)
	for i := 0; i < k; i++ {
		ids.Append(int64(l.done + i))
		vs.Append(fmt.Sprintf("row-%012d-padding-padding-padding-padding-", l.done+i))
	}
	l.done += k
	l.cur = b.NewRecordBatch()
	return true
}
func (l *wideReader) RecordBatch() arrow.RecordBatch { return l.cur }
func (l *wideReader) Record() arrow.RecordBatch      { return l.cur }

// peakHeap samples the live heap while f runs and returns the peak
// above the starting heap.
func peakHeap(f func()) (peak uint64) {
	// collect often, so the sampled heap tracks live memory rather than
	// the collector's pacing
	defer debug.SetGCPercent(debug.SetGCPercent(25))
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > base && ms.HeapAlloc-base > peak {
				peak = ms.HeapAlloc - base
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	f()
	close(done)
	<-stopped
	return peak
}

// TestLoadMemoryIsBounded: a 2M-row COPY (about 130 MB of Arrow data) is
// one graph commit and the heap never grows by more than a fixed
// budget, far below the data size: rows are streamed into data files
// of 65,536 rows, each stored as soon as it is full.
func TestLoadMemoryIsBounded(t *testing.T) {
	const rows = 2_000_000
	const budget = 48 << 20
	ctx := context.Background()
	sink := &dataSink{Mem: objstore.NewMem()}
	g := openGraph(t, sink, true)
	defer g.Close()
	createTables(t, g, "big")
	var err error
	var version uint64
	peak := peakHeap(func() {
		var sn uint64
		rc, werr := g.Load(ctx, WriteOptions{MaxRowsPerFile: 1 << 16}, "big", wideSource(rows), nil)
		if werr == nil {
			sn = rc.Snapshot.Version
		}
		err, version = werr, sn
	})
	if err != nil {
		t.Fatal(err)
	}
	e := entryOf(t, head(t, g), "big")
	if head(t, g).Version != version || e.RowCount != rows {
		t.Fatalf("row count %d at version %d", e.RowCount, version)
	}
	files, bytes := sink.dataFiles.Load(), sink.dataBytes.Load()
	t.Logf("load of %d rows: %d data files, %d MB written, peak heap growth %.1f MB", rows, files, bytes>>20, float64(peak)/(1<<20))
	if files < rows>>16 {
		t.Fatalf("%d data files: rows were not cut every 65,536", files)
	}
	if bytes < 3*budget/2 {
		t.Fatalf("only %d bytes written: the test does not load more than its memory budget", bytes)
	}
	if peak > budget {
		t.Fatalf("peak heap growth %d MB exceeds the %d MB budget for %d rows (%d MB of data)", peak>>20, budget>>20, rows, bytes>>20)
	}
}
