package lance

import (
	"context"
	"errors"
	"fmt"
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
	s.note(key)
	return s.Store.Put(ctx, key, b)
}

// PutNew counts too: data files are created with objstore.PutNew.
func (s *dataPuts) PutNew(ctx context.Context, key string, b []byte) error {
	s.note(key)
	return objstore.PutNew(ctx, s.Store, key, b)
}

func (s *dataPuts) note(key string) {
	if strings.Contains(key, "/data/") {
		s.mu.Lock()
		s.n++
		s.mu.Unlock()
	}
}

func (s *dataPuts) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// TestStageAppendStreams: a staged append consumes a lazy stream and
// hands each data file to the store as soon as it is full (rows or
// bytes; the Puts run in the background, so at most putWorkers files
// lag), so no more than putWorkers+1 files' worth is ever buffered; the
// rows all land.
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
					if want := int(consumed / tc.perFile); store.count()-base < want-putWorkers {
						t.Errorf("after %d rows only %d data files stored, want ≥ %d", consumed, store.count()-base, want-putWorkers)
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

func TestFileBuffer(t *testing.T) {
	for _, sizes := range [][]int{{}, {1}, {1 << 20}, {3, 1<<20 + 1, 5}, {0, 7, 0}} {
		b := fileBuffer{b: make([]byte, 0, 4)}
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
		if len(b.b) != len(want) || string(b.b) != string(want) {
			t.Fatalf("sizes %v: %d bytes back, want %d", sizes, len(b.b), len(want))
		}
	}
	// the expected size is taken only once the file holds an eighth of it
	b := fileBuffer{b: make([]byte, 0, 16), expect: 1 << 20}
	b.Write(make([]byte, 100))
	if cap(b.b) >= 1<<20 {
		t.Fatalf("a 100-byte file reserved %d bytes", cap(b.b))
	}
	b.Write(make([]byte, 200<<10)) // grows to fit: it held only 100 bytes
	b.Write(make([]byte, 1<<10))   // holds more than an eighth: jumps
	if c := cap(b.b); c != 1<<20 {
		t.Fatalf("a file past an eighth of its expected size has capacity %d, want %d", c, 1<<20)
	}
}

// failingPuts fails every data-file Put from the failAt-th on and
// counts the attempts.
type failingPuts struct {
	objstore.Store
	mu       sync.Mutex
	attempts int
	failAt   int
}

var errInjected = errors.New("injected put failure")

func (s *failingPuts) Put(ctx context.Context, key string, b []byte) error {
	if err := s.fail(key); err != nil {
		return err
	}
	return s.Store.Put(ctx, key, b)
}

// PutNew fails too: data files are created with objstore.PutNew.
func (s *failingPuts) PutNew(ctx context.Context, key string, b []byte) error {
	if err := s.fail(key); err != nil {
		return err
	}
	return objstore.PutNew(ctx, s.Store, key, b)
}

func (s *failingPuts) fail(key string) error {
	if strings.Contains(key, "/data/") {
		s.mu.Lock()
		s.attempts++
		n := s.attempts
		s.mu.Unlock()
		if n >= s.failAt {
			return errInjected
		}
	}
	return nil
}

// TestPutPipeline: files are stored in the background with at most
// putWorkers+1 buffers ever made (reused from file to file), and a failed
// Put stops the write with that error: no file is attempted past those
// already being stored, and StageAppend returns the failure.
func TestPutPipeline(t *testing.T) {
	ctx := context.Background()
	t.Run("buffers reused", func(t *testing.T) {
		store := objstore.NewMem()
		pw := newPutPipeline(ctx, store)
		for i := 0; i < 10; i++ {
			b, err := pw.buffer(16)
			if err != nil {
				t.Fatal(err)
			}
			if len(b.b) != 0 {
				t.Fatalf("file %d: buffer handed out with %d bytes", i, len(b.b))
			}
			fmt.Fprintf(b, "file %d", i)
			if err := pw.put(fmt.Sprintf("d/%d", i), b); err != nil {
				t.Fatal(err)
			}
		}
		if err := pw.wait(); err != nil {
			t.Fatal(err)
		}
		if pw.made > putWorkers+1 {
			t.Fatalf("%d buffers made for 10 files, want ≤ %d", pw.made, putWorkers+1)
		}
		for i := 0; i < 10; i++ {
			got, err := store.Get(ctx, fmt.Sprintf("d/%d", i))
			if err != nil || string(got) != fmt.Sprintf("file %d", i) {
				t.Fatalf("file %d: %q %v", i, got, err)
			}
		}
	})
	t.Run("failure stops the write", func(t *testing.T) {
		store := &failingPuts{Store: objstore.NewMem(), failAt: 1 << 30}
		ds, err := Create(ctx, store, "f.lance", rowsReader(t, 0, 1, 1), Options{})
		if err != nil {
			t.Fatal(err)
		}
		store.mu.Lock()
		store.attempts, store.failAt = 0, 2
		store.mu.Unlock()
		rdr := &lazyReader{next: 1, end: 20001, batch: 100, observe: func(int64) {}}
		_, err = ds.StageAppend(ctx, rdr, StageOptions{MaxRowsPerFile: 1000})
		if !errors.Is(err, errInjected) {
			t.Fatalf("StageAppend: %v, want the injected failure", err)
		}
		store.mu.Lock()
		defer store.mu.Unlock()
		// file 2 fails; file 3 may be stored by the other worker meanwhile,
		// and a file handed over after that is skipped
		if store.attempts > 3 {
			t.Fatalf("%d data-file Puts attempted after the failure of the 2nd", store.attempts)
		}
	})
}
