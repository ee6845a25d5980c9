package lance

import (
	"container/list"
	"context"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/lance/file"
	"github.com/pggraph/pggraph/lance/format"
	"github.com/pggraph/pggraph/lance/schema"
	"github.com/pggraph/pggraph/objstore"
)

// RowAddressColumn is the name of the row address column a scan adds
// when ScanOptions.WithRowAddress is set (Lance calls it _rowaddr).
const RowAddressColumn = "_rowaddr"

// ScanOptions select what a scan returns.
type ScanOptions struct {
	// Columns to read, by name, in output order; nil = every column.
	// An empty non-nil slice reads no data columns (useful with
	// WithRowAddress: addresses only, no data file I/O).
	Columns []string
	// WithRowAddress appends a non-null uint64 column "_rowaddr" holding
	// (fragment_id << 32) | row offset.
	WithRowAddress bool
	// RowAddresses, when non-nil, restricts the scan to these rows
	// (pushdown of a row-address set: fragments without any are skipped
	// unopened).
	RowAddresses []uint64
	// FragmentFilter, when non-nil, skips fragments for which it
	// returns false (a pruning hook for callers with their own stats).
	FragmentFilter func(*format.Fragment) bool
	// BatchRows bounds the rows read per batch (default 8192); batches
	// may be smaller after deleted rows are removed.
	BatchRows int
}

// Scanner streams the live rows of a dataset version, fragment by
// fragment in id order, with deletion vectors applied.
type Scanner struct {
	ds     *Dataset
	opts   ScanOptions
	schema *arrow.Schema
	cols   []projected
	frags  []*format.Fragment
	// selected holds the wanted row offsets per fragment (sorted by
	// fragment id) when RowAddresses is set
	selected  []fragSelection
	selecting bool
	next      int // index into frags of the next fragment
	cur       *fragScan
}

// projected is one output data column.
type projected struct {
	name    string
	fieldID int32 // the top-level field
	// colID is the field id a DataFile records for the field's column:
	// a list's item (schema.ColumnFieldID), the field itself otherwise
	colID int32
}

type fragScan struct {
	frag      *format.Fragment
	dv        *roaring.Bitmap
	sel       []uint32        // the wanted row offsets, sorted, when selecting
	selecting bool            // false = all rows
	ranges    []file.RowRange // rows to read, sorted (all rows without sel)
	ri        int             // index of the current range
	offset    uint64          // row offset of the next batch
	readers   []fileScan
}

// selectionGap is the largest run of unselected rows folded into a
// neighbouring range: reading a few extra rows of a page already being
// decoded is cheaper than another batch.
const selectionGap = 64

// fragSelection is the row offsets a scan wants of one fragment.
type fragSelection struct {
	id   uint64
	offs []uint32 // sorted, distinct
}

// selectRowAddresses groups row addresses by fragment: sorted, distinct
// offsets per fragment, in fragment id order (slices of one array; a
// point lookup builds no map or bitmap).
func selectRowAddresses(addrs []uint64) []fragSelection {
	if !slices.IsSorted(addrs) {
		addrs = slices.Clone(addrs)
		slices.Sort(addrs)
	}
	offs := make([]uint32, 0, len(addrs))
	var out []fragSelection
	for i := 0; i < len(addrs); {
		f, _ := SplitRowAddress(addrs[i])
		start := len(offs)
		for ; i < len(addrs); i++ {
			g, off := SplitRowAddress(addrs[i])
			if g != f {
				break
			}
			if len(offs) > start && offs[len(offs)-1] == off {
				continue
			}
			offs = append(offs, off)
		}
		out = append(out, fragSelection{id: f, offs: offs[start:len(offs):len(offs)]})
	}
	return out
}

// selection returns the offsets wanted of fragment id (ok=false: none).
func (s *Scanner) selection(id uint64) ([]uint32, bool) {
	i := sort.Search(len(s.selected), func(i int) bool { return s.selected[i].id >= id })
	if i < len(s.selected) && s.selected[i].id == id {
		return s.selected[i].offs, true
	}
	return nil, false
}

// rangesOf turns sorted row offsets into sorted row ranges within the
// fragment's rows, merging ranges separated by at most selectionGap rows.
func rangesOf(sel []uint32, rows uint64) []file.RowRange {
	var out []file.RowRange
	for _, o := range sel {
		off := uint64(o)
		if off >= rows {
			break
		}
		if n := len(out); n > 0 && off <= out[n-1].End+selectionGap {
			out[n-1].End = off + 1
			continue
		}
		out = append(out, file.RowRange{Start: off, End: off + 1})
	}
	return out
}

type fileScan struct {
	sc  *file.Scanner
	out []int // output column position of each scanned column
}

// Scan starts a scan of d.
func (d *Dataset) Scan(ctx context.Context, opts ScanOptions) (*Scanner, error) {
	if opts.BatchRows <= 0 {
		opts.BatchRows = 8192
	}
	s := &Scanner{ds: d, opts: opts}
	plan, err := d.scanPlan(opts.Columns, opts.WithRowAddress)
	if err != nil {
		return nil, err
	}
	s.cols, s.schema = plan.cols, plan.schema
	if opts.RowAddresses != nil {
		s.selected, s.selecting = selectRowAddresses(opts.RowAddresses), true
	}
	for i := range d.Fragments() {
		fr := &d.Fragments()[i]
		if s.selecting {
			if _, ok := s.selection(fr.ID); !ok {
				continue
			}
		}
		if opts.FragmentFilter != nil && !opts.FragmentFilter(fr) {
			continue
		}
		s.frags = append(s.frags, fr)
	}
	return s, nil
}

// scanPlan is the projected columns and output schema of a scan of
// some columns; plans are kept per dataset schema (a version that kept
// its schema shares its predecessor's), so a point lookup does not
// rebuild them.
type scanPlan struct {
	cols   []projected // read-only once made
	schema *arrow.Schema
}

type planKey struct {
	schema  *arrow.Schema
	fields  *schema.Field // &fields[0] (nil without fields)
	nfields int
	cols    string
	addr    bool
}

// maxScanPlans bounds the plan cache (cleared whole when full).
const maxScanPlans = 512

var scanPlans struct {
	mu sync.Mutex
	m  map[planKey]*scanPlan
}

func (d *Dataset) scanPlan(columns []string, withAddr bool) (*scanPlan, error) {
	k := planKey{schema: d.schema, nfields: len(d.fields), cols: "*", addr: withAddr}
	if len(d.fields) > 0 {
		k.fields = &d.fields[0]
	}
	if columns != nil {
		k.cols = "=" + strings.Join(columns, "\x00")
	}
	scanPlans.mu.Lock()
	p := scanPlans.m[k]
	scanPlans.mu.Unlock()
	if p != nil {
		return p, nil
	}
	p = &scanPlan{}
	top := topLevelFields(d)
	var fs []arrow.Field
	if d.schema != nil {
		names := columns
		if names == nil {
			for _, f := range d.schema.Fields() {
				names = append(names, f.Name)
			}
		}
		for _, n := range names {
			idx := d.schema.FieldIndices(n)
			if len(idx) != 1 {
				return nil, wrapf(ErrInvalidArgument, "no column %q", n)
			}
			col, ok := schema.ColumnFieldID(d.fields, top[idx[0]])
			if !ok {
				col = top[idx[0]]
			}
			p.cols = append(p.cols, projected{name: n, fieldID: top[idx[0]], colID: col})
			fs = append(fs, d.schema.Field(idx[0]))
		}
	} else if len(columns) > 0 {
		return nil, wrapf(ErrInvalidArgument, "dataset has no schema yet")
	}
	if withAddr {
		fs = append(fs, arrow.Field{Name: RowAddressColumn, Type: arrow.PrimitiveTypes.Uint64})
	}
	var md arrow.Metadata
	if d.schema != nil {
		md = d.schema.Metadata()
	}
	p.schema = arrow.NewSchema(fs, &md)
	scanPlans.mu.Lock()
	if scanPlans.m == nil || len(scanPlans.m) >= maxScanPlans {
		scanPlans.m = map[planKey]*scanPlan{}
	}
	scanPlans.m[k] = p
	scanPlans.mu.Unlock()
	return p, nil
}

// topLevelFields returns the Lance field id of each top-level Arrow field.
func topLevelFields(d *Dataset) []int32 {
	var ids []int32
	for _, f := range d.fields {
		if f.ParentID == -1 {
			ids = append(ids, f.ID)
		}
	}
	return ids
}

// Schema is the schema of the batches.
func (s *Scanner) Schema() *arrow.Schema { return s.schema }

// Next returns the next non-empty batch, or io.EOF after the last one.
// The caller releases the batch.
func (s *Scanner) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if s.cur == nil {
			if s.next >= len(s.frags) {
				return nil, io.EOF
			}
			fs, err := s.openFragment(ctx, s.frags[s.next])
			if err != nil {
				return nil, err
			}
			s.next++
			s.cur = fs
		}
		rec, err := s.cur.nextBatch(ctx, s)
		if err == io.EOF {
			s.cur.close()
			s.cur = nil
			continue
		}
		if err != nil {
			return nil, err
		}
		if rec != nil {
			return rec, nil
		}
	}
}

// Close releases the scanner.
func (s *Scanner) Close() {
	if s.cur != nil {
		s.cur.close()
		s.cur = nil
	}
}

func (s *Scanner) openFragment(ctx context.Context, fr *format.Fragment) (*fragScan, error) {
	dv, err := scanDeletionVector(ctx, s.ds, fr)
	if err != nil {
		return nil, err
	}
	fs := &fragScan{frag: fr, dv: dv, ranges: []file.RowRange{{Start: 0, End: fr.PhysicalRows}}}
	var fileRanges []file.RowRange // nil = every row
	if s.selecting {
		// Only pages overlapping the selected rows are fetched and decoded.
		fs.sel, _ = s.selection(fr.ID)
		fs.selecting = true
		fs.ranges = rangesOf(fs.sel, fr.PhysicalRows)
		if len(fs.ranges) == 0 {
			return fs, nil // nothing selected exists: no file is opened
		}
		fileRanges = fs.ranges
	}
	if fs.ranges[0].End == 0 {
		fs.ranges = nil // an empty fragment
	} else {
		fs.offset = fs.ranges[0].Start
	}
	// group the projected columns by the data file holding them
	byFile := map[int][]int{}
	for pos, c := range s.cols {
		fi := dataFileOf(fr, c)
		if fi < 0 {
			return nil, wrapf(ErrCorrupt, "fragment %d has no data file with column %q", fr.ID, c.name)
		}
		byFile[fi] = append(byFile[fi], pos)
	}
	files := make([]int, 0, len(byFile))
	for fi := range byFile {
		files = append(files, fi)
	}
	sort.Ints(files)
	for _, fi := range files {
		df := &fr.Files[fi]
		key, err := s.ds.dataFileKey(df)
		if err != nil {
			fs.close()
			return nil, err
		}
		r, err := file.OpenCached(ctx, s.ds.store, key, df.FileSizeBytes)
		if err != nil {
			fs.close()
			return nil, err
		}
		if r.NumRows() != fr.PhysicalRows {
			fs.close()
			return nil, wrapf(ErrCorrupt, "data file %s has %d rows, fragment %d says %d", df.Path, r.NumRows(), fr.ID, fr.PhysicalRows)
		}
		var names []string
		for _, pos := range byFile[fi] {
			name, ok := fileColumnName(r, s.cols[pos].fieldID)
			if !ok {
				fs.close()
				return nil, wrapf(ErrCorrupt, "data file %s lacks field id %d", df.Path, s.cols[pos].fieldID)
			}
			names = append(names, name)
		}
		sc, err := r.Scan(file.ScanOptions{Columns: names, BatchRows: s.opts.BatchRows, Ranges: fileRanges})
		if err != nil {
			fs.close()
			return nil, err
		}
		fs.readers = append(fs.readers, fileScan{sc: sc, out: byFile[fi]})
	}
	return fs, nil
}

func fileColumnName(r *file.Reader, id int32) (string, bool) {
	for _, f := range r.Fields() {
		if f.ID == id && f.ParentID == -1 {
			return f.Name, true
		}
	}
	return "", false
}

func (fs *fragScan) close() {
	for _, r := range fs.readers {
		r.sc.Close()
	}
	fs.readers = nil
}

// nextBatch returns the live, selected rows of the next BatchRows rows of
// the fragment (nil when none survive), or io.EOF.
func (fs *fragScan) nextBatch(ctx context.Context, s *Scanner) (arrow.RecordBatch, error) {
	if fs.ri >= len(fs.ranges) {
		return nil, io.EOF
	}
	// the file scanners cut batches the same way: at BatchRows and at
	// range ends
	rg := fs.ranges[fs.ri]
	n := min(uint64(s.opts.BatchRows), rg.End-fs.offset)
	start := fs.offset
	fs.offset += n
	if fs.offset == rg.End {
		if fs.ri++; fs.ri < len(fs.ranges) {
			fs.offset = fs.ranges[fs.ri].Start
		}
	}
	cols := make([]arrow.Array, len(s.schema.Fields()))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	var arrs [8]arrow.Array
	for _, r := range fs.readers {
		got, rows, err := r.sc.NextArrays(ctx, arrs[:0])
		if err != nil {
			if err == io.EOF {
				return nil, wrapf(ErrCorrupt, "data file of fragment %d ended early", fs.frag.ID)
			}
			return nil, err
		}
		for i, pos := range r.out {
			cols[pos] = got[i] // cols releases it
		}
		if uint64(rows) != n {
			return nil, wrapf(ErrCorrupt, "data files of fragment %d are misaligned", fs.frag.ID)
		}
	}
	keep, kept := fs.keepMask(start, n)
	if kept == 0 {
		return nil, nil
	}
	if s.opts.WithRowAddress {
		addrs := make([]uint64, n)
		for i := range addrs {
			addrs[i] = RowAddress(fs.frag.ID, uint32(start+uint64(i)))
		}
		data := array.NewData(arrow.PrimitiveTypes.Uint64, int(n),
			[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Uint64Traits.CastToBytes(addrs))}, nil, 0, 0)
		cols[len(cols)-1] = array.NewUint64Data(data)
		data.Release()
	}
	rec := array.NewRecordBatch(s.schema, cols, int64(n))
	if keep == nil {
		return rec, nil
	}
	defer rec.Release()
	return selectRows(rec, runsOf(keep))
}

// keepMask says which of the rows [start, start+n) survive the deletion
// vector and the address selection, walking only the deleted and
// selected offsets in that window. keep == nil means every row.
func (fs *fragScan) keepMask(start, n uint64) (keep []bool, kept int) {
	end := start + n
	kept = int(n)
	if fs.selecting {
		keep, kept = make([]bool, n), 0
		i := sort.Search(len(fs.sel), func(i int) bool { return uint64(fs.sel[i]) >= start })
		for ; i < len(fs.sel) && uint64(fs.sel[i]) < end; i++ {
			keep[uint64(fs.sel[i])-start] = true
			kept++
		}
	}
	if fs.dv != nil && !fs.dv.IsEmpty() {
		it := fs.dv.Iterator()
		it.AdvanceIfNeeded(uint32(start))
		for it.HasNext() && uint64(it.PeekNext()) < end {
			i := uint64(it.Next()) - start
			if keep == nil {
				keep = make([]bool, n)
				for j := range keep {
					keep[j] = true
				}
			}
			if keep[i] {
				keep[i] = false
				kept--
			}
		}
	}
	if keep != nil && kept == int(n) {
		keep = nil
	}
	return keep, kept
}

// runsOf turns a keep mask into [start, end) runs of kept rows.
func runsOf(keep []bool) [][2]int {
	var runs [][2]int
	for i := 0; i < len(keep); {
		if !keep[i] {
			i++
			continue
		}
		j := i
		for j < len(keep) && keep[j] {
			j++
		}
		runs = append(runs, [2]int{i, j})
		i = j
	}
	return runs
}

// selectRows returns a batch made of the given row runs of rec, in order
// (runs may repeat or go backwards: Take uses runs of length one).
func selectRows(rec arrow.RecordBatch, runs [][2]int) (arrow.RecordBatch, error) {
	n := 0
	for _, r := range runs {
		n += r[1] - r[0]
	}
	cols := make([]arrow.Array, rec.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for ci := range cols {
		col := rec.Column(ci)
		switch len(runs) {
		case 0:
			cols[ci] = array.NewSlice(col, 0, 0)
			continue
		case 1:
			cols[ci] = array.NewSlice(col, int64(runs[0][0]), int64(runs[0][1]))
			continue
		}
		parts := make([]arrow.Array, len(runs))
		for i, r := range runs {
			parts[i] = array.NewSlice(col, int64(r[0]), int64(r[1]))
		}
		c, err := array.Concatenate(parts, memory.DefaultAllocator)
		for _, p := range parts {
			p.Release()
		}
		if err != nil {
			return nil, err
		}
		cols[ci] = c
	}
	return array.NewRecordBatch(rec.Schema(), cols, int64(n)), nil
}

// scanDeletionVector is fragment fr's deletion vector for a scan (nil
// when it has none). Deletion files are immutable (named by the version
// and id that wrote them), so decoded vectors are cached per store and
// key, bounded in entries and bytes: a point lookup then reads no
// deletion file. The cached bitmaps are only read (keepMask), never
// handed out to callers that could change them.
func scanDeletionVector(ctx context.Context, d *Dataset, fr *format.Fragment) (*roaring.Bitmap, error) {
	if fr.DeletionFile == nil {
		return nil, nil
	}
	key, err := d.deletionFileKey(fr.ID, fr.DeletionFile)
	if err != nil {
		return nil, err
	}
	id, ok := objstore.Backend(d.store)
	if !ok {
		return d.deletionVector(ctx, fr)
	}
	k := dvKey{store: id, key: key, kind: fr.DeletionFile.FileType, rows: fr.DeletionFile.NumDeletedRows}
	if bm := dvCache.get(k); bm != nil {
		return bm, nil
	}
	bm, err := d.deletionVector(ctx, fr)
	if err != nil {
		return nil, err
	}
	dvCache.put(k, bm)
	return bm, nil
}

type dvKey struct {
	store objstore.Store
	key   string
	kind  format.DeletionFileType
	rows  uint64
}

const (
	dvCacheEntries = 1024
	dvCacheBytes   = 32 << 20
)

type dvEntry struct {
	k     dvKey
	bm    *roaring.Bitmap
	bytes uint64
}

// deletionCache is an LRU of decoded deletion vectors.
type deletionCache struct {
	mu    sync.Mutex
	byKey map[dvKey]*list.Element
	lru   list.List // front = most recently used
	bytes uint64
}

var dvCache = &deletionCache{byKey: map[dvKey]*list.Element{}}

func (c *deletionCache) get(k dvKey) *roaring.Bitmap {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.byKey[k]; e != nil {
		c.lru.MoveToFront(e)
		return e.Value.(*dvEntry).bm
	}
	return nil
}

func (c *deletionCache) put(k dvKey, bm *roaring.Bitmap) {
	n := bm.GetSizeInBytes()
	if n > dvCacheBytes/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byKey[k] != nil {
		return
	}
	c.byKey[k] = c.lru.PushFront(&dvEntry{k: k, bm: bm, bytes: n})
	c.bytes += n
	for c.lru.Len() > dvCacheEntries || c.bytes > dvCacheBytes {
		e := c.lru.Back()
		de := e.Value.(*dvEntry)
		c.lru.Remove(e)
		delete(c.byKey, de.k)
		c.bytes -= de.bytes
	}
}
