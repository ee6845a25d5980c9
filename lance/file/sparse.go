package file

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Sparse reads. A take that wants a few rows of a page (a point lookup
// by row address) would otherwise fetch and decode the whole page —
// megabytes for one value. decodeRows reads only what holds the wanted
// rows instead:
//
//   - mini-block pages (no repetition index): the chunk table (page
//     buffer 0, cached per page) gives every chunk's byte range and value
//     count, so only the chunks holding the rows are fetched (one range
//     read) and decoded, through the same decoders as a whole page (the
//     chunks are presented as a page of their own: a sub-table of the
//     chunk table and the chunks' bytes); a dictionary page's dictionary
//     is decoded once and cached per page too;
//   - full-zip pages of fixed-width values: every row has the same
//     stride, so row i starts at i·stride;
//   - full-zip pages of variable values: the repetition index (page
//     buffer 1, rows+1 byte positions) gives the rows' byte range.
//
//   - mini-block list pages: a row's items may span chunks, so the rows
//     are located through a per-page row map (rows starting before each
//     chunk, whether a chunk begins inside a row) built from every
//     chunk's repetition levels at the first sparse read of the page and
//     cached; then only the chunks from row lo's start to row hi-1's end
//     are read (see decodeListRows). A list page's dictionary buffer is
//     cached too (decoded per read).
//
// Everything else decodes the whole page: full-zip and all-null list
// pages, full-zip pages with repetition levels or without a repetition
// index of the expected size, and layouts the whole-page decoder would
// refuse anyway (it then reports the error).
// All-null pages are never decoded at all (see Scanner.take).

// sparseRatio: a page is read sparsely when the scan wants at most
// 1/sparseRatio of its rows.
var sparseRatio uint64 = 16 // a variable so benchmarks can compare with whole-page reads

// sparseMaxRanges: a page is read sparsely only for at most this many
// separate row ranges.
const sparseMaxRanges = 8

// How a page can be read sparsely.
const (
	sparseNone = iota
	sparseMiniBlock
	sparseFullZipFixed
	sparseFullZipVariable
	sparseListMiniBlock
)

// sparseKind says whether (and how) page pm of column ci can be read
// sparsely.
func (r *Reader) sparseKind(ci int, pm pageMeta) int {
	p, pl := r.phys[ci], pm.layout
	if pm.length == 0 || pm.length > maxPageItems {
		return sparseNone
	}
	if p.kind == physList {
		// mini-block list pages only (full-zip and all-null list pages
		// are read whole)
		if pl.kind != layoutMiniBlock || pl.rep == nil || len(pm.buffers) < 2 ||
			(pl.dictionary != nil && len(pm.buffers) < 3) || (pl.chunkWordBytes != 2 && pl.chunkWordBytes != 4) {
			return sparseNone
		}
		return sparseListMiniBlock
	}
	switch pl.kind {
	case layoutMiniBlock:
		if pl.rep != nil || pl.repIndexDepth != 0 || len(pm.buffers) < 2 || pl.numItems != pm.length {
			return sparseNone
		}
		if pl.dictionary != nil && len(pm.buffers) < 3 {
			return sparseNone
		}
		if pl.chunkWordBytes != 2 && pl.chunkWordBytes != 4 {
			return sparseNone
		}
		return sparseMiniBlock
	case layoutFullZip:
		if pl.bitsRep != 0 || len(pm.buffers) < 1 || pl.numItems != pm.length {
			return sparseNone
		}
		cw, ok := controlWordBytes(pl.bitsDef)
		if !ok {
			return sparseNone
		}
		switch {
		case p.kind == physVariable && pl.bitsPerOffst != 0:
			if len(pm.buffers) >= 2 && repIndexWidth(pm) != 0 {
				return sparseFullZipVariable
			}
		case (p.kind == physFixed || p.kind == physFSL) && pl.bitsPerValue != 0 && pl.bitsPerValue%8 == 0:
			stride := uint64(cw) + pl.bitsPerValue/8
			if pm.buffers[0].size/stride >= pm.length {
				return sparseFullZipFixed
			}
		}
	}
	return sparseNone
}

// repIndexWidth is the byte width of the entries of a full-zip page's
// repetition index (page buffer 1): rows+1 byte positions into the
// zipped data, u64 from our writer, the narrowest width that fits from
// Lance (u32 seen) — or 0 when the buffer is no such index.
func repIndexWidth(pm pageMeta) int {
	n, size := pm.length+1, pm.buffers[1].size
	if size%n != 0 {
		return 0
	}
	switch w := size / n; w {
	case 1, 2, 4, 8:
		return int(w)
	}
	return 0
}

// controlWordBytes is the width of a full-zip control word for def
// levels of the given bit width (no repetition levels).
func controlWordBytes(bitsDef uint64) (int, bool) {
	switch {
	case bitsDef == 0:
		return 0, true
	case bitsDef <= 8:
		return 1, true
	case bitsDef <= 16:
		return 2, true
	case bitsDef <= 32:
		return 4, true
	}
	return 0, false
}

// decodeRows decodes at least rows [lo, hi) (page-relative, lo < hi ≤
// page length) of page pi of column ci, reading only the parts of the
// page that hold them when the page's layout allows (see sparseKind;
// else the whole page). It returns the array and the page row of its
// first element.
func (r *Reader) decodeRows(ctx context.Context, ci, pi int, lo, hi uint64) (arrow.Array, uint64, error) {
	pm := r.cols[ci].pages[pi]
	f := r.schema.Field(ci)
	if lo >= hi || hi > pm.length {
		return nil, 0, corrupt(f.Name, "rows %d..%d of a page of %d", lo, hi, pm.length)
	}
	pl := pm.layout
	var bufs [][]byte
	var dict *leafData
	var first, n uint64
	switch r.sparseKind(ci, pm) {
	case sparseMiniBlock:
		aux, err := r.pageAux(ctx, ci, pi)
		if err != nil {
			return nil, 0, err
		}
		rows := aux.firstRow
		// chunks a..b hold rows lo..hi-1
		a := sort.Search(len(aux.chunks), func(i int) bool { return rows[i+1] > lo })
		b := sort.Search(len(aux.chunks), func(i int) bool { return rows[i+1] >= hi })
		if a >= len(aux.chunks) || b >= len(aux.chunks) {
			return nil, 0, corrupt(f.Name, "no chunk holds rows %d..%d", lo, hi)
		}
		ca, cb := aux.chunks[a], aux.chunks[b]
		data, err := r.src.readAt(ctx, pm.buffers[1].pos+uint64(ca.off), uint64(cb.off+cb.size-ca.off))
		if err != nil {
			return nil, 0, err
		}
		wb := pl.chunkWordBytes
		bufs = [][]byte{aux.table[a*wb : (b+1)*wb], data}
		dict = aux.dict
		first, n = rows[a], rows[b+1]-rows[a]
	case sparseFullZipFixed:
		cw, _ := controlWordBytes(pl.bitsDef)
		stride := uint64(cw) + pl.bitsPerValue/8
		data, err := r.src.readAt(ctx, pm.buffers[0].pos+lo*stride, (hi-lo)*stride)
		if err != nil {
			return nil, 0, err
		}
		bufs, first, n = [][]byte{data}, lo, hi-lo
	case sparseFullZipVariable:
		w := uint64(repIndexWidth(pm))
		idx, err := r.src.readAt(ctx, pm.buffers[1].pos+w*lo, w*(hi-lo+1))
		if err != nil {
			return nil, 0, err
		}
		p0, p1 := readWord(idx, int(8*w), 0), readWord(idx, int(8*w), int(hi-lo))
		if p0 > p1 || p1 > pm.buffers[0].size {
			return nil, 0, corrupt(f.Name, "full-zip repetition index positions %d..%d in a %d-byte buffer", p0, p1, pm.buffers[0].size)
		}
		data, err := r.src.readAt(ctx, pm.buffers[0].pos+p0, p1-p0)
		if err != nil {
			return nil, 0, err
		}
		bufs, first, n = [][]byte{data}, lo, hi-lo
	case sparseListMiniBlock:
		return r.decodeListRows(ctx, ci, pi, lo, hi)
	default:
		a, err := r.decodePage(ctx, ci, pm)
		if err != nil {
			return nil, 0, err
		}
		if uint64(a.Len()) != pm.length {
			a.Release()
			return nil, 0, corrupt(f.Name, "page %d decodes to %d rows, metadata says %d", pi, a.Len(), pm.length)
		}
		return a, 0, nil
	}
	sub := *pl
	sub.numItems = n
	if dict == nil && r.phys[ci].kind != physList && directable(r.phys[ci], &sub) {
		// plain mini-block chunks: decode only the rows asked for
		a, err := decodeMiniBlockWindow(f.Name, r.phys[ci], f.Type, &sub, n, bufs, lo-first, hi-first)
		if err != nil {
			return nil, 0, err
		}
		if a.NullN() > 0 && !f.Nullable {
			a.Release()
			return nil, 0, corrupt(f.Name, "nulls in a non-nullable column")
		}
		return a, lo, nil
	}
	a, err := r.decodeBuffers(ci, &sub, n, bufs, dict)
	if err != nil {
		return nil, 0, err
	}
	if uint64(a.Len()) != n {
		a.Release()
		return nil, 0, corrupt(f.Name, "rows %d..%d of page %d decode to %d rows", first, first+n, pi, a.Len())
	}
	return a, first, nil
}

// pageAux is what a sparse read of a mini-block page needs besides the
// chunks themselves: the chunk table and, for a dictionary page, the
// decoded dictionary. Read once per page and cached by the Reader (the
// dictionary is only read: lookupDictionary copies its items).
type pageAux struct {
	table  []byte      // page buffer 0
	chunks []chunkInfo // the parsed table (offsets within page buffer 1)
	// firstRow[i] is the page row of chunk i's first value;
	// firstRow[len(chunks)] is the page's row count.
	firstRow []uint64
	dict     *leafData // the decoded dictionary (page buffer 2) of a dictionary page
	// list pages: rowsBefore[i] is the number of rows starting before
	// chunk i (rowsBefore[len(chunks)] = the page's rows) and midRow[i]
	// says chunk i begins inside a row started in an earlier chunk.
	rowsBefore []uint64
	midRow     []bool
	rawDict    []byte // a list page's dictionary buffer (decoded per read)
}

func (a *pageAux) bytes() int64 {
	n := len(a.table) + len(a.rawDict) + 24*len(a.chunks) + 8*len(a.firstRow) + 9*len(a.rowsBefore) + 128
	if d := a.dict; d != nil {
		n += len(d.data) + 8*len(d.offsets) + len(d.fixed)
	}
	return int64(n)
}

// auxCache holds a Reader's pageAux entries, bounded in bytes: entries
// that would pass the bound are read again on every use instead. Readers
// shared through OpenCached count against one process-wide bound.
type auxCache struct {
	mu     sync.Mutex
	pages  map[[2]int]*pageAux
	used   int64         // this reader's bytes
	shared *atomic.Int64 // the bound's counter when shared, nil for own
	limit  int64
	closed bool // evicted from the shared cache: adds nothing more
}

// auxCacheBytes bounds a Reader's own aux cache (Open, OpenBytes).
const auxCacheBytes = 4 << 20

func newAuxCache() *auxCache { return &auxCache{limit: auxCacheBytes} }

func (c *auxCache) get(k [2]int) *pageAux {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pages[k]
}

func (c *auxCache) put(k [2]int, a *pageAux) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.pages[k] != nil {
		return
	}
	n := a.bytes()
	if c.shared != nil {
		if c.shared.Add(n) > c.limit {
			c.shared.Add(-n)
			return
		}
	} else if c.used+n > c.limit {
		return
	}
	if c.pages == nil {
		c.pages = map[[2]int]*pageAux{}
	}
	c.pages[k] = a
	c.used += n
}

// release drops every entry and returns their bytes to the shared bound.
func (c *auxCache) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	if c.shared != nil {
		c.shared.Add(-c.used)
	}
	c.pages, c.used = nil, 0
}

// pageAux returns page pi of column ci's chunk table (and dictionary),
// from the cache or read now.
func (r *Reader) pageAux(ctx context.Context, ci, pi int) (*pageAux, error) {
	k := [2]int{ci, pi}
	if a := r.aux.get(k); a != nil {
		return a, nil
	}
	pm := r.cols[ci].pages[pi]
	col := r.schema.Field(ci).Name
	table, err := r.src.readAt(ctx, pm.buffers[0].pos, pm.buffers[0].size)
	if err != nil {
		return nil, err
	}
	items := pm.length
	if r.phys[ci].kind == physList {
		items = pm.layout.numItems
	}
	chunks, err := parseChunkTable(col, table, pm.layout.chunkWordBytes, int(min(pm.buffers[1].size, 1<<62)), items)
	if err != nil {
		return nil, err
	}
	a := &pageAux{table: table, chunks: chunks, firstRow: make([]uint64, len(chunks)+1)}
	for i, c := range chunks {
		a.firstRow[i+1] = a.firstRow[i] + uint64(c.values)
	}
	if pl := pm.layout; pl.dictionary != nil && r.phys[ci].kind != physList {
		b, err := r.src.readAt(ctx, pm.buffers[2].pos, pm.buffers[2].size)
		if err != nil {
			return nil, err
		}
		if a.dict, err = decodeDictionary(col, r.phys[ci], pl.dictionary, pl.numDictItems, b); err != nil {
			return nil, err
		}
	}
	if r.phys[ci].kind == physList {
		if err := r.listRowMap(ctx, ci, pm, a); err != nil {
			return nil, err
		}
		if pm.layout.dictionary != nil {
			if a.rawDict, err = r.src.readAt(ctx, pm.buffers[2].pos, pm.buffers[2].size); err != nil {
				return nil, err
			}
		}
	}
	r.aux.put(k, a)
	return a, nil
}

// listRowMap fills a list page's row map (a.rowsBefore, a.midRow) from
// the repetition levels of every chunk: the first sparse read of a list
// page reads its chunks once (the repetition index Lance writes is not
// read), later ones only the chunks holding their rows.
func (r *Reader) listRowMap(ctx context.Context, ci int, pm pageMeta, a *pageAux) error {
	col := r.schema.Field(ci).Name
	pl := pm.layout
	data, err := r.src.readAt(ctx, pm.buffers[1].pos, pm.buffers[1].size)
	if err != nil {
		return err
	}
	a.rowsBefore = make([]uint64, len(a.chunks)+1)
	a.midRow = make([]bool, len(a.chunks))
	for i, ch := range a.chunks {
		rc, err := splitChunk(col, data[ch.off:ch.off+ch.size], true, pl.def != nil, int(min(pl.numBuffers, 16)))
		if err != nil {
			return err
		}
		reps, err := decodeLevels(col, pl.rep, rc.rep, rc.numLevels)
		if err != nil {
			return err
		}
		if len(reps) == 0 {
			return corrupt(col, "list chunk %d without levels", i)
		}
		starts := uint64(0)
		for _, rep := range reps {
			if rep == 1 {
				starts++
			}
		}
		a.midRow[i] = reps[0] != 1
		a.rowsBefore[i+1] = a.rowsBefore[i] + starts
	}
	if a.rowsBefore[len(a.chunks)] != pm.length || (len(a.chunks) > 0 && a.midRow[0]) {
		return corrupt(col, "list page levels start %d rows, metadata says %d", a.rowsBefore[len(a.chunks)], pm.length)
	}
	return nil
}

// decodeListRows decodes rows [lo, hi) of a mini-block list page from
// the chunks holding them: from the chunk where row lo starts to the
// one where row hi-1 ends. A leading partial row (the end of a row
// started in an earlier chunk) and a trailing one (a row continuing past
// the last chunk read) are decoded as rows of their own and sliced off.
func (r *Reader) decodeListRows(ctx context.Context, ci, pi int, lo, hi uint64) (arrow.Array, uint64, error) {
	pm := r.cols[ci].pages[pi]
	aux, err := r.pageAux(ctx, ci, pi)
	if err != nil {
		return nil, 0, err
	}
	nc := len(aux.chunks)
	rb := aux.rowsBefore
	// the chunk where row x starts
	startChunk := func(x uint64) int { return sort.Search(nc, func(i int) bool { return rb[i+1] > x }) }
	a := startChunk(lo)
	b := nc - 1
	if hi < pm.length {
		k := startChunk(hi)
		if k >= nc {
			return nil, 0, corrupt(r.schema.Field(ci).Name, "no chunk starts row %d", hi)
		}
		b = k
		if rb[k] == hi && !aux.midRow[k] {
			b = k - 1 // row hi opens chunk k: rows before it end in k-1
		}
	}
	if a >= nc || b < a {
		return nil, 0, corrupt(r.schema.Field(ci).Name, "no chunks hold rows %d..%d", lo, hi)
	}
	ca, cb := aux.chunks[a], aux.chunks[b]
	data, err := r.src.readAt(ctx, pm.buffers[1].pos+uint64(ca.off), uint64(cb.off+cb.size-ca.off))
	if err != nil {
		return nil, 0, err
	}
	lead, trail := 0, 0
	if aux.midRow[a] {
		lead = 1
	}
	if b+1 < nc && aux.midRow[b+1] {
		trail = 1
	}
	rows := rb[b+1] - rb[a] + uint64(lead)
	sub := *pm.layout
	sub.numItems = aux.firstRow[b+1] - aux.firstRow[a]
	sub.leadingPartialRow = lead == 1
	wb := sub.chunkWordBytes
	bufs := [][]byte{aux.table[a*wb : (b+1)*wb], data}
	if sub.dictionary != nil {
		bufs = append(bufs, aux.rawDict)
	}
	arr, err := r.decodeBuffers(ci, &sub, rows, bufs, nil)
	if err != nil {
		return nil, 0, err
	}
	defer arr.Release()
	if uint64(arr.Len()) != rows || rows < uint64(lead+trail) {
		return nil, 0, corrupt(r.schema.Field(ci).Name, "list chunks %d..%d decode to %d rows, want %d", a, b, arr.Len(), rows)
	}
	first := rb[a]
	if first > lo || first+rows-uint64(lead+trail) < hi {
		return nil, 0, corrupt(r.schema.Field(ci).Name, "list chunks %d..%d hold rows %d+%d, not %d..%d", a, b, first, rows, lo, hi)
	}
	return array.NewSlice(arr, int64(lead), int64(rows)-int64(trail)), first, nil
}
