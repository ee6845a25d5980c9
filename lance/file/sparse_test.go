package file

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/internal/oracle"
	"github.com/pggraph/pggraph/lance/schema"
	"github.com/pggraph/pggraph/objstore"
)

// namedFile is a data file to read, in memory.
type namedFile struct {
	name string
	b    []byte
}

// writeOurs writes batches made by mk with our writer.
func writeOurs(t testing.TB, s *arrow.Schema, opts WriterOptions, recs ...arrow.RecordBatch) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewStreamWriter(&buf, s, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	if _, err := w.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sparseTestFiles are files of every layout the reader handles: ours
// (every type, with and without nulls, all-null pages, small pages of
// many chunks, full-zip values, lists), the official Lance's golden files
// under testdata, and files Lance writes now with its default encodings
// (dictionary, rle, fsst, bitpacking, full-zip) and with plain full-zip.
func sparseTestFiles(t *testing.T) []namedFile {
	var files []namedFile
	for i, tc := range []struct {
		nullable  bool
		nullP     float64
		pageBytes int
	}{
		{true, 0.2, 16 << 10},
		{false, 0, 64 << 10},
		{true, 1, 0},
		{true, 0.02, 0},
	} {
		s := allTypesSchema(tc.nullable)
		rng := newRand(int64(70 + i))
		files = append(files, namedFile{fmt.Sprintf("ours%d", i), writeOurs(t, s, WriterOptions{PageBytes: tc.pageBytes},
			randomBatch(rng, memory.DefaultAllocator, s, 6000, tc.nullP),
			randomBatch(rng, memory.DefaultAllocator, s, 3001, tc.nullP))})
	}
	rng := newRand(77)
	files = append(files,
		namedFile{"ours-fullzip", writeOurs(t, bigValuesSchema(), WriterOptions{}, bigValuesBatch(rng, 40))},
		namedFile{"ours-lists", writeOurs(t, bigListsSchema(), WriterOptions{}, bigListsBatch(rng, 300))})
	golden, _ := filepath.Glob(filepath.Join("testdata", "*", "data", "*.lance"))
	if len(golden) == 0 {
		t.Fatal("no Lance-written files under testdata")
	}
	for _, f := range golden {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, namedFile{f, b})
	}
	root := t.TempDir()
	cols, rows := defaultEncodingsData(5000, true)
	oracle.Create(t, root, "dflt", cols, rows)
	plain := schema.PlainEncodingMetadata()
	var fzRows []oracle.Row
	for i := 0; i < 300; i++ {
		r := oracle.Row{"s": strings.Repeat("L", 400) + fmt.Sprint(i), "ls": strings.Repeat("Q", 2000+i)}
		if i%4 == 0 {
			r["s"] = nil
		}
		fzRows = append(fzRows, r)
	}
	oracle.Create(t, root, "fz", []oracle.Column{
		{Name: "s", Type: "string", Nullable: true, Metadata: plain},
		{Name: "ls", Type: "large_string", Metadata: plain},
	}, fzRows)
	lcols, lrows := listsData(4000)
	oracle.Create(t, root, "lists", lcols, lrows)
	made, _ := filepath.Glob(filepath.Join(root, "*.lance", "data", "*.lance"))
	if len(made) != 3 {
		t.Fatalf("oracle wrote %v", made)
	}
	for _, f := range made {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, namedFile{"oracle:" + filepath.Base(filepath.Dir(filepath.Dir(f))), b})
	}
	return files
}

// openBoth opens b in memory and through a store (whose fresh reads the
// direct decoder compacts in place).
func openBoth(t *testing.T, b []byte) map[string]*Reader {
	ctx := context.Background()
	inMem, err := OpenBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	store := objstore.NewMem()
	if err := store.Put(ctx, "f.lance", b); err != nil {
		t.Fatal(err)
	}
	viaStore, err := Open(ctx, store, "f.lance")
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*Reader{"bytes": inMem, "store": viaStore}
}

// pageProbes are row ranges [lo, hi) of a page of n rows to read
// sparsely: first and last rows, the first and last row of chunks,
// pairs across chunk boundaries, runs, random rows.
func pageProbes(rng *rand.Rand, n uint64, chunkStarts []uint64) [][2]uint64 {
	out := [][2]uint64{{0, 1}, {n - 1, n}, {0, min(n, 2)}, {n - min(n, 3), n}}
	for i, c := range chunkStarts {
		if i > 4 && i < len(chunkStarts)-4 && i%7 != 0 {
			continue // the first and last few chunks, and some between
		}
		out = append(out, [2]uint64{c, c + 1})
		if c > 0 {
			out = append(out, [2]uint64{c - 1, c}, [2]uint64{c - 1, c + 1})
		}
		if c+70 <= n {
			out = append(out, [2]uint64{c, c + 70})
		}
	}
	for range 8 {
		lo := uint64(rng.Int63n(int64(n)))
		out = append(out, [2]uint64{lo, lo + 1}, [2]uint64{lo, lo + 1 + uint64(rng.Int63n(int64(n-lo)))})
	}
	return out
}

// TestSparseReadMatchesWholePage: every page of every file, read
// sparsely for many row ranges (decodeRows), equals the same rows of the
// whole page decoded — in memory and through a store — and every sparse
// layout (mini-block plain and compressed, dictionary, full-zip fixed
// and variable) is covered, by our files and by Lance's.
func TestSparseReadMatchesWholePage(t *testing.T) {
	ctx := context.Background()
	kinds := map[int]int{}
	lanceKinds := map[int]int{}
	dict, nulls, spanning := 0, 0, 0
	for _, f := range sparseTestFiles(t) {
		for how, r := range openBoth(t, f.b) {
			rng := newRand(5)
			for ci, cm := range r.cols {
				fld := r.schema.Field(ci)
				for pi, pm := range cm.pages {
					if pm.layout.kind == layoutAllNull && len(pm.layout.layers) <= 1 {
						continue // never decoded (Scanner.take makes nulls)
					}
					whole, err := r.decodePage(ctx, ci, pm)
					if err != nil {
						if IsUnsupported(err) {
							continue
						}
						t.Fatalf("%s %s page %d: %v", f.name, fld.Name, pi, err)
					}
					kind := r.sparseKind(ci, pm)
					var starts []uint64
					switch kind {
					case sparseMiniBlock:
						aux, err := r.pageAux(ctx, ci, pi)
						if err != nil {
							t.Fatal(err)
						}
						starts = aux.firstRow[:len(aux.chunks)]
					case sparseListMiniBlock:
						aux, err := r.pageAux(ctx, ci, pi)
						if err != nil {
							t.Fatal(err)
						}
						// rows around chunk boundaries (rows spanning chunks)
						starts = slices.Clone(aux.rowsBefore[:len(aux.chunks)])
						for i, m := range aux.midRow {
							if m {
								spanning++
								starts = append(starts, aux.rowsBefore[i]-1)
							}
						}
					}
					for _, p := range pageProbes(rng, pm.length, starts) {
						lo, hi := p[0], p[1]
						got, first, err := r.decodeRows(ctx, ci, pi, lo, hi)
						if err != nil {
							t.Fatalf("%s (%s) %s page %d rows %d..%d: %v", f.name, how, fld.Name, pi, lo, hi, err)
						}
						if first > lo || first+uint64(got.Len()) < hi {
							t.Fatalf("%s %s page %d: rows %d..%d read as %d+%d", f.name, fld.Name, pi, lo, hi, first, got.Len())
						}
						if kind == sparseNone && (first != 0 || uint64(got.Len()) != pm.length) {
							t.Fatalf("%s %s page %d: whole-page fallback returned %d+%d", f.name, fld.Name, pi, first, got.Len())
						}
						// every row returned (not only the ones asked for:
						// a scan serves later rows from it) is the page's
						a := array.NewSlice(got, 0, int64(got.Len()))
						b := array.NewSlice(whole, int64(first), int64(first)+int64(got.Len()))
						if !array.Equal(a, b) || a.NullN() != b.NullN() {
							t.Fatalf("%s (%s) %s page %d (kind %d) rows %d..%d differ:\nsparse %v\nwhole  %v", f.name, how, fld.Name, pi, kind, lo, hi, a, b)
						}
						if a.NullN() > 0 && kind != sparseNone {
							nulls++
						}
						a.Release()
						b.Release()
						got.Release()
					}
					whole.Release()
					kinds[kind]++
					if !strings.HasPrefix(f.name, "ours") && kind != sparseNone {
						lanceKinds[kind]++
					}
					if kind == sparseMiniBlock && pm.layout.dictionary != nil {
						dict++
					}
				}
			}
		}
	}
	t.Logf("pages by sparse kind: %v (Lance-written: %v), %d dictionary pages, %d probes with nulls, %d list chunks starting inside a row", kinds, lanceKinds, dict, nulls, spanning)
	for _, k := range []int{sparseNone, sparseMiniBlock, sparseFullZipFixed, sparseFullZipVariable, sparseListMiniBlock} {
		if kinds[k] == 0 {
			t.Errorf("no page of sparse kind %d compared", k)
		}
	}
	if spanning == 0 {
		t.Error("no list row spanning chunks was read sparsely")
	}
	for _, k := range []int{sparseMiniBlock, sparseFullZipVariable, sparseListMiniBlock} {
		if lanceKinds[k] == 0 {
			t.Errorf("no Lance-written page of sparse kind %d compared", k)
		}
	}
	if dict == 0 || nulls == 0 {
		t.Errorf("%d dictionary pages, %d probes with nulls: want some of each", dict, nulls)
	}
}

// readRows scans r's rows in ranges (nil = all) into one array per column.
func readRows(t *testing.T, r *Reader, ranges []RowRange, batchRows int) []arrow.Array {
	t.Helper()
	recs, err := r.ReadAll(context.Background(), ScanOptions{Ranges: ranges, BatchRows: batchRows})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]arrow.Array, r.schema.NumFields())
	for c := range out {
		parts := make([]arrow.Array, 0, len(recs))
		for _, rec := range recs {
			parts = append(parts, rec.Column(c))
		}
		if len(parts) == 0 {
			out[c] = array.MakeArrayOfNull(memory.DefaultAllocator, r.schema.Field(c).Type, 0)
			continue
		}
		a, err := array.Concatenate(parts, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		out[c] = a
	}
	for _, rec := range recs {
		rec.Release()
	}
	return out
}

// TestSparseScanMatchesFullScan: scans restricted to row sets (single
// rows, first/last rows of the file and of pages, pairs across page
// boundaries, sorted random rows) return the same rows as a full scan,
// whichever pages go sparse.
func TestSparseScanMatchesFullScan(t *testing.T) {
	for _, f := range sparseTestFiles(t) {
		for how, r := range openBoth(t, f.b) {
			n := r.NumRows()
			if n == 0 {
				continue
			}
			full := readRows(t, r, nil, 0)
			rng := newRand(9)
			sets := [][]RowRange{{{0, 1}}, {{n - 1, n}}, {{0, 1}, {n - 1, n}}}
			for _, s := range r.pageStarts[0][1:] {
				sets = append(sets, []RowRange{{s - 1, s + 1}}, []RowRange{{s, s + 1}}, []RowRange{{s - 1, s}})
			}
			for range 6 {
				var set []RowRange
				at := uint64(0)
				for at < n && len(set) < 5 {
					lo := at + uint64(rng.Int63n(int64(n-at)))
					hi := min(n, lo+1+uint64(rng.Intn(3)))
					set = append(set, RowRange{lo, hi})
					at = hi + 1
				}
				sets = append(sets, set)
			}
			for _, set := range sets {
				for _, batch := range []int{0, 1} {
					got := readRows(t, r, set, batch)
					for c, g := range got {
						var parts []arrow.Array
						for _, rg := range set {
							parts = append(parts, array.NewSlice(full[c], int64(rg.Start), int64(rg.End)))
						}
						want, err := array.Concatenate(parts, memory.DefaultAllocator)
						if err != nil {
							t.Fatal(err)
						}
						if !array.Equal(g, want) {
							t.Fatalf("%s (%s) column %s rows %v: sparse scan\n%v\nfull scan\n%v", f.name, how, r.schema.Field(c).Name, set, g, want)
						}
						want.Release()
						for _, p := range parts {
							p.Release()
						}
						g.Release()
					}
				}
			}
			for _, a := range full {
				a.Release()
			}
		}
	}
}

// TestSparseTakeReadsOnlyItsChunks: taking one row of a file whose pages
// are megabytes reads a few KiB (its chunk of each column, the chunk
// tables once), not the pages; a second take of the same file reads only
// chunks; a dense scan still reads whole pages (the control, so the
// counter is known to count).
func TestSparseTakeReadsOnlyItsChunks(t *testing.T) {
	ctx := context.Background()
	s := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	const rows = 300_000
	ib := array.NewInt64Builder(memory.DefaultAllocator)
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	for i := 0; i < rows; i++ {
		ib.Append(int64(i))
		if i%10 == 3 {
			sb.AppendNull()
		} else {
			sb.Append(fmt.Sprintf("value-%d", i))
		}
	}
	ia, sa := ib.NewArray(), sb.NewArray()
	ib.Release()
	sb.Release()
	b := writeOurs(t, s, WriterOptions{PageBytes: 4 << 20}, array.NewRecordBatch(s, []arrow.Array{ia, sa}, rows))
	ia.Release()
	sa.Release()
	mem := objstore.NewMem()
	if err := mem.Put(ctx, "f.lance", b); err != nil {
		t.Fatal(err)
	}
	cs := objstore.NewCounting(mem)
	r, err := Open(ctx, cs, "f.lance")
	if err != nil {
		t.Fatal(err)
	}
	for ci := range r.cols {
		if len(r.cols[ci].pages) >= rows/2000 {
			t.Fatalf("column %d has %d pages: want large pages", ci, len(r.cols[ci].pages))
		}
	}
	take := func(row uint64) int64 {
		t.Helper()
		cs.Reset()
		got := readRows(t, r, []RowRange{{row, row + 1}}, 0)
		defer func() {
			for _, g := range got {
				g.Release()
			}
		}()
		if id := got[0].(*array.Int64).Value(0); id != int64(row) {
			t.Fatalf("row %d: id %d", row, id)
		}
		v := got[1].(*array.String)
		if row%10 == 3 {
			if !v.IsNull(0) {
				t.Fatalf("row %d: %q, want null", row, v.Value(0))
			}
		} else if v.Value(0) != fmt.Sprintf("value-%d", row) {
			t.Fatalf("row %d: %q", row, v.Value(0))
		}
		return cs.Stats().BytesRead
	}
	for _, row := range []uint64{0, 12345, 150_003, rows - 1} {
		if n := take(row); n > 64<<10 {
			t.Fatalf("taking row %d read %d bytes", row, n)
		}
		near := row + 2
		if near >= rows {
			near = row - 2
		}
		if n := take(near); n > 24<<10 {
			t.Fatalf("a second take near row %d read %d bytes (chunk tables should be cached)", row, n)
		}
	}
	cs.Reset()
	for _, a := range readRows(t, r, []RowRange{{0, rows / 2}}, 0) {
		a.Release()
	}
	if n := cs.Stats().BytesRead; n < int64(len(b))/3 {
		t.Fatalf("a scan of half the rows read %d of %d bytes: the counter does not count", n, len(b))
	}
}

// countingView reads through a counting store but names mem as the
// store it wraps (as the fencing wrapper does), so OpenCached keys it as
// mem.
type countingView struct {
	*objstore.Counting
	inner objstore.Store
}

func (c countingView) Unwrap() objstore.Store { return c.inner }

// TestOpenCachedSharesReaders: a second OpenCached of a file, through
// the store or a wrapper of it, does no I/O and shares the reader's
// page metadata; a reader of another size is not shared; another store
// has its own entry.
func TestOpenCachedSharesReaders(t *testing.T) {
	ctx := context.Background()
	s := allTypesSchema(true)
	b := writeOurs(t, s, WriterOptions{}, randomBatch(newRand(3), memory.DefaultAllocator, s, 100, 0.1))
	mem := objstore.NewMem()
	if err := mem.Put(ctx, "k.lance", b); err != nil {
		t.Fatal(err)
	}
	r1, err := OpenCached(ctx, mem, "k.lance", 0)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := OpenCached(ctx, objstore.Fenced(mem), "k.lance", uint64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if r2.aux != r1.aux {
		t.Fatal("an open through the fencing wrapper did not share the reader")
	}
	cs := objstore.NewCounting(mem)
	r3, err := OpenCached(ctx, countingView{cs, mem}, "k.lance", 0)
	if err != nil {
		t.Fatal(err)
	}
	if n := cs.Stats().Total(^objstore.OpMask(0)); n != 0 || r3.aux != r1.aux {
		t.Fatalf("a cached open did %d store operations (shared: %v)", n, r3.aux == r1.aux)
	}
	// the shared reader reads through the caller's store
	for _, a := range readRows(t, r3, []RowRange{{3, 4}}, 0) {
		a.Release()
	}
	if cs.Stats().BytesRead == 0 {
		t.Fatal("the shared reader did not read through the caller's store")
	}
	r4, err := OpenCached(ctx, mem, "k.lance", uint64(len(b))+1)
	if err != nil {
		t.Fatal(err)
	}
	if r4.aux == r1.aux {
		t.Fatal("a reader of another size was shared")
	}
	r5, err := OpenCached(ctx, mem, "k.lance", 0)
	if err != nil {
		t.Fatal(err)
	}
	if r5.aux != r4.aux {
		t.Fatal("the reopened reader does not replace the entry")
	}
	other := objstore.NewMem()
	if err := other.Put(ctx, "k.lance", b); err != nil {
		t.Fatal(err)
	}
	r6, err := OpenCached(ctx, other, "k.lance", 0)
	if err != nil {
		t.Fatal(err)
	}
	if r6.aux == r5.aux {
		t.Fatal("two stores share a reader")
	}
}

// TestSparseConcurrentTakes: goroutines taking rows of one shared Reader
// at once (filling its page metadata cache concurrently) get their rows.
func TestSparseConcurrentTakes(t *testing.T) {
	ctx := context.Background()
	s := allTypesSchema(true)
	rng := newRand(11)
	rec := randomBatch(rng, memory.DefaultAllocator, s, 20000, 0.1)
	rec.Retain()
	b := writeOurs(t, s, WriterOptions{PageBytes: 32 << 10}, rec)
	defer rec.Release()
	store := objstore.NewMem()
	if err := store.Put(ctx, "f.lance", b); err != nil {
		t.Fatal(err)
	}
	r, err := OpenCached(ctx, store, "f.lance", uint64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 4)
	for g := range 4 {
		go func() {
			rng := newRand(int64(g))
			for range 40 {
				row := uint64(rng.Intn(20000))
				recs, err := r.ReadAll(ctx, ScanOptions{Ranges: []RowRange{{row, row + 1}}})
				if err != nil {
					errs <- err
					return
				}
				for c := range s.NumFields() {
					want := array.NewSlice(rec.Column(c), int64(row), int64(row+1))
					ok := array.Equal(recs[0].Column(c), want)
					want.Release()
					if !ok {
						errs <- fmt.Errorf("row %d column %s: %v", row, s.Field(c).Name, recs[0].Column(c))
						return
					}
				}
				for _, x := range recs {
					x.Release()
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
