package lance

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/lance/format"
	"github.com/pggraph/pggraph/objstore"
)

// lazyReader produces batches of rowSchema on demand and, before making
// each one, asks observe how far the writer has got.
type lazyReader struct {
	next, end, batch int64
	cur              arrow.RecordBatch
	observe          func(produced int64)
	refs             int64
}

func (r *lazyReader) Retain()                        { r.refs++ }
func (r *lazyReader) Release()                       { r.refs-- }
func (r *lazyReader) Schema() *arrow.Schema          { return rowSchema }
func (r *lazyReader) Record() arrow.RecordBatch      { return r.cur }
func (r *lazyReader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *lazyReader) Err() error                     { return nil }
func (r *lazyReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.next >= r.end {
		return false
	}
	r.observe(r.next)
	hi := min(r.next+r.batch, r.end)
	b := array.NewRecordBuilder(memory.DefaultAllocator, rowSchema)
	defer b.Release()
	for id := r.next; id < hi; id++ {
		b.Field(0).(*array.Int64Builder).Append(id)
		if n := rowName(id); n != nil {
			b.Field(1).(*array.StringBuilder).Append(*n)
		} else {
			b.Field(1).AppendNull()
		}
		b.Field(2).(*array.Float64Builder).Append(float64(id) / 2)
	}
	r.cur = b.NewRecordBatch()
	r.next = hi
	return true
}

// dataPuts counts data files stored under a prefix.
type dataPuts struct {
	objstore.Store
	mu sync.Mutex
	n  int
}

func (s *dataPuts) Put(ctx context.Context, key string, b []byte) error {
	if strings.Contains(key, "/data/") {
		s.mu.Lock()
		s.n++
		s.mu.Unlock()
	}
	return s.Store.Put(ctx, key, b)
}

func (s *dataPuts) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// TestStageAppendStreams: a staged append consumes a lazy stream and
// stores each data file as soon as it is full (rows or bytes), so no
// more than one file's worth is ever buffered; the rows all land.
func TestStageAppendStreams(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name     string
		batch    int64
		opts     StageOptions
		perFile  int64 // rows a file may hold at most
		minFiles int
	}{
		{"rows cap", 100, StageOptions{MaxRowsPerFile: 1000}, 1000, 5},
		{"bytes cap", 100, StageOptions{MaxBytesPerFile: 8 << 10}, 1000, 5},
		{"one big batch split by bytes", 5000, StageOptions{MaxBytesPerFile: 8 << 10}, 1000, 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			store := &dataPuts{Store: objstore.NewMem()}
			ds, err := Create(ctx, store, "s.lance", rowsReader(t, 0, 1, 1), Options{})
			if err != nil {
				t.Fatal(err)
			}
			base := store.count()
			const total = 5000
			rdr := &lazyReader{next: 1, end: 1 + total, batch: tc.batch, observe: func(produced int64) {
				// every file that could have been filled by the rows
				// already handed over must have been stored
				consumed := produced - 1
				if tc.batch < total {
					if want := int(consumed / tc.perFile); store.count()-base < want-1 {
						t.Errorf("after %d rows only %d data files stored, want ≥ %d", consumed, store.count()-base, want-1)
					}
				}
			}}
			st, err := ds.StageAppend(ctx, rdr, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			frs := st.Txn.Op.(*format.Append).Fragments
			if len(frs) < tc.minFiles || store.count()-base != len(frs) {
				t.Fatalf("%d fragments, %d files stored", len(frs), store.count()-base)
			}
			for _, fr := range frs {
				if int64(fr.PhysicalRows) > tc.perFile {
					t.Fatalf("a file holds %d rows, cap %d", fr.PhysicalRows, tc.perFile)
				}
			}
			ds, err = st.Commit(ctx, CommitOptions{})
			if err != nil {
				t.Fatal(err)
			}
			checkRows(t, scanAll(t, ds, ScanOptions{}), idRange(0, 1+total))
		})
	}
}

func TestChunkBuffer(t *testing.T) {
	for _, sizes := range [][]int{{}, {1}, {chunkSize}, {chunkSize - 1, 2}, {3, chunkSize * 2, 5}} {
		var b chunkBuffer
		var want []byte
		for i, n := range sizes {
			p := make([]byte, n)
			for j := range p {
				p[j] = byte(i + j)
			}
			if m, err := b.Write(p); err != nil || m != n {
				t.Fatalf("write %d: %d %v", n, m, err)
			}
			want = append(want, p...)
		}
		got := b.Bytes()
		if len(got) != len(want) || string(got) != string(want) {
			t.Fatalf("sizes %v: %d bytes back, want %d", sizes, len(got), len(want))
		}
	}
}
