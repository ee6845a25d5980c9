package lance

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/lance/format"
	"github.com/pggraph/pggraph/objstore"
)

// TestWrittenColumnEqualsScan checks that a column WrittenColumn serves
// from memory is exactly what a scan of the fragment reads, and that it
// refuses what a scan would read differently: a fragment with deleted
// rows, a file larger than writtenMaxRows, another store's fragment.
func TestWrittenColumnEqualsScan(t *testing.T) {
	ctx := context.Background()
	mem := objstore.NewMem()
	ds, err := Create(ctx, mem, "t", rowsReader(t, 0, 100, 100), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ids := range [][2]int64{{100, 101}, {101, 104}, {200, 200 + writtenMaxRows}} {
		st, err := ds.StageAppend(ctx, rowsReader(t, ids[0], ids[1], ids[1]-ids[0]), StageOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if ds, err = st.Commit(ctx, CommitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	st, err := ds.StageAppend(ctx, rowsReader(t, 300, 300+writtenMaxRows+1, writtenMaxRows+1), StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ds, err = st.Commit(ctx, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	frags := ds.Fragments()
	if len(frags) != 5 {
		t.Fatalf("%d fragments, want 5", len(frags))
	}
	// the created fragment (100 rows) and the one above the bound are not kept
	wantKept := []bool{false, true, true, true, false}
	for i := range frags {
		fr := &frags[i]
		for _, col := range []string{"id", "name", "score"} {
			got, ok := ds.WrittenColumn(fr, col)
			if ok != wantKept[i] {
				t.Fatalf("fragment %d column %s: kept %v, want %v", i, col, ok, wantKept[i])
			}
			if ok && !array.Equal(got, scanColumn(t, ds, fr.ID, col)) {
				t.Fatalf("fragment %d column %s: memory %v, scan %v", i, col, got, scanColumn(t, ds, fr.ID, col))
			}
		}
	}
	if _, ok := ds.WrittenColumn(&frags[1], "nope"); ok {
		t.Fatal("an unknown column was served")
	}
	// another store holding the same keys is not this process's write
	other := *ds
	other.store = objstore.NewMem()
	if _, ok := other.WrittenColumn(&frags[1], "id"); ok {
		t.Fatal("a fragment of another store was served")
	}
	// a deletion makes the scan skip rows: read the file
	del, err := ds.StageDelete(ctx, []uint64{RowAddress(frags[2].ID, 1)}, StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ds, err = del.Commit(ctx, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := range ds.Fragments() {
		fr := &ds.Fragments()[i]
		if fr.ID == frags[2].ID {
			if _, ok := ds.WrittenColumn(fr, "id"); ok {
				t.Fatal("a fragment with a deletion file was served from memory")
			}
		}
	}
}

// scanColumn reads one column of one fragment with a scan.
func scanColumn(t *testing.T, ds *Dataset, frag uint64, col string) arrow.Array {
	t.Helper()
	ctx := context.Background()
	sc, err := ds.Scan(ctx, ScanOptions{Columns: []string{col}, FragmentFilter: func(fr *format.Fragment) bool { return fr.ID == frag }})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	var parts []arrow.Array
	for {
		rec, err := sc.Next(ctx)
		if errors.Is(err, io.EOF) || (err == nil && rec == nil) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, rec.Column(0))
	}
	out, err := array.Concatenate(parts, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCompactionFromMemoryEqualsScan compacts the same small fragments
// twice, once with their rows remembered (read from memory) and once
// with the memory cleared (scanned), and checks that both produce the
// same rows at the same addresses.
func TestCompactionFromMemoryEqualsScan(t *testing.T) {
	ctx := context.Background()
	compact := func(clear bool) ([]scannedRow, int) {
		mem := objstore.NewMem()
		ds, err := Create(ctx, mem, "t", rowsReader(t, 0, 0, 1), Options{}) // no rows: every fragment is an append
		if err != nil {
			t.Fatal(err)
		}
		for i := int64(1); i < 20; i++ {
			st, err := ds.StageAppend(ctx, rowsReader(t, i*10, i*10+i%3+1, 3), StageOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if ds, err = st.Commit(ctx, CommitOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		ids := map[uint64]bool{}
		for _, fr := range ds.Fragments() {
			ids[fr.ID] = true
		}
		if clear {
			saved := writtenFiles
			writtenFiles = newWrittenMemo(writtenSlots)
			defer func() { writtenFiles = saved }()
		}
		if rdr, ok := ds.writtenReader(ids); ok == clear {
			t.Fatalf("clear=%v: rows from memory %v", clear, ok)
		} else if ok {
			rdr.Release()
		}
		st, err := ds.StageCompaction(ctx, CompactOptions{TargetRowsPerFragment: 7}, StageOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := st.Commit(ctx, CommitOptions{Mode: CommitExact})
		if err != nil {
			t.Fatal(err)
		}
		return scanAll(t, got, ScanOptions{}), len(got.Fragments())
	}
	fromMem, nm := compact(false)
	scanned, ns := compact(true)
	if nm != ns || len(fromMem) != len(scanned) {
		t.Fatalf("from memory %d rows in %d fragments, scanned %d rows in %d", len(fromMem), nm, len(scanned), ns)
	}
	for i := range fromMem {
		a, b := fromMem[i], scanned[i]
		if a.id != b.id || a.addr != b.addr || a.score != b.score || (a.name == nil) != (b.name == nil) || (a.name != nil && *a.name != *b.name) {
			t.Fatalf("row %d: from memory %+v, scanned %+v", i, a, b)
		}
	}
}
