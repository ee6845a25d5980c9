package lancesrc

import (
	"context"
	"errors"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/lance/format"
)

// Source is an exec.TableSource over one Lance dataset version.
type Source struct {
	ds   *lance.Dataset
	cols []exec.ColumnDef
	keys []int

	mu sync.Mutex
	// index remembers the indexes this version used, weakly: the cache
	// (shared, or its spare slots for indexes too large to share) owns
	// them, so an old version's Source kept by a catalog cache does not
	// keep its index alive.
	index map[int]weak.Pointer[keyIndex]
	// owned are indexes no cache keeps (sharing disabled).
	owned map[int]*keyIndex
	// lateScans counts scans answered by the two-pass filtered path.
	lateScans int
	// lastSchema is the last schema scan derived (see dataSchema).
	lastSchema atomic.Pointer[derivedSchema]
	// size is the version's storage size, once read (size.go).
	size sizeMemo
	// lastCover is the last projection planned for covering lookups;
	// frags indexes the version's fragments by id (colcache.go).
	lastCover atomic.Pointer[coverPlan]
	fragOnce  sync.Once
	frags     map[uint64]*format.Fragment
	// coverCols remembers the column cache entries lookups used, weakly
	// (colcache.go, cachedColumn).
	coverMu   sync.Mutex
	coverCols map[coverSlot]weak.Pointer[colEntry]
}

// New wraps a dataset version. cols must name the dataset's columns (in
// table order); keys lists the columns that may be looked up by key.
func New(ds *lance.Dataset, cols []exec.ColumnDef, keys []int) *Source {
	return &Source{ds: ds, cols: cols, keys: keys}
}

var (
	_ exec.TableSource     = (*Source)(nil)
	_ exec.KeyLookupSource = (*Source)(nil)
)

// RowCount implements exec.TableSource.
func (s *Source) RowCount() int64 { return int64(s.ds.CountRows()) }

// KeyColumns implements exec.KeyLookupSource.
func (s *Source) KeyColumns() []int { return s.keys }

func (s *Source) names(cols []int) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = s.cols[c].Name
	}
	return out
}

// Scan implements exec.TableSource with column pruning and filter
// pushdown by late materialization (see filterAddrs).
func (s *Source) Scan(ctx context.Context, req exec.ScanRequest, emit func(arrow.RecordBatch, []uint64) error) error {
	s.logScan(ctx, req.Filters)
	if fcols := s.filterColumns(req); fcols != nil {
		addrs, selective, err := s.filterAddrs(ctx, fcols, req.Filters)
		if err != nil {
			return err
		}
		if selective {
			s.mu.Lock()
			s.lateScans++
			s.mu.Unlock()
			if len(addrs) == 0 {
				return nil
			}
			return s.scan(ctx, lance.ScanOptions{Columns: s.names(req.Columns), WithRowAddress: true, RowAddresses: addrs}, len(req.Columns), emit)
		}
	}
	return s.scan(ctx, lance.ScanOptions{Columns: s.names(req.Columns), WithRowAddress: true}, len(req.Columns), emit)
	// (Lance returns addresses cheaply with the data; they are always passed.)
}

// lateFraction is the largest share of rows the filters may keep for the
// two-pass scan to pay off; above it the first pass is abandoned.
const lateFraction = 4

// filterColumns returns the distinct columns the filters read when a
// two-pass scan can save work: the scan needs other columns besides them.
func (s *Source) filterColumns(req exec.ScanRequest) []int {
	if len(req.Filters) == 0 {
		return nil
	}
	var cols []int
	seen := map[int]bool{}
	for _, f := range req.Filters {
		if f.Column < 0 || f.Column >= len(s.cols) {
			return nil
		}
		if !seen[f.Column] {
			seen[f.Column] = true
			cols = append(cols, f.Column)
		}
	}
	for _, c := range req.Columns {
		if !seen[c] {
			return cols
		}
	}
	return nil
}

// filterAddrs is the first pass of a filtered scan: it reads only the
// filter columns and returns the addresses of the rows every filter
// keeps. Lance then fetches and decodes only the pages holding those rows
// in the second pass. selective is false (and the caller scans normally)
// once more than 1/lateFraction of the rows match.
func (s *Source) filterAddrs(ctx context.Context, cols []int, filters []exec.ScanFilter) (addrs []uint64, selective bool, err error) {
	limit := int(s.ds.CountRows() / lateFraction)
	pos := map[int]int{}
	for i, c := range cols {
		pos[c] = i
	}
	errTooMany := errors.New("not selective")
	var keep []bool
	err = s.scan(ctx, lance.ScanOptions{Columns: s.names(cols), WithRowAddress: true}, len(cols), func(rec arrow.RecordBatch, ra []uint64) error {
		vecs := make([]*exec.Vec, len(cols))
		for i, c := range cols {
			v, err := exec.VecFromArrow(rec.Column(i), s.cols[c].Type)
			if err != nil {
				return err
			}
			vecs[i] = v
		}
		keep = keep[:0]
		for range rec.NumRows() {
			keep = append(keep, true)
		}
		for _, f := range filters {
			f.Narrow(vecs[pos[f.Column]], keep)
		}
		for r, k := range keep {
			if k {
				addrs = append(addrs, ra[r])
			}
		}
		if len(addrs) > limit {
			return errTooMany
		}
		return nil
	})
	if errors.Is(err, errTooMany) {
		return nil, false, nil
	}
	return addrs, err == nil, err
}

func (s *Source) scan(ctx context.Context, opts lance.ScanOptions, ncols int, emit func(arrow.RecordBatch, []uint64) error) error {
	return scanPlain(ctx, s.ds, opts, func(rec arrow.RecordBatch, addrs []uint64) error {
		cols := rec.Columns()[:ncols]
		return emit(ExecForm(array.NewRecordBatch(s.dataSchema(rec.Schema(), ncols), cols, rec.NumRows())), addrs)
	})
}

// dataSchema is scanned's schema without the address column (its first
// ncols fields, no metadata). Lance hands out one schema per projection,
// so the last one made is kept: a point lookup does not rebuild it.
func (s *Source) dataSchema(scanned *arrow.Schema, ncols int) *arrow.Schema {
	if d := s.lastSchema.Load(); d != nil && d.scanned == scanned && d.ncols == ncols {
		return d.out
	}
	out := arrow.NewSchema(scanned.Fields()[:ncols], nil)
	s.lastSchema.Store(&derivedSchema{scanned: scanned, ncols: ncols, out: out})
	return out
}

type derivedSchema struct {
	scanned *arrow.Schema
	ncols   int
	out     *arrow.Schema
}

// scanPlain runs a Lance scan with row addresses and passes each batch
// (address column last) with a copy of its addresses.
func scanPlain(ctx context.Context, ds *lance.Dataset, opts lance.ScanOptions, emit func(arrow.RecordBatch, []uint64) error) error {
	sc, err := ds.Scan(ctx, opts)
	if err != nil {
		return err
	}
	defer sc.Close()
	for {
		rec, err := sc.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if rec == nil {
			return nil
		}
		addrCol, ok := rec.Column(int(rec.NumCols()) - 1).(*array.Uint64)
		if !ok {
			return exec.ErrSourceShape
		}
		addrs := append([]uint64(nil), addrCol.Uint64Values()...)
		if err := emit(rec, addrs); err != nil {
			return err
		}
	}
}

// LookupKeys implements exec.KeyLookupSource through the version's key
// index (shared process-wide, derived incrementally across versions) and
// a row-address scan.
func (s *Source) LookupKeys(ctx context.Context, column int, keys *exec.Vec, req exec.ScanRequest, emit func(arrow.RecordBatch, []uint64) error) error {
	// reading back only the key column is an existence probe
	s.logKeys(ctx, column, keys, len(req.Columns) == 1 && req.Columns[0] == column)
	idx, err := s.keyIndex(ctx, column)
	if err != nil {
		return err
	}
	var addrs []uint64
	var kb []byte
	add := func(a uint64) { addrs = append(addrs, a) }
	ints := idx.base.ints && keys.T.Kind() == exec.KInt
	for i := 0; i < keys.N; i++ {
		if keys.IsNull(i) {
			continue
		}
		if ints {
			idx.lookupInt(keys.I[i], add)
			continue
		}
		kb = exec.AppendKey(kb[:0], keys, i)
		idx.lookup(string(kb), add)
	}
	if len(addrs) == 0 {
		return nil
	}
	slices.Sort(addrs)
	addrs = slices.Compact(addrs)
	if p := s.coverFor(req.Columns); p != nil {
		if ok, err := s.lookupCovered(ctx, p, addrs, emit); ok || err != nil {
			return err
		}
	}
	if len(addrs) <= takeMaxRows {
		return s.take(ctx, addrs, req, emit)
	}
	return s.scan(ctx, lance.ScanOptions{Columns: s.names(req.Columns), WithRowAddress: true, RowAddresses: addrs}, len(req.Columns), emit)
}

// takeMaxRows: key lookups finding at most this many rows read them with
// Dataset.TakeLive (one chunk read per row and column, no scanners);
// more go through a row-address scan, which reads each page's rows once.
const takeMaxRows = 16

// take emits the live rows at addrs (sorted) as one record.
func (s *Source) take(ctx context.Context, addrs []uint64, req exec.ScanRequest, emit func(arrow.RecordBatch, []uint64) error) error {
	rec, got, err := s.ds.TakeLive(ctx, addrs, s.names(req.Columns))
	if err != nil || rec == nil {
		return err
	}
	ncols := len(req.Columns)
	return emit(ExecForm(array.NewRecordBatch(s.dataSchema(rec.Schema(), ncols), rec.Columns()[:ncols], rec.NumRows())), got)
}

func (s *Source) keyIndex(ctx context.Context, column int) (*keyIndex, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.index[column]; ok {
		if idx := p.Value(); idx != nil {
			return idx, nil
		}
	}
	col := keyColumn{name: s.cols[column].Name, typ: s.cols[column].Type}
	idx, held, err := sharedIndexes.getHeld(ctx, s.ds, col)
	if err != nil {
		return nil, err
	}
	if !held {
		if s.owned == nil {
			s.owned = map[int]*keyIndex{}
		}
		s.owned[column] = idx
	}
	if s.index == nil {
		s.index = map[int]weak.Pointer[keyIndex]{}
	}
	s.index[column] = weak.Make(idx)
	return idx, nil
}

// IndexHeld reports whether column's key index for this version is at
// hand without reading the whole column: this Source has it, or the
// process-wide cache (shared or spare slot) holds this version's or an
// older one to derive it from (reading only what changed since).
func (s *Source) IndexHeld(column int) bool {
	if column < 0 || column >= len(s.cols) {
		return false
	}
	s.mu.Lock()
	if p, ok := s.index[column]; ok && p.Value() != nil {
		s.mu.Unlock()
		return true
	}
	s.mu.Unlock()
	return sharedIndexes.holds(s.ds, keyColumn{name: s.cols[column].Name, typ: s.cols[column].Type})
}

// ScanAddrs streams the rows at the given row addresses of this version
// (any order; addresses of deleted or absent rows yield nothing): Lance
// reads only the pages holding them. DML uses it to fetch the rows a
// statement changes without scanning the table.
func (s *Source) ScanAddrs(ctx context.Context, addrs []uint64, req exec.ScanRequest, emit func(arrow.RecordBatch, []uint64) error) error {
	s.logAddrs(ctx, addrs)
	if len(addrs) == 0 {
		return nil
	}
	addrs = slices.Clone(addrs)
	slices.Sort(addrs)
	addrs = slices.Compact(addrs)
	if len(addrs) <= takeMaxRows {
		return s.take(ctx, addrs, req, emit)
	}
	return s.scan(ctx, lance.ScanOptions{Columns: s.names(req.Columns), WithRowAddress: true, RowAddresses: addrs}, len(req.Columns), emit)
}
