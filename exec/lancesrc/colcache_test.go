package lancesrc

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
)

var edgeSchema = arrow.NewSchema([]arrow.Field{
	{Name: "src", Type: arrow.PrimitiveTypes.Int64},
	{Name: "dst", Type: arrow.PrimitiveTypes.Int64},
	{Name: "w", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "label", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

var edgeCols = []exec.ColumnDef{
	{Name: "src", Type: exec.TInt8}, {Name: "dst", Type: exec.TInt8},
	{Name: "w", Type: exec.TInt4}, {Name: "label", Type: exec.TText},
}

// edgeRows makes edges from src to src*7+k (k < deg), w NULL every
// fifth row; tag distinguishes batches (w and label differ).
func edgeRows(t testing.TB, srcs []int64, deg int, tag int) array.RecordReader {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, edgeSchema)
	defer b.Release()
	n := 0
	for _, s := range srcs {
		for k := 0; k < deg; k++ {
			b.Field(0).(*array.Int64Builder).Append(s)
			b.Field(1).(*array.Int64Builder).Append((s*7 + int64(k)) % 500)
			if n%5 == 0 {
				b.Field(2).AppendNull()
			} else {
				b.Field(2).(*array.Int32Builder).Append(int32(n*tag + k))
			}
			if n%7 == 3 {
				b.Field(3).AppendNull()
			} else {
				b.Field(3).(*array.StringBuilder).Append(fmt.Sprint("e", tag, "-", n))
			}
			n++
		}
	}
	rdr, err := array.NewRecordReader(edgeSchema, []arrow.RecordBatch{b.NewRecordBatch()})
	if err != nil {
		t.Fatal(err)
	}
	return rdr
}

// lookupText runs a lookup of keys on column col reading cols and
// renders the rows (with their addresses), sorted.
func lookupText(t testing.TB, s *Source, col int, keys []int64, cols []int) []string {
	t.Helper()
	kv := exec.NewVec(exec.TInt8, len(keys))
	copy(kv.I, keys)
	var out []string
	err := s.LookupKeys(context.Background(), col, kv, exec.ScanRequest{Columns: cols}, func(rec arrow.RecordBatch, addrs []uint64) error {
		if int(rec.NumRows()) != len(addrs) || int(rec.NumCols()) != len(cols) {
			return fmt.Errorf("record of %d rows, %d columns for %d addresses", rec.NumRows(), rec.NumCols(), len(addrs))
		}
		for r := 0; r < int(rec.NumRows()); r++ {
			var sb strings.Builder
			fmt.Fprintf(&sb, "%x", addrs[r])
			for c := 0; c < int(rec.NumCols()); c++ {
				v, err := exec.VecFromArrow(rec.Column(c), edgeCols[cols[c]].Type)
				if err != nil {
					return err
				}
				txt, ok := exec.FormatText(v, r, nil)
				if !ok {
					txt = "NULL"
				}
				sb.WriteString(" " + txt)
			}
			out = append(out, sb.String())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestCoveringLookupsEqualLanceReads: across appends, deletes, updates
// and compactions, every version's lookups (newest first, then time
// travel to each older version) answer from the column cache exactly
// what reading the rows from Lance answers, NULLs included; an older
// version's rows deleted later (not in the cache) are still found.
func TestCoveringLookupsEqualLanceReads(t *testing.T) {
	ctx := context.Background()
	defer SetColumnCacheLimit(DefaultColumnCacheBytes)
	rng := rand.New(rand.NewPCG(3, 4))
	ds := committer(t)(lance.New(objstore.NewMem(), "e.lance", lance.Options{}).StageOverwrite(ctx, edgeRows(t, seqIDs(0, 100), 5, 1), lance.StageOptions{MaxRowsPerFile: 128}))
	versions := []*lance.Dataset{ds}
	for step := 0; step < 12; step++ {
		var live []uint64
		if err := scanPlain(ctx, ds, lance.ScanOptions{Columns: []string{}, WithRowAddress: true}, func(_ arrow.RecordBatch, a []uint64) error {
			live = append(live, a...)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		switch step % 4 {
		case 0:
			ds = committer(t)(ds.StageAppend(ctx, edgeRows(t, seqIDs(int64(rng.IntN(120)), 3), 4, step+2), lance.StageOptions{}))
		case 1:
			ds = committer(t)(ds.StageDelete(ctx, pick(rng, live, 40), lance.StageOptions{}))
		case 2:
			addrs := pick(rng, live, 5)
			ds = committer(t)(ds.StageUpdate(ctx, addrs, edgeRows(t, seqIDs(int64(rng.IntN(100)), 1), 5, step+2), lance.StageOptions{}))
		case 3:
			if ds.CompactionCandidates(lance.CompactOptions{TargetRowsPerFragment: 256}) > 0 {
				ds = committer(t)(ds.StageCompaction(ctx, lance.CompactOptions{TargetRowsPerFragment: 256}, lance.StageOptions{}))
			}
		}
		versions = append(versions, ds)
	}
	keys := seqIDs(0, 130)
	projections := [][]int{{1}, {1, 2}, {0, 1, 2}, {}, {3}, {1, 3, 2}}
	// the answers read from Lance (cache disabled), then every version
	// through the cache, newest first: older versions' rows deleted
	// later are not in what the newest version loaded
	type probe struct {
		v    int
		cols []int
		col  int
	}
	var probes []probe
	for i := len(versions) - 1; i >= 0; i-- {
		for _, cols := range projections {
			for _, col := range []int{0, 1} {
				probes = append(probes, probe{i, cols, col})
			}
		}
	}
	SetColumnCacheLimit(0)
	want := make([][]string, len(probes))
	for i, p := range probes {
		want[i] = lookupText(t, New(versions[p.v], edgeCols, []int{0, 1}), p.col, keys, p.cols)
		if len(want[i]) == 0 {
			t.Fatalf("v%d: lookup found nothing (the test reads nothing)", versions[p.v].Version())
		}
	}
	SetColumnCacheLimit(DefaultColumnCacheBytes)
	for i, p := range probes {
		covered := New(versions[p.v], edgeCols, []int{0, 1})
		if covered.coverFor(p.cols) == nil {
			t.Fatalf("columns %v not coverable", p.cols)
		}
		got := lookupText(t, covered, p.col, keys, p.cols)
		if !slices.Equal(got, want[i]) {
			t.Fatalf("v%d: lookup on column %d of %v:\n got %d rows %v\nwant %d rows %v", versions[p.v].Version(), p.col, p.cols, len(got), clipRows(got), len(want[i]), clipRows(want[i]))
		}
	}
}

func clipRows(r []string) []string {
	if len(r) > 8 {
		return r[:8]
	}
	return r
}

// TestCoveringLookupReadsNoDataFiles: once a fragment's columns are
// cached, a lookup reading only cached columns touches no data file, and
// a later version that appended rows loads only the new fragment.
func TestCoveringLookupReadsNoDataFiles(t *testing.T) {
	ctx := context.Background()
	defer SetColumnCacheLimit(DefaultColumnCacheBytes)
	SetColumnCacheLimit(DefaultColumnCacheBytes)
	rec := &recordingStore{Store: objstore.NewMem(), reads: map[string]int{}}
	ds := committer(t)(lance.New(rec, "e.lance", lance.Options{}).StageOverwrite(ctx, edgeRows(t, seqIDs(0, 4000), 5, 1), lance.StageOptions{}))
	s := New(ds, edgeCols, []int{0, 1})
	loads := func() int {
		sharedColumns.mu.Lock()
		defer sharedColumns.mu.Unlock()
		return sharedColumns.loads
	}
	before := loads()
	first := lookupText(t, s, 0, []int64{1, 2, 3}, []int{1, 2})
	if len(first) != 15 {
		t.Fatalf("lookup of 3 sources with 5 edges each: %d rows", len(first))
	}
	// 15 of 20000 rows: a one-off lookup reads rows, not whole columns
	if n := loads() - before; n != 0 {
		t.Fatalf("a lookup of 15 rows of 20000 loaded %d fragment columns", n)
	}
	// demand of 1/512 of the fragment's rows buys the columns
	warm := lookupText(t, s, 0, seqIDs(10, 40), []int{1, 2})
	if len(warm) != 200 {
		t.Fatalf("lookup of 40 sources: %d rows", len(warm))
	}
	if n := loads() - before; n != 2 {
		t.Fatalf("after lookups of 215 of 20000 rows: %d fragment columns loaded, want 2", n)
	}
	reads := func() int {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		n := 0
		for _, c := range rec.reads {
			n += c
		}
		clear(rec.reads)
		return n
	}
	reads()
	again := lookupText(t, s, 0, []int64{4, 5, 6, 7}, []int{1, 2})
	if len(again) != 20 {
		t.Fatalf("second lookup: %d rows", len(again))
	}
	if n := reads(); n != 0 {
		t.Fatalf("a covered lookup read %d data file ranges", n)
	}
	ds2 := committer(t)(ds.StageAppend(ctx, edgeRows(t, []int64{4}, 2, 9), lance.StageOptions{}))
	s2 := New(ds2, edgeCols, []int{0, 1})
	got := lookupText(t, s2, 0, []int64{4}, []int{1, 2})
	if len(got) != 7 {
		t.Fatalf("after appending 2 edges of 4: %d rows, want 7", len(got))
	}
	newFrag := ds2.Fragments()[len(ds2.Fragments())-1].Files[0].Path
	rec.mu.Lock()
	for k := range rec.reads {
		if !strings.Contains(k, newFrag) {
			rec.mu.Unlock()
			t.Fatalf("the next version's lookup read an old data file: %s", k)
		}
	}
	rec.mu.Unlock()
}

// TestCoveringLookupsConcurrent: sessions looking up at once share one
// load per fragment column, and eviction under a tight bound (entries
// dropped while others read them) never changes an answer.
func TestCoveringLookupsConcurrent(t *testing.T) {
	ctx := context.Background()
	defer SetColumnCacheLimit(DefaultColumnCacheBytes)
	ds := committer(t)(lance.New(objstore.NewMem(), "e.lance", lance.Options{}).StageOverwrite(ctx, edgeRows(t, seqIDs(0, 300), 4, 1), lance.StageOptions{MaxRowsPerFile: 100}))
	SetColumnCacheLimit(0)
	want := lookupText(t, New(ds, edgeCols, []int{0, 1}), 0, seqIDs(0, 300), []int{1, 2})
	for _, limit := range []int64{DefaultColumnCacheBytes, 4096} {
		SetColumnCacheLimit(limit)
		errs := make(chan string, 8)
		for g := 0; g < 8; g++ {
			go func() {
				got := lookupText(t, New(ds, edgeCols, []int{0, 1}), 0, seqIDs(0, 300), []int{1, 2})
				if !slices.Equal(got, want) {
					errs <- fmt.Sprintf("limit %d: %d rows, want %d", limit, len(got), len(want))
					return
				}
				errs <- ""
			}()
		}
		for g := 0; g < 8; g++ {
			if e := <-errs; e != "" {
				t.Fatal(e)
			}
		}
	}
}

// TestCoveringLookupLongTexts: a text column larger than the cache's
// budget is not held (the load stops, its entry stays negative so later
// lookups do not load it again) and lookups answer from Lance.
func TestCoveringLookupLongTexts(t *testing.T) {
	ctx := context.Background()
	defer SetColumnCacheLimit(DefaultColumnCacheBytes)
	b := array.NewRecordBuilder(memory.DefaultAllocator, edgeSchema)
	for i := 0; i < 400; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i % 40))
		b.Field(1).(*array.Int64Builder).Append(int64(i))
		b.Field(2).(*array.Int32Builder).Append(int32(i))
		b.Field(3).(*array.StringBuilder).Append(strings.Repeat(fmt.Sprint(i%10), 300))
	}
	rdr, err := array.NewRecordReader(edgeSchema, []arrow.RecordBatch{b.NewRecordBatch()})
	b.Release()
	if err != nil {
		t.Fatal(err)
	}
	ds := committer(t)(lance.New(objstore.NewMem(), "long.lance", lance.Options{}).StageOverwrite(ctx, rdr, lance.StageOptions{}))
	SetColumnCacheLimit(0)
	want := lookupText(t, New(ds, edgeCols, []int{0, 1}), 0, []int64{3, 7}, []int{1, 3})
	SetColumnCacheLimit(64 << 10) // 400 texts of 300 bytes exceed half of it
	s := New(ds, edgeCols, []int{0, 1})
	if s.coverFor([]int{1, 3}) == nil {
		t.Fatal("the projection was not planned for the cache (the test checks nothing)")
	}
	sharedColumns.mu.Lock()
	loads0 := sharedColumns.loads
	sharedColumns.mu.Unlock()
	for round := 0; round < 2; round++ {
		got := lookupText(t, s, 0, []int64{3, 7}, []int{1, 3})
		if !slices.Equal(got, want) || len(want) != 20 {
			t.Fatalf("round %d: %d rows, want %d (%d)", round, len(got), len(want), 20)
		}
		sharedColumns.mu.Lock()
		held := sharedColumns.bytes
		sharedColumns.mu.Unlock()
		if held > 64<<10 {
			t.Fatalf("round %d: the cache holds %d bytes over its bound", round, held)
		}
	}
	sharedColumns.mu.Lock()
	loads := sharedColumns.loads - loads0
	sharedColumns.mu.Unlock()
	if loads != 1 { // dst once; the texts never
		t.Fatalf("%d fragment columns loaded, want 1", loads)
	}
}

// TestCoveringLookupMemoFollowsEviction: a Source remembers the cache
// entries its lookups used (cachedColumn) and answers the next lookups
// from them without reading data files; once the cache evicted them the
// memo misses, so the Source reads Lance again (or reloads on demand)
// rather than keep serving from columns the cache no longer counts.
func TestCoveringLookupMemoFollowsEviction(t *testing.T) {
	ctx := context.Background()
	defer SetColumnCacheLimit(DefaultColumnCacheBytes)
	SetColumnCacheLimit(DefaultColumnCacheBytes)
	rec := &recordingStore{Store: objstore.NewMem(), reads: map[string]int{}}
	ds := committer(t)(lance.New(rec, "m.lance", lance.Options{}).StageOverwrite(ctx, edgeRows(t, seqIDs(0, 4000), 5, 1), lance.StageOptions{}))
	s := New(ds, edgeCols, []int{0, 1})
	reads := func() int {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		n := 0
		for _, c := range rec.reads {
			n += c
		}
		clear(rec.reads)
		return n
	}
	want := lookupText(t, s, 0, seqIDs(10, 60), []int{1, 2}) // buys dst and w
	s.coverMu.Lock()
	memo := len(s.coverCols)
	s.coverMu.Unlock()
	if memo != 2 {
		t.Fatalf("the Source remembers %d fragment columns, want 2", memo)
	}
	reads()
	if got := lookupText(t, s, 0, seqIDs(10, 60), []int{1, 2}); !slices.Equal(got, want) {
		t.Fatalf("lookup from the memo differs:\n got %v\nwant %v", clipRows(got), clipRows(want))
	}
	if n := reads(); n != 0 {
		t.Fatalf("a lookup through the memo read %d data file ranges", n)
	}
	// evict everything, then allow caching again: the memo must miss
	SetColumnCacheLimit(1)
	SetColumnCacheLimit(DefaultColumnCacheBytes)
	few := lookupText(t, s, 0, []int64{11, 12}, []int{1, 2})
	if len(few) != 10 {
		t.Fatalf("lookup of 2 sources after eviction: %d rows", len(few))
	}
	if n := reads(); n == 0 {
		t.Fatal("after eviction a 10-row lookup read no data file: it was served from evicted columns")
	}
	if got := lookupText(t, s, 0, seqIDs(10, 60), []int{1, 2}); !slices.Equal(got, want) {
		t.Fatalf("lookup after eviction differs:\n got %v\nwant %v", clipRows(got), clipRows(want))
	}
}

// TestCoveringLookupsBuyEveryColumn: many small lookups of a projection
// of two columns buy both columns once their demand reaches the ratio
// (each column's demand counted by every lookup, a column bought while
// another is still renting is loaded, not forgotten); afterwards a lookup
// reads no data file.
func TestCoveringLookupsBuyEveryColumn(t *testing.T) {
	ctx := context.Background()
	defer SetColumnCacheLimit(DefaultColumnCacheBytes)
	SetColumnCacheLimit(DefaultColumnCacheBytes)
	rec := &recordingStore{Store: objstore.NewMem(), reads: map[string]int{}}
	ds := committer(t)(lance.New(rec, "b.lance", lance.Options{}).StageOverwrite(ctx, edgeRows(t, seqIDs(0, 4000), 5, 1), lance.StageOptions{}))
	s := New(ds, edgeCols, []int{0, 1})
	for _, k := range seqIDs(100, 20) { // 20 lookups of 5 rows: 100 of 20000 rows
		if got := lookupText(t, s, 0, []int64{k}, []int{1, 2}); len(got) != 5 {
			t.Fatalf("lookup of %d: %d rows", k, len(got))
		}
	}
	rec.mu.Lock()
	clear(rec.reads)
	rec.mu.Unlock()
	if got := lookupText(t, s, 0, []int64{7}, []int{1, 2}); len(got) != 5 {
		t.Fatalf("lookup of 7: %d rows", len(got))
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.reads) != 0 {
		t.Fatalf("after lookups of 100 of 20000 rows (demand 1/512 is 40) a lookup still read data files: %v", rec.reads)
	}
}
