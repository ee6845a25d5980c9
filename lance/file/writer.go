package file

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/lance/schema"
	"github.com/pggraph/pggraph/objstore"
)

// DefaultPageBytes is the buffered size at which a column's page is flushed.
const DefaultPageBytes = 1 << 20

// WriterOptions tune a Writer. The zero value is usable.
type WriterOptions struct {
	// PageBytes: a column's buffered values are encoded and written as a
	// page once they pass this many bytes (default DefaultPageBytes).
	PageBytes int
	// Allocator used to concatenate buffered batches (default: Go heap).
	Allocator memory.Allocator
	// Fields, when set, are the Lance fields to record (ids, metadata) in
	// place of schema.FromArrow(arrowSchema); they must describe the same
	// Arrow schema (e.g. a dataset's field ids on an append).
	Fields []schema.Field
	// ArrowFromFields says the Arrow schema is schema.ToArrow(Fields),
	// derived by the caller, so the check that they describe the same
	// schema (a conversion per file: a few percent of a 1-row commit's
	// CPU, docs/architecture.md "CPU per small commit") is skipped.
	ArrowFromFields bool
}

// ColumnInfo ties a top-level field to its column in the file.
type ColumnInfo struct {
	Name        string
	FieldIDs    []int32 // the field's id, then its children's (a list's item)
	ColumnIndex int32   // index of the field's column in this file
}

// Result describes a finished file, as a manifest's DataFile needs it.
type Result struct {
	NumRows uint64
	Size    uint64       // total bytes
	Columns []ColumnInfo // one per top-level field, in schema order
	// FieldIDs is DataFile.fields as Lance writes it: per column the id of
	// the leaf field that owns it — for a list its item field, not the
	// list (Lance 8.0: schema a, l<item>, v, z → fields [0 2 3 4]).
	FieldIDs []int32
	// ColumnIndices parallels FieldIDs (DataFile.column_indices): 0..C-1.
	ColumnIndices []int32
	Major, Minor  uint32 // file format version: 2, 1
}

// Writer streams Arrow batches into one Lance 2.1 data file.
type Writer struct {
	out    io.Writer
	pos    uint64
	opts   WriterOptions
	schema *arrow.Schema
	fields []schema.Field
	cols   []*columnWriter
	rows   uint64
	err    error // sticky
	done   bool

	// reused for every page: the normalized values and the encoded page
	sets [2]encodeSet

	// store sink (NewWriter): the file is buffered and Put on Close.
	store objstore.Store
	key   string
	buf   *bytes.Buffer
}

type columnWriter struct {
	name         string
	dt           arrow.DataType
	phys         *physical
	pending      []arrow.Array
	pendingBytes int
	firstRow     uint64 // row number of the first pending value
	pages        []writtenPage
}

type writtenPage struct {
	buffers  []span
	rows     uint64
	layout   []byte
	priority uint64
}

// NewWriter returns a Writer that builds the file in memory and stores it
// under key with one objstore.PutNew on Close (a data file always has a
// fresh, unique name nothing references before a later commit, so it is
// created under that name in one durable round).
func NewWriter(ctx context.Context, store objstore.Store, key string, s *arrow.Schema, opts WriterOptions) (*Writer, error) {
	buf := &bytes.Buffer{}
	w, err := NewStreamWriter(buf, s, opts)
	if err != nil {
		return nil, err
	}
	w.store, w.key, w.buf = store, key, buf
	return w, nil
}

// NewStreamWriter returns a Writer that writes pages to out as they fill;
// memory stays bounded by about PageBytes per column.
func NewStreamWriter(out io.Writer, s *arrow.Schema, opts WriterOptions) (*Writer, error) {
	if opts.PageBytes <= 0 {
		opts.PageBytes = DefaultPageBytes
	}
	if opts.Allocator == nil {
		opts.Allocator = memory.DefaultAllocator
	}
	fields := opts.Fields
	if fields == nil {
		var err error
		if fields, err = schema.FromArrow(s); err != nil {
			return nil, mismatch("", "%v", err)
		}
	} else if !opts.ArrowFromFields {
		if back, err := schema.ToArrow(fields); err != nil || !sameTypes(back, s) {
			return nil, mismatch("", "WriterOptions.Fields do not describe the Arrow schema")
		}
	}
	w := &Writer{out: out, opts: opts, schema: s, fields: fields}
	for _, f := range s.Fields() {
		p, err := physicalOf(f.Name, f.Type)
		if err != nil {
			return nil, err
		}
		w.cols = append(w.cols, &columnWriter{name: f.Name, dt: f.Type, phys: p})
	}
	return w, nil
}

func sameTypes(a, b *arrow.Schema) bool {
	if len(a.Fields()) != len(b.Fields()) {
		return false
	}
	for i := range a.Fields() {
		if a.Field(i).Name != b.Field(i).Name || !arrow.TypeEqual(a.Field(i).Type, b.Field(i).Type) {
			return false
		}
	}
	return true
}

// Write appends the rows of rec. The batch's columns must have the
// writer's types, in order (names are not checked).
func (w *Writer) Write(rec arrow.RecordBatch) error {
	if w.done {
		return ErrClosed
	}
	if w.err != nil {
		return w.err
	}
	if int(rec.NumCols()) != len(w.cols) {
		return mismatch("", "batch has %d columns, file has %d", rec.NumCols(), len(w.cols))
	}
	for i, c := range w.cols {
		if !arrow.TypeEqual(rec.Column(i).DataType(), c.dt) {
			return mismatch(c.name, "batch type %s, file type %s", rec.Column(i).DataType(), c.dt)
		}
		if !w.schema.Field(i).Nullable && rec.Column(i).NullN() > 0 {
			return mismatch(c.name, "nulls in a non-nullable column")
		}
	}
	var due []*columnWriter
	for i, c := range w.cols {
		col := rec.Column(i)
		if col.Len() == 0 {
			continue
		}
		col.Retain()
		c.pending = append(c.pending, col)
		c.pendingBytes += approxBytes(col)
		if c.pendingBytes >= w.opts.PageBytes {
			due = append(due, c)
		}
	}
	w.rows += uint64(rec.NumRows())
	if err := w.flush(due); err != nil {
		w.err = err
		return err
	}
	return nil
}

// encodeSet is the scratch one page encoding reuses; a Writer has two, so
// two columns' pages can be encoded at once.
type encodeSet struct {
	leaf    leafData
	scratch pageScratch
}

// flush encodes and writes the pending values of cols, in order. Two
// non-list columns at a time are encoded concurrently, each in its own
// encodeSet, and then written in column order, so the file's bytes are
// the same as with one-by-one flushing.
func (w *Writer) flush(cols []*columnWriter) error {
	for len(cols) > 0 {
		a := cols[0]
		if len(cols) == 1 || a.phys.kind == physList || cols[1].phys.kind == physList {
			eps, keep, err := w.encodeColumn(a, &w.sets[0])
			if err == nil {
				err = w.writePages(a, eps)
			}
			release(keep)
			if err != nil {
				return err
			}
			cols = cols[1:]
			continue
		}
		b := cols[1]
		var epsB []encodedPage
		var keepB []arrow.Array
		var errB error
		done := make(chan struct{})
		go func() {
			defer close(done)
			epsB, keepB, errB = w.encodeColumn(b, &w.sets[1])
		}()
		epsA, keepA, err := w.encodeColumn(a, &w.sets[0])
		<-done
		if err == nil {
			err = w.writePages(a, epsA)
		}
		if err == nil {
			err = errB
		}
		if err == nil {
			err = w.writePages(b, epsB)
		}
		release(keepA)
		release(keepB)
		if err != nil {
			return err
		}
		cols = cols[2:]
	}
	return nil
}

func release(arrs []arrow.Array) {
	for _, a := range arrs {
		a.Release()
	}
}

// approxBytes estimates an array's buffered size for the flush threshold.
func approxBytes(a arrow.Array) int {
	n := 0
	for _, b := range a.Data().Buffers() {
		if b != nil {
			n += b.Len()
		}
	}
	for _, c := range a.Data().Children() {
		for _, b := range c.Buffers() {
			if b != nil {
				n += b.Len()
			}
		}
	}
	if n == 0 {
		n = a.Len()
	}
	return n
}

// encodeColumn encodes c's pending values as pages in set's buffers.
// The pages may reference the returned arrays (the pending input, read
// in place), which the caller releases once the pages are written.
func (w *Writer) encodeColumn(c *columnWriter, set *encodeSet) ([]encodedPage, []arrow.Array, error) {
	if len(c.pending) == 0 {
		return nil, nil, nil
	}
	keep := c.pending
	c.pending, c.pendingBytes = nil, 0
	if c.phys.kind == physList {
		arr := keep[0]
		if len(keep) > 1 {
			var err error
			if arr, err = array.Concatenate(keep, w.opts.Allocator); err != nil {
				return nil, keep, &Error{Column: c.name, Detail: err.Error(), Err: ErrSchemaMismatch}
			}
			keep = append(keep, arr)
		}
		ld, err := listFromArrow(c.name, c.phys, arr)
		if err != nil {
			return nil, keep, err
		}
		eps, err := encodeListPages(c.name, c.phys, ld)
		return eps, keep, err
	}
	if err := set.leaf.fill(c.name, c.phys, keep, true); err != nil {
		return nil, keep, err
	}
	ep, err := encodePage(c.name, c.phys, &set.leaf, &set.scratch)
	if err != nil {
		return nil, keep, err
	}
	return []encodedPage{ep}, keep, nil
}

// writePages appends encoded pages of c to the file.
func (w *Writer) writePages(c *columnWriter, eps []encodedPage) error {
	for _, ep := range eps {
		wp := writtenPage{rows: ep.rows, layout: ep.layout, priority: c.firstRow}
		for _, b := range ep.buffers {
			pos, err := w.writeAligned(b)
			if err != nil {
				return err
			}
			wp.buffers = append(wp.buffers, span{pos, uint64(len(b))})
		}
		c.pages = append(c.pages, wp)
		c.firstRow += ep.rows
	}
	return nil
}

var padding [bufferAlignment]byte

func init() {
	for i := range padding {
		padding[i] = 'H'
	}
}

// writeAligned pads to a 64-byte boundary with 'H', then writes b.
func (w *Writer) writeAligned(b []byte) (uint64, error) {
	if r := w.pos % bufferAlignment; r != 0 {
		if err := w.write(padding[:bufferAlignment-r]); err != nil {
			return 0, err
		}
	}
	pos := w.pos
	return pos, w.write(b)
}

func (w *Writer) write(b []byte) error {
	n, err := w.out.Write(b)
	w.pos += uint64(n)
	if err != nil {
		return &Error{Detail: "write: " + err.Error(), Err: err}
	}
	return nil
}

// Close flushes every column, writes the metadata and footer and, for a
// store-backed writer, stores the file. It returns what the manifest needs.
func (w *Writer) Close(ctx context.Context) (Result, error) {
	if w.done {
		return Result{}, ErrClosed
	}
	w.done = true
	defer w.releasePending()
	if w.err != nil {
		return Result{}, w.err
	}
	if err := w.flush(w.cols); err != nil {
		return Result{}, err
	}
	// Global buffer 0: the FileDescriptor.
	desc := descriptor{fields: w.fields, numRows: w.rows}
	if md := w.schema.Metadata(); md.Len() > 0 {
		desc.metadata = map[string][]byte{}
		for i, k := range md.Keys() {
			desc.metadata[k] = []byte(md.Values()[i])
		}
	}
	gpos, err := w.writeAligned(desc.encode())
	if err != nil {
		return Result{}, err
	}
	gbuf := span{gpos, w.pos - gpos}
	metaStart := w.pos
	cmSpans := make([]span, len(w.cols))
	for i, c := range w.cols {
		b := encodeColumnMeta(c.pages)
		cmSpans[i] = span{w.pos, uint64(len(b))}
		if err := w.write(b); err != nil {
			return Result{}, err
		}
	}
	cmoPos := w.pos
	if err := w.write(encodeSpans(cmSpans)); err != nil {
		return Result{}, err
	}
	gboPos := w.pos
	if err := w.write(encodeSpans([]span{gbuf})); err != nil {
		return Result{}, err
	}
	ft := footer{columnMetaStart: metaStart, columnMetaOffsets: cmoPos, globalBufOffsets: gboPos,
		numGlobalBuffers: 1, numColumns: uint32(len(w.cols)), major: majorVersion, minor: minorVersion}
	if err := w.write(ft.encode()); err != nil {
		return Result{}, err
	}
	if w.store != nil {
		if err := objstore.PutNew(ctx, w.store, w.key, w.buf.Bytes()); err != nil {
			return Result{}, err
		}
		w.buf = nil
	}
	return w.result(), nil
}

// Abort drops buffered data; nothing is stored.
func (w *Writer) Abort() {
	w.done = true
	w.releasePending()
	w.buf = nil
}

func (w *Writer) releasePending() {
	for _, c := range w.cols {
		for _, p := range c.pending {
			p.Release()
		}
		c.pending = nil
	}
}

func (w *Writer) result() Result {
	r := Result{NumRows: w.rows, Size: w.pos, Major: majorVersion, Minor: minorVersion}
	for _, f := range w.fields {
		if f.ParentID == -1 {
			r.Columns = append(r.Columns, ColumnInfo{Name: f.Name, FieldIDs: []int32{f.ID}, ColumnIndex: int32(len(r.Columns))})
		} else if len(r.Columns) > 0 {
			ci := &r.Columns[len(r.Columns)-1]
			ci.FieldIDs = append(ci.FieldIDs, f.ID)
		}
	}
	// As Lance records it: one entry per column, naming the leaf field that
	// owns it (a list's item field, not the list itself).
	for _, c := range r.Columns {
		r.FieldIDs = append(r.FieldIDs, c.FieldIDs[len(c.FieldIDs)-1])
		r.ColumnIndices = append(r.ColumnIndices, c.ColumnIndex)
	}
	return r
}

func encodeSpans(ss []span) []byte {
	b := make([]byte, 0, 16*len(ss))
	for _, s := range ss {
		b = binary.LittleEndian.AppendUint64(b, s.pos)
		b = binary.LittleEndian.AppendUint64(b, s.size)
	}
	return b
}

// columnEncodingField is the column encoding every column's metadata
// starts with (a constant, encoded once).
var columnEncodingField = appendBytesField(nil, cmEncoding, encodeDirect(columnEncodingURL, []byte{0x0a, 0x00}))

func encodeColumnMeta(pages []writtenPage) []byte {
	b := append(make([]byte, 0, len(columnEncodingField)+64*len(pages)), columnEncodingField...)
	for _, p := range pages {
		var pb []byte
		offs := make([]uint64, len(p.buffers))
		sizes := make([]uint64, len(p.buffers))
		for i, s := range p.buffers {
			offs[i], sizes[i] = s.pos, s.size
		}
		pb = appendPacked(pb, pgBufferOffsets, offs)
		pb = appendPacked(pb, pgBufferSizes, sizes)
		pb = appendVarintField(pb, pgLength, p.rows)
		pb = appendBytesField(pb, pgEncoding, encodeDirect(pageLayoutURL, p.layout))
		if p.priority != 0 {
			pb = appendVarintField(pb, pgPriority, p.priority)
		}
		b = appendBytesField(b, cmPages, pb)
	}
	return b
}
