package file

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/lance/schema"
	"github.com/pggraph/pggraph/objstore"
)

// tailRead is how much of the file's end Open fetches at once; it usually
// covers the footer, the offset tables, the column metadata and the schema.
const tailRead = 64 << 10

// source reads byte ranges of one file.
type source interface {
	readAt(ctx context.Context, off, n uint64) ([]byte, error)
}

type storeSource struct {
	store objstore.Store
	key   string
}

func (s storeSource) readAt(ctx context.Context, off, n uint64) ([]byte, error) {
	b, err := s.store.GetRange(ctx, s.key, int64(off), int64(n))
	if err != nil {
		return nil, err
	}
	if uint64(len(b)) != n {
		return nil, corrupt("", "short read at %d: %d of %d bytes", off, len(b), n)
	}
	return b, nil
}

type bytesSource []byte

func (s bytesSource) readAt(_ context.Context, off, n uint64) ([]byte, error) {
	if off > uint64(len(s)) || n > uint64(len(s))-off {
		return nil, corrupt("", "read %d+%d beyond %d bytes", off, n, len(s))
	}
	return s[off : off+n], nil
}

// Reader reads a Lance 2.1 data file: footer and metadata at Open, page
// buffers of the projected columns only while scanning.
type Reader struct {
	src     source
	size    uint64
	fields  []schema.Field
	schema  *arrow.Schema
	numRows uint64
	cols    []columnMeta
	phys    []*physical
}

// Open reads the footer, schema and column metadata of the file at key.
func Open(ctx context.Context, store objstore.Store, key string) (*Reader, error) {
	info, err := store.Stat(ctx, key)
	if err != nil {
		return nil, err
	}
	return open(ctx, storeSource{store, key}, uint64(info.Size))
}

// OpenBytes reads a file held in memory.
func OpenBytes(b []byte) (*Reader, error) {
	return open(context.Background(), bytesSource(b), uint64(len(b)))
}

func open(ctx context.Context, src source, size uint64) (*Reader, error) {
	if size < footerSize {
		return nil, corrupt("", "file of %d bytes is shorter than the footer", size)
	}
	tailStart := uint64(0)
	if size > tailRead {
		tailStart = size - tailRead
	}
	tail, err := src.readAt(ctx, tailStart, size-tailStart)
	if err != nil {
		return nil, err
	}
	// region returns [off, off+n) from the tail when it is there, else reads it.
	region := func(off, n uint64) ([]byte, error) {
		if off > size || n > size-off {
			return nil, corrupt("", "range %d+%d beyond file end %d", off, n, size)
		}
		if off >= tailStart {
			return tail[off-tailStart : off-tailStart+n], nil
		}
		return src.readAt(ctx, off, n)
	}
	ft, err := decodeFooter(tail[len(tail)-footerSize:], size)
	if err != nil {
		return nil, err
	}
	if ft.numGlobalBuffers < 1 {
		return nil, corrupt("", "no global buffer (schema)")
	}
	gbo, err := region(ft.globalBufOffsets, 16*uint64(ft.numGlobalBuffers))
	if err != nil {
		return nil, err
	}
	gbs, err := decodeSpans(gbo, int(ft.numGlobalBuffers), size)
	if err != nil {
		return nil, err
	}
	db, err := region(gbs[0].pos, gbs[0].size)
	if err != nil {
		return nil, err
	}
	desc, err := decodeDescriptor(db)
	if err != nil {
		return nil, err
	}
	sch, err := schema.ToArrow(desc.fields)
	if err != nil {
		return nil, &Error{Detail: "schema: " + err.Error(), Err: ErrUnsupported}
	}
	if len(sch.Fields()) != int(ft.numColumns) {
		return nil, unsupported("", "%d columns for %d top-level fields (nested structs are not read)", ft.numColumns, len(sch.Fields()))
	}
	cmo, err := region(ft.columnMetaOffsets, 16*uint64(ft.numColumns))
	if err != nil {
		return nil, err
	}
	cms, err := decodeSpans(cmo, int(ft.numColumns), size)
	if err != nil {
		return nil, err
	}
	r := &Reader{src: src, size: size, fields: desc.fields, schema: sch, numRows: desc.numRows}
	for i, s := range cms {
		b, err := region(s.pos, s.size)
		if err != nil {
			return nil, err
		}
		cm, err := decodeColumnMeta(b, size)
		if err != nil {
			return nil, withColumn(err, sch.Field(i).Name)
		}
		var total uint64
		for _, p := range cm.pages {
			total += p.length
			p.layout.chunkWordBytes = 2 // 4 in format 2.2, which open refuses

		}
		if total != r.numRows {
			return nil, corrupt(sch.Field(i).Name, "pages hold %d rows, file has %d", total, r.numRows)
		}
		r.cols = append(r.cols, cm)
	}
	for _, f := range sch.Fields() {
		p, err := physicalOf(f.Name, f.Type)
		if err != nil {
			return nil, err
		}
		r.phys = append(r.phys, p)
	}
	return r, nil
}

func withColumn(err error, col string) error {
	if e, ok := err.(*Error); ok && e.Column == "" {
		return &Error{Column: col, Detail: e.Detail, Err: e.Err}
	}
	return err
}

// Schema is the file's Arrow schema (field metadata included).
func (r *Reader) Schema() *arrow.Schema { return r.schema }

// Fields are the Lance fields of the file's schema, depth-first.
func (r *Reader) Fields() []schema.Field { return r.fields }

// NumRows is the number of rows in the file.
func (r *Reader) NumRows() uint64 { return r.numRows }

// Size is the file's size in bytes.
func (r *Reader) Size() uint64 { return r.size }

// ScanOptions select what a scan returns.
type ScanOptions struct {
	// Columns to read, by name, in output order; nil means all.
	Columns []string
	// BatchRows is the maximum rows per batch (default 8192).
	BatchRows int
	// Allocator for concatenating page slices (default: Go heap).
	Allocator memory.Allocator
}

// Scanner streams batches; only the projected columns' pages are read,
// one page per column at a time.
type Scanner struct {
	r      *Reader
	opts   ScanOptions
	schema *arrow.Schema
	cols   []int
	cur    []colCursor
	row    uint64
}

type colCursor struct {
	page     int         // next page to load
	arr      arrow.Array // the decoded current page
	off      int         // rows of arr already returned
	nullLeft int         // rows left in the current all-null page
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
	var fs []arrow.Field
	if opts.Columns == nil {
		for i := range r.schema.Fields() {
			s.cols = append(s.cols, i)
		}
		fs = r.schema.Fields()
	} else {
		for _, name := range opts.Columns {
			idx := r.schema.FieldIndices(name)
			if len(idx) != 1 {
				return nil, mismatch(name, "no such column (or ambiguous)")
			}
			s.cols = append(s.cols, idx[0])
			fs = append(fs, r.schema.Field(idx[0]))
		}
	}
	md := r.schema.Metadata()
	s.schema = arrow.NewSchema(fs, &md)
	s.cur = make([]colCursor, len(s.cols))
	return s, nil
}

// Schema is the projected schema of the batches.
func (s *Scanner) Schema() *arrow.Schema { return s.schema }

// Next returns the next batch, or io.EOF after the last one. The caller
// releases the batch.
func (s *Scanner) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.row >= s.r.numRows {
		return nil, io.EOF
	}
	n := uint64(s.opts.BatchRows)
	if rest := s.r.numRows - s.row; rest < n {
		n = rest
	}
	out := make([]arrow.Array, len(s.cols))
	release := func() {
		for _, a := range out {
			if a != nil {
				a.Release()
			}
		}
	}
	for i, ci := range s.cols {
		a, err := s.take(ctx, i, ci, int(n))
		if err != nil {
			release()
			return nil, err
		}
		out[i] = a
	}
	s.row += n
	rec := array.NewRecordBatch(s.schema, out, int64(n))
	release()
	return rec, nil
}

// take returns the next n rows of projected column i (file column ci).
// All-null pages are never materialized whole: their rows are produced per
// batch, so memory stays bounded by the batch size whatever a page claims.
func (s *Scanner) take(ctx context.Context, i, ci, n int) (arrow.Array, error) {
	c := &s.cur[i]
	f := s.r.schema.Field(ci)
	var parts []arrow.Array
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	for n > 0 {
		switch {
		case c.nullLeft > 0:
			k := min(c.nullLeft, n)
			parts = append(parts, array.MakeArrayOfNull(s.opts.Allocator, f.Type, k))
			c.nullLeft -= k
			n -= k
		case c.arr != nil && c.off < c.arr.Len():
			k := min(c.arr.Len()-c.off, n)
			parts = append(parts, array.NewSlice(c.arr, int64(c.off), int64(c.off+k)))
			c.off += k
			n -= k
		default:
			if c.arr != nil {
				c.arr.Release()
				c.arr = nil
			}
			if c.page >= len(s.r.cols[ci].pages) {
				return nil, corrupt(f.Name, "column ends before row %d", s.row)
			}
			pm := s.r.cols[ci].pages[c.page]
			c.page++
			if pm.layout.kind == layoutAllNull && len(pm.layout.layers) <= 1 {
				if !f.Nullable && pm.length > 0 {
					return nil, corrupt(f.Name, "all-null page in a non-nullable column")
				}
				c.nullLeft = int(pm.length)
				continue
			}
			a, err := s.r.decodePage(ctx, ci, pm)
			if err != nil {
				return nil, err
			}
			c.arr, c.off = a, 0
		}
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

// Close releases the scanner's current pages.
func (s *Scanner) Close() {
	for i := range s.cur {
		if s.cur[i].arr != nil {
			s.cur[i].arr.Release()
			s.cur[i].arr = nil
		}
	}
}

// ReadAll scans the projected columns into one batch per BatchRows rows.
func (r *Reader) ReadAll(ctx context.Context, opts ScanOptions) ([]arrow.RecordBatch, error) {
	s, err := r.Scan(opts)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var out []arrow.RecordBatch
	for {
		rec, err := s.Next(ctx)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			for _, o := range out {
				o.Release()
			}
			return nil, err
		}
		out = append(out, rec)
	}
}

// decodePage reads and decodes one (not all-null) page of column ci.
func (r *Reader) decodePage(ctx context.Context, ci int, pm pageMeta) (arrow.Array, error) {
	f := r.schema.Field(ci)
	if pm.length > maxPageItems {
		return nil, corrupt(f.Name, "page of %d rows", pm.length)
	}
	pl := pm.layout
	switch pl.kind {
	case layoutMiniBlock, layoutAllNull, layoutFullZip:
	default:
		return nil, unsupported(f.Name, "page layout %d", pl.kind)
	}
	bufs := make([][]byte, len(pm.buffers))
	for i, b := range pm.buffers {
		if i >= 3 {
			break
		}
		data, err := r.src.readAt(ctx, b.pos, b.size)
		if err != nil {
			return nil, err
		}
		bufs[i] = data
	}
	p := r.phys[ci]
	if p.kind == physList {
		return decodeListPage(f.Name, p, f.Type, pl, pm.length, bufs)
	}
	var ld *leafData
	var err error
	if pl.kind == layoutFullZip {
		ld, err = decodeFullZipLeaf(f.Name, p, pl, pm.length, bufs)
	} else {
		ld, err = decodeMiniBlockLeaf(f.Name, p, pl, pm.length, bufs)
	}
	if err != nil {
		return nil, err
	}
	if ld.nullCount > 0 && !f.Nullable {
		return nil, corrupt(f.Name, "nulls in a non-nullable column")
	}
	return ld.toArrow(f.Name, p, f.Type)
}
