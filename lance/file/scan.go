package file

import (
	"context"
	"errors"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// RowRange is the half-open row interval [Start, End) of a file.
type RowRange struct{ Start, End uint64 }

// ScanOptions select what a scan returns.
type ScanOptions struct {
	// Columns to read, by name, in output order; nil means all.
	Columns []string
	// Ranges, when set, restrict the scan to these rows: sorted,
	// non-overlapping, within the file. Only pages overlapping a range are
	// read and decoded. nil means every row.
	Ranges []RowRange
	// BatchRows is the maximum rows per batch (default 8192). A batch never
	// spans two ranges.
	BatchRows int
	// Allocator for concatenating page slices (default: Go heap).
	Allocator memory.Allocator
}

// Scanner streams batches; only the projected columns' pages that overlap
// the requested rows are read, one page per column at a time.
type Scanner struct {
	r      *Reader
	opts   ScanOptions
	schema *arrow.Schema
	cols   []int
	cur    []colCursor
	ranges []RowRange
	ri     int    // current range
	row    uint64 // next row to return (absolute)
}

// colCursor caches the decoded page of one projected column and the
// page being decoded ahead of it.
type colCursor struct {
	page  int         // index of the decoded page, -1 for none
	first uint64      // the page row of arr's first row (0 unless read sparsely)
	arr   arrow.Array // the decoded page or part of it (nil for an all-null page)
	next  *prefetch   // the next page needed, decoding in the background
	// pending is the next page to read ahead (-1: none), started with the
	// other columns' at the end of the batch (prefetchTogether)
	pending int
}

// holds says whether the cursor has page rows [off, off+k) decoded.
func (c *colCursor) holds(pi int, off uint64, k int) bool {
	return c.page == pi && c.arr != nil && off >= c.first && off+uint64(k) <= c.first+uint64(c.arr.Len())
}

// prefetch is one page decoded by a background goroutine: while the
// caller consumes page p of a column, page p+1 is read and decoded, so a
// scan uses a second core and overlaps reads with decoding. At most one
// page per column is ahead, so memory stays at two pages per column.
type prefetch struct {
	page int
	done chan struct{}
	arr  arrow.Array
	err  error
}

// wait returns the prefetched page (the caller owns it).
func (p *prefetch) wait() (arrow.Array, error) {
	<-p.done
	return p.arr, p.err
}

// discard waits for the page and releases it.
func (p *prefetch) discard() {
	if a, _ := p.wait(); a != nil {
		a.Release()
	}
}

// Scan starts a scan.
func (r *Reader) Scan(opts ScanOptions) (*Scanner, error) {
	if opts.BatchRows <= 0 {
		opts.BatchRows = 8192
	}
	if opts.Allocator == nil {
		opts.Allocator = memory.DefaultAllocator
	}
	s := &Scanner{r: r, opts: opts}
	pr, err := r.projection(opts.Columns)
	if err != nil {
		return nil, err
	}
	s.cols, s.schema = pr.cols, pr.schema
	if opts.Ranges == nil {
		if r.numRows > 0 {
			s.ranges = []RowRange{{0, r.numRows}}
		}
	} else {
		prev := uint64(0)
		for _, rg := range opts.Ranges {
			if rg.Start < prev || rg.End < rg.Start || rg.End > r.numRows {
				return nil, mismatch("", "row ranges must be sorted, disjoint and within the file's %d rows", r.numRows)
			}
			prev = rg.End
			if rg.End > rg.Start {
				s.ranges = append(s.ranges, rg)
			}
		}
	}
	if len(s.ranges) > 0 {
		s.row = s.ranges[0].Start
	}
	s.cur = make([]colCursor, len(s.cols))
	for i := range s.cur {
		s.cur[i].page, s.cur[i].pending = -1, -1
	}
	return s, nil
}

// Schema is the projected schema of the batches.
func (s *Scanner) Schema() *arrow.Schema { return s.schema }

// Next returns the next batch, or io.EOF after the last one. The caller
// releases the batch.
func (s *Scanner) Next(ctx context.Context) (arrow.RecordBatch, error) {
	out, n, err := s.NextArrays(ctx, nil)
	if err != nil {
		return nil, err
	}
	rec := array.NewRecordBatch(s.schema, out, int64(n))
	for _, a := range out {
		a.Release()
	}
	return rec, nil
}

// NextArrays is Next without the record: the next batch's column
// arrays (appended to out, in projection order; the caller releases
// them) and its row count, or io.EOF after the last batch. A caller
// assembling its own batches (a dataset scan adding row addresses)
// builds one record instead of two.
func (s *Scanner) NextArrays(ctx context.Context, out []arrow.Array) ([]arrow.Array, int, error) {
	if s.ri >= len(s.ranges) {
		return out, 0, io.EOF
	}
	rg := s.ranges[s.ri]
	n := min(uint64(s.opts.BatchRows), rg.End-s.row)
	base := len(out)
	if err := s.loadTogether(ctx, n); err != nil {
		return out, 0, err
	}
	defer s.prefetchTogether(ctx)
	for i, ci := range s.cols {
		a, err := s.take(ctx, i, ci, s.row, int(n))
		if err != nil {
			for _, a := range out[base:] {
				a.Release()
			}
			return out[:base], 0, err
		}
		out = append(out, a)
	}
	s.row += n
	if s.row == rg.End {
		s.ri++
		if s.ri < len(s.ranges) {
			s.row = s.ranges[s.ri].Start
		}
	}
	return out, int(n), nil
}

// take returns rows [row, row+n) of projected column i (file column ci).
// All-null pages are never materialized whole: their rows are produced
// per batch, so memory stays bounded by the batch size whatever a page
// claims.
func (s *Scanner) take(ctx context.Context, i, ci int, row uint64, n int) (arrow.Array, error) {
	c := &s.cur[i]
	f := s.r.schema.Field(ci)
	starts := s.r.pageStarts[ci]
	var parts []arrow.Array
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	for n > 0 {
		// The page holding row: the last page starting at or before it.
		pi := sort.Search(len(starts), func(k int) bool { return starts[k] > row }) - 1
		if pi < 0 || pi >= len(s.r.cols[ci].pages) {
			return nil, corrupt(f.Name, "no page holds row %d", row)
		}
		pm := s.r.cols[ci].pages[pi]
		off := row - starts[pi]
		k := min(int(pm.length-off), n)
		if k <= 0 {
			return nil, corrupt(f.Name, "empty page %d", pi)
		}
		if pm.layout.kind == layoutAllNull && len(pm.layout.layers) <= 1 {
			if !f.Nullable {
				return nil, corrupt(f.Name, "all-null page in a non-nullable column")
			}
			parts = append(parts, array.MakeArrayOfNull(s.opts.Allocator, f.Type, k))
		} else {
			if !c.holds(pi, off, k) {
				if c.arr != nil {
					c.arr.Release()
					c.arr, c.page = nil, -1
				}
				var a arrow.Array
				var err error
				first, sparse := uint64(0), false
				if c.next != nil && c.next.page == pi {
					a, err = c.next.wait()
					c.next = nil
					if err != nil && ctx.Err() == nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
						// read ahead under an earlier call's context, which
						// has ended since: read it again under this one
						a, err = s.decodeChecked(ctx, ci, pi)
					}
				} else {
					if c.next != nil {
						c.next.discard()
						c.next = nil
					}
					if sparse = s.sparse(ci, pi, row); sparse {
						// a few rows of the page: read only their chunks
						// and read nothing ahead
						a, first, err = s.r.decodeRows(ctx, ci, pi, off, off+uint64(k))
					} else {
						a, err = s.decodeChecked(ctx, ci, pi)
					}
				}
				if err != nil {
					return nil, err
				}
				c.arr, c.page, c.first = a, pi, first
				if np, ok := s.nextPage(ci, pi); ok && !sparse {
					c.pending = np
				}
			}
			at := int64(off - c.first)
			parts = append(parts, array.NewSlice(c.arr, at, at+int64(k)))
		}
		row += uint64(k)
		n -= k
	}
	if len(parts) == 1 {
		parts[0].Retain()
		return parts[0], nil
	}
	a, err := array.Concatenate(parts, s.opts.Allocator)
	if err != nil {
		return nil, corrupt(f.Name, "concatenate: %v", err)
	}
	return a, nil
}

// sparse says whether page pi of column ci is better read sparsely
// (decodeRows) for what the scan still wants of it, from row on: at most
// 1/sparseRatio of the page's rows in at most sparseMaxRanges ranges
// (each range is a read of its own: past a few, one read of the page
// costs less on an object store), and a layout that allows it.
func (s *Scanner) sparse(ci, pi int, row uint64) bool {
	pm := s.r.cols[ci].pages[pi]
	if s.r.sparseKind(ci, pm) == sparseNone {
		return false
	}
	lo := s.r.pageStarts[ci][pi]
	hi := lo + pm.length
	limit := pm.length / sparseRatio
	want, ranges := uint64(0), 0
	for ri := s.ri; ri < len(s.ranges) && s.ranges[ri].Start < hi; ri++ {
		a, b := max(s.ranges[ri].Start, lo, row), min(s.ranges[ri].End, hi)
		if a < b {
			want += b - a
			if ranges++; want > limit || ranges > sparseMaxRanges {
				return false
			}
		}
	}
	return true
}

// decodeChecked decodes page pi of column ci and checks its length.
func (s *Scanner) decodeChecked(ctx context.Context, ci, pi int) (arrow.Array, error) {
	pm := s.r.cols[ci].pages[pi]
	a, err := s.r.decodePage(ctx, ci, pm)
	if err != nil {
		return nil, err
	}
	if uint64(a.Len()) != pm.length {
		a.Release()
		return nil, corrupt(s.r.schema.Field(ci).Name, "page %d decodes to %d rows, metadata says %d", pi, a.Len(), pm.length)
	}
	return a, nil
}

// nextPage is the page of column ci after pi that the scan will decode
// next, if any: the first later page overlapping a remaining row range
// that is not an all-null page (those are never decoded).
func (s *Scanner) nextPage(ci, pi int) (int, bool) {
	starts, pages := s.r.pageStarts[ci], s.r.cols[ci].pages
	ri := s.ri
	for np := pi + 1; np < len(pages); np++ {
		lo, hi := starts[np], starts[np]+pages[np].length
		for ri < len(s.ranges) && s.ranges[ri].End <= lo {
			ri++
		}
		if ri >= len(s.ranges) {
			return 0, false
		}
		if s.ranges[ri].Start >= hi {
			continue // no remaining row in this page
		}
		if l := pages[np].layout; l.kind == layoutAllNull && len(l.layers) <= 1 {
			return 0, false
		}
		return np, true
	}
	return 0, false
}

// Close releases the scanner's current pages (waiting for pages still
// being decoded ahead).
func (s *Scanner) Close() {
	for i := range s.cur {
		c := &s.cur[i]
		if c.next != nil {
			c.next.discard()
			c.next = nil
		}
		if c.arr != nil {
			c.arr.Release()
			c.arr, c.page = nil, -1
		}
	}
}

// projection is the file columns and schema a scan of some columns
// returns; a Reader keeps the ones asked for (a few distinct lists per
// file in practice: a point lookup need not rebuild the schema).
type projection struct {
	cols   []int // read-only once made
	schema *arrow.Schema
}

type projCache struct {
	mu sync.Mutex
	m  map[string]*projection
}

// maxProjections bounds a Reader's projection cache.
const maxProjections = 64

func (r *Reader) projection(columns []string) (*projection, error) {
	key := "*" // every column
	if columns != nil {
		key = "=" + strings.Join(columns, "\x00")
	}
	r.proj.mu.Lock()
	pr := r.proj.m[key]
	r.proj.mu.Unlock()
	if pr != nil {
		return pr, nil
	}
	pr = &projection{}
	var fs []arrow.Field
	if columns == nil {
		for i := range r.schema.Fields() {
			pr.cols = append(pr.cols, i)
		}
		fs = r.schema.Fields()
	} else {
		for _, name := range columns {
			idx := r.schema.FieldIndices(name)
			if len(idx) != 1 {
				return nil, mismatch(name, "no such column (or ambiguous)")
			}
			pr.cols = append(pr.cols, idx[0])
			fs = append(fs, r.schema.Field(idx[0]))
		}
	}
	md := r.schema.Metadata()
	pr.schema = arrow.NewSchema(fs, &md)
	r.proj.mu.Lock()
	if r.proj.m == nil {
		r.proj.m = map[string]*projection{}
	}
	if len(r.proj.m) < maxProjections {
		r.proj.m[key] = pr
	}
	r.proj.mu.Unlock()
	return pr, nil
}
