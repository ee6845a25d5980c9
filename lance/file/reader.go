package file

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pggraph/pggraph/lance/schema"
	"github.com/pggraph/pggraph/objstore"
)

// tailRead is how much of the file's end Open fetches at once; it usually
// covers the footer, the offset tables, the column metadata and the schema.
const tailRead = 64 << 10

// source reads byte ranges of one file.
type source interface {
	readAt(ctx context.Context, off, n uint64) ([]byte, error)
	// ownsReads says whether readAt's results are fresh buffers the
	// caller may modify (then decoding may work in place).
	ownsReads() bool
}

// ownsReads: an objstore read returns a new slice that belongs to the
// caller (every backend reads into or copies to a fresh buffer, as
// os.ReadFile does).
func (storeSource) ownsReads() bool { return true }

// ownsReads: an in-memory file hands out sub-slices of the caller's bytes.
func (bytesSource) ownsReads() bool { return false }

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
	// pageStarts[c][p] is the first row of page p of column c.
	pageStarts [][]uint64
	// aux caches what sparse reads need per page (see sparse.go); it and
	// proj (the scans' projections) are shared by the copies OpenCached
	// hands out.
	aux  *auxCache
	proj *projCache
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
	r := &Reader{src: src, size: size, fields: desc.fields, schema: sch, numRows: desc.numRows, aux: newAuxCache(), proj: &projCache{}}
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
			if p.length > maxPageItems {
				return nil, corrupt(sch.Field(i).Name, "page of %d rows", p.length)
			}
			total += p.length
			p.layout.chunkWordBytes = 2 // 4 in format 2.2, which open refuses

		}
		if total != r.numRows {
			return nil, corrupt(sch.Field(i).Name, "pages hold %d rows, file has %d", total, r.numRows)
		}
		starts := make([]uint64, len(cm.pages))
		var at uint64
		for j, p := range cm.pages {
			starts[j] = at
			at += p.length
		}
		r.pageStarts = append(r.pageStarts, starts)
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
	if err := r.checkPage(ci, pm); err != nil {
		return nil, err
	}
	bufs, err := r.readBuffers(ctx, pm.buffers)
	if err != nil {
		return nil, err
	}
	return r.decodeBuffers(ci, pm.layout, pm.length, bufs, nil)
}

// checkPage refuses a page decoding cannot handle.
func (r *Reader) checkPage(ci int, pm pageMeta) error {
	f := r.schema.Field(ci)
	if pm.length > maxPageItems {
		return corrupt(f.Name, "page of %d rows", pm.length)
	}
	switch pm.layout.kind {
	case layoutMiniBlock, layoutAllNull, layoutFullZip:
		return nil
	default:
		return unsupported(f.Name, "page layout %d", pm.layout.kind)
	}
}

// decodeBuffers decodes a page of column ci (or, for a sparse read, the
// part of one presented as a page: see decodeRows) from its buffers;
// dict, when set, is the page's decoded dictionary.
func (r *Reader) decodeBuffers(ci int, pl *pageLayout, rows uint64, bufs [][]byte, dict *leafData) (arrow.Array, error) {
	f := r.schema.Field(ci)
	p := r.phys[ci]
	if p.kind == physList {
		return decodeListPage(f.Name, p, f.Type, pl, rows, bufs)
	}
	var err error
	if directable(p, pl) {
		a, err := decodeMiniBlockDirect(f.Name, p, f.Type, pl, rows, bufs, r.src.ownsReads())
		if err != nil {
			return nil, err
		}
		if a.NullN() > 0 && !f.Nullable {
			a.Release()
			return nil, corrupt(f.Name, "nulls in a non-nullable column")
		}
		return a, nil
	}
	var ld *leafData
	if pl.kind == layoutFullZip {
		ld, err = decodeFullZipLeaf(f.Name, p, pl, rows, bufs)
	} else {
		ld, err = decodeMiniBlockLeafDict(f.Name, p, pl, rows, bufs, dict)
	}
	if err != nil {
		return nil, err
	}
	if ld.nullCount > 0 && !f.Nullable {
		return nil, corrupt(f.Name, "nulls in a non-nullable column")
	}
	return ld.toArrow(f.Name, p, f.Type)
}

// maxReadGap is the largest hole between two buffers that is read
// through rather than split into two reads.
const maxReadGap = 64 << 10

// readBuffers fetches a page's buffers (pageBufferSpans), with one read
// when they lie close together (as writers lay them out).
func (r *Reader) readBuffers(ctx context.Context, spans []span) ([][]byte, error) {
	spans = spans[:min(len(spans), 3)]
	if err := r.checkSpans(spans); err != nil {
		return nil, err
	}
	return r.readSpans(ctx, spans)
}
