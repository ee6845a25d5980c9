package lancesrc

import (
	"container/list"
	"context"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"weak"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/lance/format"
	"github.com/pggraph/pggraph/objstore"
)

// Covering lookups. A key lookup finds row addresses in the key index;
// reading the rows' other columns from Lance pages (a chunk read and
// decode per row and column, or a row-address scan) was most of the cost
// of a traversal: every hop reads the far endpoint of each edge found.
// The column cache keeps, for fixed-width columns (integers, floats,
// dates, timestamps) and text, the values of whole fragments in memory, indexed by
// row offset, so a lookup whose requested columns are all cached builds
// its batch from memory: the key index gives the addresses, the cache
// the included columns (dst per src and src per dst on an edge table,
// as a covering index's INCLUDE columns would).
//
// Versioning: Lance never rewrites a fragment's data files (new data
// means new files; deletions only add a deletion file), so the values at
// an offset are a function of the data files alone. Entries are keyed by
// the dataset (store, root, branch), the fragment's data file paths and
// the column's Lance field id and type: every version, branch checkout
// or time-travel read that references the same files sees the same
// values, and a commit that adds fragments only loads those. Which rows
// are live is not the cache's business (the key index returns only live
// addresses of its version); an entry records the offsets it read
// (the rows live when it was loaded), and a lookup touching an offset
// outside them (a row deleted then, live in an older version being
// read) is answered from Lance instead.
//
// Memory: entries are evicted least recently used beyond a byte bound
// (SetColumnCacheLimit, default 256 MiB); a table whose requested
// columns would take more than half of it is never cached.
type colCache struct {
	mu      sync.Mutex
	limit   int64
	bytes   int64
	entries map[colKey]*colEntry
	lru     *list.List // of *colEntry, most recently used first
	loads   int        // fragment columns read (tests)
	// demand counts the rows looked up in fragment columns not cached
	// yet (see worthLoading); cleared when it grows past demandKeys.
	demand map[colKey]int64
}

// Loading a fragment column reads all its rows; reading a few rows from
// Lance costs at least one encoded page of each column, kilobytes where a
// cached value is 8 bytes. A column is loaded only once lookups asked for
// at least 1/loadDemandRatio of the fragment's rows (rent or buy: by then
// the pages read row by row weigh about as much as the load), so a one-off
// point lookup in a big table never reads a whole column, while the
// repeated lookups of traversals buy it after a few queries.
const (
	loadDemandRatio = 512
	demandKeys      = 4096
)

type colKey struct {
	store        objstore.Store
	root, branch string
	files        string // the fragment's data files (paths and bases)
	frag         uint64
	field        int32
	typ          string
}

type colEntry struct {
	key  colKey
	elem *list.Element
	once sync.Once
	col  *fragColumn
	err  error
	// gone: evicted or failed, no longer in entries (guarded by the
	// cache's mu); a Source's memo of the entry then misses.
	gone bool
}

// fragColumn holds one column of one fragment: fixed-width values in
// vals, strings (width -1) in strs.
type fragColumn struct {
	width  int
	vals   []byte          // value of offset o at vals[o*width:]
	strs   []string        // text: value of offset o at strs[o]
	nulls  *roaring.Bitmap // offsets holding NULL; nil: none
	filled *roaring.Bitmap // offsets read
	bytes  int64
}

// DefaultColumnCacheBytes is the default memory bound of the column
// cache.
const DefaultColumnCacheBytes = 256 << 20

var sharedColumns = &colCache{limit: DefaultColumnCacheBytes, entries: map[colKey]*colEntry{}, lru: list.New()}

// SetColumnCacheLimit bounds the memory of the process-wide column cache
// of covering lookups; 0 disables it (lookups read rows from Lance).
func SetColumnCacheLimit(bytes int64) {
	c := sharedColumns
	c.mu.Lock()
	defer c.mu.Unlock()
	c.limit = bytes
	c.evictLocked()
}

// cacheable returns the byte width of a column type the cache holds, -1
// for strings, or 0: fixed-width primitives and strings only (booleans
// are bit-packed, lists and vectors are not primitives).
func cacheable(dt arrow.DataType) int {
	if dt.ID() == arrow.STRING {
		return -1
	}
	fw, ok := dt.(arrow.FixedWidthDataType)
	if !ok || dt.ID() == arrow.BOOL || dt.ID() == arrow.FIXED_SIZE_BINARY || dt.ID() == arrow.DECIMAL128 || dt.ID() == arrow.DECIMAL256 {
		return 0
	}
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT32, arrow.FLOAT64, arrow.DATE32, arrow.DATE64, arrow.TIME32, arrow.TIME64, arrow.TIMESTAMP, arrow.DURATION:
		return fw.BitWidth() / 8
	}
	return 0
}

// coverPlan says how a Source answers lookups of a projection from the
// cache.
type coverPlan struct {
	cols   []int
	fields []arrow.Field
	ids    []int32
	widths []int
	schema *arrow.Schema
}

// coverFor returns the plan for the requested columns, or nil when one
// of them is not cacheable or the table is too large for the cache.
func (s *Source) coverFor(cols []int) *coverPlan {
	if p := s.lastCover.Load(); p != nil && sameInts(p.cols, cols) {
		return p
	}
	c := sharedColumns
	c.mu.Lock()
	limit := c.limit
	c.mu.Unlock()
	if limit <= 0 {
		return nil
	}
	st := s.ds.Store()
	if st == nil || !reflect.TypeOf(st).Comparable() {
		return nil
	}
	sch := s.ds.Schema()
	p := &coverPlan{cols: append([]int(nil), cols...)}
	var width int64
	for _, ci := range cols {
		if ci < 0 || ci >= len(s.cols) {
			return nil
		}
		name := s.cols[ci].Name
		idx := sch.FieldIndices(name)
		if len(idx) != 1 {
			return nil
		}
		f := sch.Field(idx[0])
		w := cacheable(f.Type)
		if w == 0 {
			return nil
		}
		est := w
		if w < 0 {
			est = estStringBytes
		}
		id, ok := fieldID(s.ds, name)
		if !ok {
			return nil
		}
		p.fields = append(p.fields, f)
		p.ids = append(p.ids, id)
		p.widths = append(p.widths, w)
		width += int64(est)
	}
	if int64(s.ds.CountRows())*width > limit/2 {
		return nil
	}
	p.schema = arrow.NewSchema(p.fields, nil)
	s.lastCover.Store(p)
	return p
}

func sameInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func fieldID(ds *lance.Dataset, name string) (int32, bool) {
	for _, f := range ds.Fields() {
		if f.ParentID == -1 && f.Name == name {
			return f.ID, true
		}
	}
	return 0, false
}

// filesOf identifies a fragment's data files (paths and base ids).
func filesOf(fr *format.Fragment) string {
	var sb strings.Builder
	for i := range fr.Files {
		sb.WriteString(fr.Files[i].Path)
		if b := fr.Files[i].BaseID; b != nil {
			sb.WriteByte('@')
			sb.WriteString(strconv.FormatUint(uint64(*b), 10))
		}
		sb.WriteByte(0)
	}
	return sb.String()
}

func columnKey(ds *lance.Dataset, fr *format.Fragment, field int32, f arrow.Field) colKey {
	return colKey{store: ds.Store(), root: ds.Root(), branch: ds.Branch(), files: filesOf(fr), frag: fr.ID, field: field, typ: f.Type.String()}
}

// worthLoading reports whether a lookup of n rows of fr should be served
// from the cache: the column is cached (or loading) already, or the rows
// asked for since it was last evicted reach 1/loadDemandRatio of the
// fragment.
func (c *colCache) worthLoading(key colKey, fr *format.Fragment, n int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries[key] != nil {
		return true
	}
	if c.demand == nil || len(c.demand) >= demandKeys {
		c.demand = map[colKey]int64{}
	}
	d := c.demand[key] + int64(n)
	if d*loadDemandRatio >= int64(fr.PhysicalRows) {
		delete(c.demand, key)
		return true
	}
	c.demand[key] = d
	return false
}

// touch marks e (loaded) most recently used and reports whether it is
// still cached; a Source's memo (cachedColumn) calls it instead of
// building the entry's key.
func (c *colCache) touch(e *colEntry) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.gone {
		return false
	}
	c.lru.MoveToFront(e.elem)
	return true
}

// entry returns the cache entry of field (named name) in fr, loading
// its values on first use.
func (c *colCache) entry(ctx context.Context, ds *lance.Dataset, fr *format.Fragment, name string, field int32, f arrow.Field, width int) (*colEntry, error) {
	key := columnKey(ds, fr, field, f)
	c.mu.Lock()
	e := c.entries[key]
	if e == nil {
		e = &colEntry{key: key}
		e.elem = c.lru.PushFront(e)
		c.entries[key] = e
	} else {
		c.lru.MoveToFront(e.elem)
	}
	c.mu.Unlock()
	c.mu.Lock()
	budget := c.limit / 2
	c.mu.Unlock()
	e.once.Do(func() {
		e.col, e.err = loadColumn(ctx, ds, fr, name, width, budget)
		c.mu.Lock()
		defer c.mu.Unlock()
		if e.err == errTooLarge {
			return // kept as a negative entry: lookups read Lance
		}
		if e.err != nil {
			if c.entries[key] == e {
				c.lru.Remove(e.elem)
				delete(c.entries, key)
				e.gone = true
			}
			return
		}
		c.loads++
		if c.entries[key] == e {
			c.bytes += e.col.bytes
			c.evictLocked()
		}
	})
	if e.err != nil {
		return nil, e.err
	}
	return e, nil
}

// evictLocked drops least recently used entries beyond the limit
// (guarded by c.mu). Entries still loading count nothing yet.
func (c *colCache) evictLocked() {
	for c.bytes > c.limit && c.lru.Len() > 0 {
		el := c.lru.Back()
		e := el.Value.(*colEntry)
		c.lru.Remove(el)
		delete(c.entries, e.key)
		e.gone = true
		if e.col != nil {
			c.bytes -= e.col.bytes
		}
	}
}

// loadColumn reads one column of one fragment (its live rows).
func loadColumn(ctx context.Context, ds *lance.Dataset, fr *format.Fragment, name string, width int, budget int64) (*fragColumn, error) {
	fc := &fragColumn{width: width, filled: roaring.New()}
	if width < 0 {
		fc.strs = make([]string, fr.PhysicalRows)
	} else {
		fc.vals = make([]byte, int(fr.PhysicalRows)*width)
	}
	var strBytes int64
	id := fr.ID
	err := scanPlain(ctx, ds, lance.ScanOptions{Columns: []string{name}, WithRowAddress: true, FragmentFilter: func(f *format.Fragment) bool { return f.ID == id }}, func(rec arrow.RecordBatch, addrs []uint64) error {
		a := rec.Column(0)
		if width < 0 {
			sa, ok := a.(*array.String)
			if !ok {
				return errNotFixed
			}
			addRuns(map[uint64]*roaring.Bitmap{id: fc.filled}, addrs)
			for i, ad := range addrs {
				_, off := lance.SplitRowAddress(ad)
				if uint64(off) >= fr.PhysicalRows {
					return errNotFixed
				}
				if sa.IsNull(i) {
					if fc.nulls == nil {
						fc.nulls = roaring.New()
					}
					fc.nulls.Add(off)
					continue
				}
				// a copy: the scan's strings alias its page buffers
				fc.strs[off] = strings.Clone(sa.Value(i))
				strBytes += int64(len(fc.strs[off]))
			}
			if strBytes > budget {
				return errTooLarge // long texts: not worth holding
			}
			return nil
		}
		d := a.Data()
		bufs := d.Buffers()
		if len(bufs) < 2 || bufs[1] == nil {
			if a.NullN() != a.Len() {
				return errNotFixed
			}
		}
		var raw []byte
		if len(bufs) >= 2 && bufs[1] != nil {
			raw = bufs[1].Bytes()[d.Offset()*width:]
		}
		addRuns(map[uint64]*roaring.Bitmap{id: fc.filled}, addrs)
		for i, ad := range addrs {
			_, off := lance.SplitRowAddress(ad)
			if uint64(off) >= fr.PhysicalRows {
				return errNotFixed
			}
			if a.IsNull(i) {
				if fc.nulls == nil {
					fc.nulls = roaring.New()
				}
				fc.nulls.Add(off)
				continue
			}
			copy(fc.vals[int(off)*width:int(off+1)*width], raw[i*width:(i+1)*width])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	fc.filled.RunOptimize()
	fc.bytes = int64(len(fc.vals)) + int64(len(fc.strs))*16 + strBytes + int64(fc.filled.GetSizeInBytes()) + 64
	if fc.nulls != nil {
		fc.nulls.RunOptimize()
		fc.bytes += int64(fc.nulls.GetSizeInBytes())
	}
	return fc, nil
}

type colCacheError string

func (e colCacheError) Error() string { return string(e) }

const (
	errNotFixed = colCacheError("lancesrc: column cache: unexpected column layout")
	errTooLarge = colCacheError("lancesrc: column cache: column too large to cache")
)

// estStringBytes is the memory a cached string is assumed to take when
// deciding whether a table's columns fit the cache.
const estStringBytes = 32

// coverBatchRows bounds the rows of one batch a covering lookup emits.
const coverBatchRows = 8192

// lookupCovered emits the rows at addrs (sorted, live in this version)
// from the column cache. ok is false when some row is not cached (then
// nothing was emitted and the caller reads Lance).
func (s *Source) lookupCovered(ctx context.Context, p *coverPlan, addrs []uint64, emit func(arrow.RecordBatch, []uint64) error) (ok bool, err error) {
	frags := s.fragmentByID()
	cols := make([][]*fragColumn, len(p.cols)) // per column, per run of addrs
	type run struct {
		start, end int
	}
	var runs []run
	runOf := make([]int32, len(addrs))
	for i := 0; i < len(addrs); {
		j := i + 1
		for j < len(addrs) && addrs[j]>>32 == addrs[i]>>32 {
			j++
		}
		for x := i; x < j; x++ {
			runOf[x] = int32(len(runs))
		}
		runs = append(runs, run{i, j})
		i = j
	}
	for _, r := range runs {
		fid, _ := lance.SplitRowAddress(addrs[r.start])
		fr := frags[fid]
		if fr == nil {
			return false, nil
		}
		memo := make([]*fragColumn, len(p.cols))
		hits := 0
		for k := range p.cols {
			if memo[k] = s.cachedColumn(fid, p.ids[k]); memo[k] != nil {
				hits++
			}
		}
		if hits < len(p.cols) {
			// every column counts this lookup's demand; one that reached
			// its ratio is loaded even while another still rents, else its
			// demand (reset when bought) would start over and a projection
			// of several columns would never be cached
			bought := make([]bool, len(p.cols))
			all := true
			for k := range p.cols {
				bought[k] = memo[k] != nil || sharedColumns.worthLoading(columnKey(s.ds, fr, p.ids[k], p.fields[k]), fr, r.end-r.start)
				all = all && bought[k]
			}
			if !all {
				for k := range p.cols {
					if bought[k] && memo[k] == nil {
						if _, err := s.loadedColumn(ctx, fr, p, k); err != nil && ctx.Err() != nil {
							return false, err
						}
					}
				}
				return false, nil
			}
		}
		for k := range p.cols {
			fc := memo[k]
			var err error
			if fc == nil {
				fc, err = s.loadedColumn(ctx, fr, p, k)
			}
			if err != nil {
				if ctx.Err() != nil {
					return false, err
				}
				// an odd layout, or another session's load that failed
				// (its cancellation): read Lance instead
				return false, nil
			}
			for _, a := range addrs[r.start:r.end] {
				_, off := lance.SplitRowAddress(a)
				if !fc.filled.Contains(off) {
					return false, nil
				}
			}
			cols[k] = append(cols[k], fc)
		}
	}
	for start := 0; start < len(addrs); start += coverBatchRows {
		end := min(start+coverBatchRows, len(addrs))
		n := end - start
		arrs := make([]arrow.Array, len(p.cols))
		for k := range p.cols {
			w := p.widths[k]
			if w < 0 {
				arrs[k] = coveredStrings(p.fields[k].Type, cols[k], runOf[start:end], addrs[start:end])
				continue
			}
			vals := make([]byte, n*w)
			var valid []byte
			nulls := 0
			for i := start; i < end; i++ {
				fc := cols[k][runOf[i]]
				_, off := lance.SplitRowAddress(addrs[i])
				if fc.nulls != nil && fc.nulls.Contains(off) {
					if valid == nil {
						valid = make([]byte, bitutil.BytesForBits(int64(n)))
						bitutil.SetBitsTo(valid, 0, int64(n), true)
					}
					bitutil.ClearBit(valid, i-start)
					nulls++
					continue
				}
				copy(vals[(i-start)*w:(i-start+1)*w], fc.vals[int(off)*w:int(off+1)*w])
			}
			var vb *memory.Buffer
			if valid != nil {
				vb = memory.NewBufferBytes(valid)
			}
			d := array.NewData(p.fields[k].Type, n, []*memory.Buffer{vb, memory.NewBufferBytes(vals)}, nil, nulls, 0)
			arrs[k] = array.MakeFromData(d)
			d.Release()
		}
		rec := array.NewRecordBatch(p.schema, arrs, int64(n))
		for _, a := range arrs {
			a.Release()
		}
		if err := emit(rec, addrs[start:end]); err != nil {
			return true, err
		}
	}
	return true, nil
}

// coverSlot names one column (by field id) of one fragment of a Source.
type coverSlot struct {
	frag  uint64
	field int32
}

// cachedColumn is the column cache's entry for the slot when this Source
// met it before and the cache still holds it (marked recently used): the
// lookups of a traversal touch the same fragment columns query after
// query, and building each one's cache key (paths, type names) cost more
// than the lookup. The memo is weak, so a Source kept by a catalog cache
// keeps no evicted column alive.
func (s *Source) cachedColumn(frag uint64, field int32) *fragColumn {
	s.coverMu.Lock()
	wp, ok := s.coverCols[coverSlot{frag, field}]
	s.coverMu.Unlock()
	if !ok {
		return nil
	}
	e := wp.Value()
	if e == nil || !sharedColumns.touch(e) {
		return nil
	}
	return e.col
}

// loadedColumn reads the plan's k-th column of fr through the cache and
// remembers its entry (see cachedColumn).
func (s *Source) loadedColumn(ctx context.Context, fr *format.Fragment, p *coverPlan, k int) (*fragColumn, error) {
	e, err := sharedColumns.entry(ctx, s.ds, fr, s.cols[p.cols[k]].Name, p.ids[k], p.fields[k], p.widths[k])
	if err != nil {
		return nil, err
	}
	s.coverMu.Lock()
	if s.coverCols == nil {
		s.coverCols = map[coverSlot]weak.Pointer[colEntry]{}
	}
	s.coverCols[coverSlot{fr.ID, p.ids[k]}] = weak.Make(e)
	s.coverMu.Unlock()
	return e.col, nil
}

// fragmentByID indexes the version's fragments (built once per Source).
func (s *Source) fragmentByID() map[uint64]*format.Fragment {
	s.fragOnce.Do(func() {
		frs := s.ds.Fragments()
		s.frags = make(map[uint64]*format.Fragment, len(frs))
		for i := range frs {
			s.frags[frs[i].ID] = &frs[i]
		}
	})
	return s.frags
}

// coveredStrings builds the text column of rows at addrs (fragment
// entries cols, the entry of row i at cols[runOf[i]]) directly into two
// buffers sized up front: an arrow StringBuilder's growth and its
// allocator bookkeeping were a third of a covered lookup's time for the
// few rows of a point or 1-hop query.
func coveredStrings(dt arrow.DataType, cols []*fragColumn, runOf []int32, addrs []uint64) arrow.Array {
	n := len(addrs)
	size := 0
	for i, a := range addrs {
		_, off := lance.SplitRowAddress(a)
		size += len(cols[runOf[i]].strs[off])
	}
	offsets := make([]byte, (n+1)*arrow.Int32SizeBytes)
	offs := arrow.Int32Traits.CastFromBytes(offsets)
	data := make([]byte, 0, size)
	var valid []byte
	nulls := 0
	for i, a := range addrs {
		fc := cols[runOf[i]]
		_, off := lance.SplitRowAddress(a)
		if fc.nulls != nil && fc.nulls.Contains(off) {
			if valid == nil {
				valid = make([]byte, bitutil.BytesForBits(int64(n)))
				bitutil.SetBitsTo(valid, 0, int64(n), true)
			}
			bitutil.ClearBit(valid, i)
			nulls++
		} else {
			data = append(data, fc.strs[off]...)
		}
		offs[i+1] = int32(len(data))
	}
	var vb *memory.Buffer
	if valid != nil {
		vb = memory.NewBufferBytes(valid)
	}
	d := array.NewData(dt, n, []*memory.Buffer{vb, memory.NewBufferBytes(offsets), memory.NewBufferBytes(data)}, nil, nulls, 0)
	arr := array.MakeFromData(d)
	d.Release()
	return arr
}
