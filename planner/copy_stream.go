package planner

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/wire"
)

// copyRowReader reads COPY rows from the client into batches.
type copyRowReader struct {
	in      *wire.CopyIn
	next1   func() ([][]byte, error) // the CopyIn's row decoder
	td      *exec.TableDef
	targets []int
	binary  bool
	m       *pgtype.Map
	line    int
	// hint is each text column's byte size in the previous batch (the
	// next batch's buffer starts there)
	hint []int
}

// sharedRows is the allocation-free row decoder a CopyIn may offer: the
// fields are valid until the next call.
type sharedRows interface {
	NextShared() ([][]byte, error)
}

func newCopyRowReader(in *wire.CopyIn, td *exec.TableDef, targets []int) *copyRowReader {
	r := &copyRowReader{in: in, next1: in.Next, td: td, targets: targets, binary: in.Options().Format == wire.CopyBinary}
	if sr, ok := any(in).(sharedRows); ok {
		r.next1 = sr.NextShared
	}
	if r.binary {
		r.m = pgtype.NewMap()
	} else if in.Options().Header {
		r.line = 1 // PostgreSQL counts the header line
	}
	return r
}

// next reads up to max rows (fewer only at the end of the data) and
// converts them.
func (r *copyRowReader) next(max int) (*copyBatch, error) {
	if r.binary {
		return r.nextBinary(max)
	}
	raw := r.nextRaw(max, nil)
	return r.convert(raw)
}

// copyRaw is a batch of text or csv rows as decoded by wire (escapes
// resolved, NULLs known) but not converted: the reading goroutine only
// copies field bytes here, conversion runs on the consuming side, so a
// COPY keeps two cores busy with similar loads.
type copyRaw struct {
	rows      int
	firstLine int
	arena     []byte
	ends      []int32 // end of each field in arena, row by row
	nulls     []bool  // per field
	// err ends the stream after these rows (a decoding error or a row
	// with the wrong number of columns); nil at a batch boundary or at
	// the end of the data
	err error
	eof bool
}

// nextRaw reads up to max rows into raw (reused when given).
func (r *copyRowReader) nextRaw(max int, raw *copyRaw) *copyRaw {
	if raw == nil {
		raw = &copyRaw{}
	}
	raw.rows, raw.err, raw.eof = 0, nil, false
	raw.arena, raw.ends, raw.nulls = raw.arena[:0], raw.ends[:0], raw.nulls[:0]
	ncols := len(r.targets)
	for raw.rows < max {
		fields, err := r.next1()
		if errors.Is(err, io.EOF) {
			raw.eof = true
			return raw
		}
		if err != nil {
			raw.err = err
			return raw
		}
		r.line++
		if len(fields) != ncols {
			raw.err = copyWidthError(r.td, r.targets, len(fields), r.line)
			return raw
		}
		if raw.rows == 0 {
			raw.firstLine = r.line
		}
		for _, f := range fields {
			raw.arena = append(raw.arena, f...)
			raw.ends = append(raw.ends, int32(len(raw.arena)))
			raw.nulls = append(raw.nulls, f == nil)
		}
		raw.rows++
	}
	return raw
}

// convert turns a raw batch into typed columns; a conversion error in
// its rows comes before the error that ended it (rows are checked in
// order).
func (r *copyRowReader) convert(raw *copyRaw) (*copyBatch, error) {
	b := r.newBatch(raw.rows)
	defer r.keepHints(b)
	ncols := len(r.targets)
	fields := make([][]byte, ncols)
	start, k := int32(0), 0
	for row := 0; row < raw.rows; row++ {
		for i := range fields {
			end := raw.ends[k]
			if raw.nulls[k] {
				fields[i] = nil
			} else {
				fields[i] = raw.arena[start:end:end]
			}
			start = end
			k++
		}
		if err := b.add(fields, raw.firstLine+row); err != nil {
			return nil, err
		}
	}
	if raw.err != nil {
		return nil, raw.err
	}
	return b, nil
}

// newBatch starts a batch whose text buffers are sized like the
// previous batch's.
func (r *copyRowReader) newBatch(rows int) *copyBatch {
	b := newCopyBatch(r.td, r.targets, max(rows, 1))
	for i := range b.cols {
		if i < len(r.hint) {
			b.cols[i].data = make([]byte, 0, r.hint[i]+r.hint[i]/8)
		}
	}
	return b
}

func (r *copyRowReader) keepHints(b *copyBatch) {
	r.hint = r.hint[:0]
	for i := range b.cols {
		r.hint = append(r.hint, len(b.cols[i].data))
	}
}

// copyWidthError is the 22P04 of a row with too many or too few fields.
func copyWidthError(td *exec.TableDef, targets []int, got, line int) error {
	if got > len(targets) {
		return wire.Errorf("22P04", "extra data after last expected column").WithDetail(fmt.Sprintf("COPY %s, line %d", td.Name, line))
	}
	return wire.Errorf("22P04", "missing data for column \"%s\"", td.Columns[targets[got]].Name).WithDetail(fmt.Sprintf("COPY %s, line %d", td.Name, line))
}

// nextBinary reads and converts up to max binary-format rows.
func (r *copyRowReader) nextBinary(max int) (*copyBatch, error) {
	b := r.newBatch(max)
	defer r.keepHints(b)
	for b.n < max {
		fields, err := r.next1()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		r.line++
		if err := r.addBinary(b, fields); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// addBinary adds a row of binary-format values: integers, floats and
// text are decoded in place, other types through their text form.
func (r *copyRowReader) addBinary(b *copyBatch, fields [][]byte) error {
	if len(fields) != len(r.targets) {
		return b.add(fields, r.line) // the column-count error
	}
	if b.n == 0 {
		b.firstLine = r.line
	}
	for i, f := range fields {
		c := &b.cols[i]
		if f == nil {
			c.null(b.n)
			continue
		}
		if c.addBinary(f) {
			continue
		}
		txt, err := binaryToText(r.m, c.t, f)
		if err != nil {
			return wire.Errorf("22P03", "invalid binary data for column \"%s\"", c.name).WithDetail(fmt.Sprintf("COPY %s, line %d: %v", r.td.Name, r.line, err))
		}
		if err := c.add([]byte(txt)); err != nil {
			return copyValueError(err, r.td.Name, r.line, c.name, []byte(txt))
		}
	}
	b.n++
	return nil
}

// addBinary decodes a fixed-size integer or float, or a text value, in
// place; false leaves the value to the text path.
func (c *copyColumn) addBinary(f []byte) bool {
	switch c.t.OID {
	case exec.OIDInt8:
		if len(f) != 8 {
			return false
		}
		c.pushInt(int64(binary.BigEndian.Uint64(f)))
	case exec.OIDInt4:
		if len(f) != 4 {
			return false
		}
		c.pushInt(int64(int32(binary.BigEndian.Uint32(f))))
	case exec.OIDInt2:
		if len(f) != 2 {
			return false
		}
		c.pushInt(int64(int16(binary.BigEndian.Uint16(f))))
	case exec.OIDFloat8:
		if len(f) != 8 {
			return false
		}
		c.pushFloat(math.Float64frombits(binary.BigEndian.Uint64(f)))
	case exec.OIDFloat4:
		if len(f) != 4 {
			return false
		}
		c.pushFloat(float64(math.Float32frombits(binary.BigEndian.Uint32(f))))
	case exec.OIDText, exec.OIDVarchar, exec.OIDBpchar:
		return c.add(f) == nil
	default:
		return false
	}
	return true
}

func (c *copyColumn) pushInt(v int64) {
	if c.nulls != nil {
		c.nulls = append(c.nulls, false)
	}
	c.ints = append(c.ints, v)
}

func (c *copyColumn) pushFloat(v float64) {
	if c.nulls != nil {
		c.nulls = append(c.nulls, false)
	}
	c.flts = append(c.flts, v)
}

// copyReader turns the COPY data stream into validated Arrow records in
// the table's schema, one batch at a time, as the Load adapter reads
// them. Reading and decoding the client's rows runs on its own goroutine,
// one batch ahead of the conversion, validation and encoding the
// adapter's goroutine does in Next (two cores busy on one COPY). Its
// error (the validator's, with its SQLSTATE) is kept for the client;
// the adapter only sees that the stream failed.
type copyReader struct {
	w       *writer
	ti      *tableInfo
	targets []int
	rows    *copyRowReader
	cur     arrow.RecordBatch
	err     error
	n       int64
	done    bool

	started bool
	batches chan copyParsed
	free    chan *copyRaw // converted raw batches, for the decoder to reuse
	stop    chan struct{}
	exited  chan struct{}
}

// copyParsed is one decoded batch (raw text/csv rows, or converted
// binary rows), or the decoder's error.
type copyParsed struct {
	raw *copyRaw
	b   *copyBatch
	err error
}

func newCopyReader(w *writer, ti *tableInfo, rows *copyRowReader, targets []int) *copyReader {
	return &copyReader{w: w, ti: ti, rows: rows, targets: targets}
}

func (r *copyReader) Retain()                        {}
func (r *copyReader) Release()                       {}
func (r *copyReader) Schema() *arrow.Schema          { return r.ti.schema }
func (r *copyReader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *copyReader) Record() arrow.RecordBatch      { return r.cur }
func (r *copyReader) Err() error                     { return r.err }

// start runs the decoder: batches of copyBatchRows rows, the last one
// shorter (possibly empty), then the channel closes; an error ends it.
// Text and csv batches travel raw (converted in Next); their buffers
// come back through free for reuse. Binary rows are converted here.
func (r *copyReader) start() {
	r.started = true
	r.batches = make(chan copyParsed, 1)
	r.free = make(chan *copyRaw, 3)
	r.stop = make(chan struct{})
	r.exited = make(chan struct{})
	go func() {
		defer close(r.exited)
		defer close(r.batches)
		for {
			var p copyParsed
			last := false
			if r.rows.binary {
				p.b, p.err = r.rows.next(copyBatchRows)
				last = p.err != nil || p.b.n < copyBatchRows
			} else {
				var raw *copyRaw
				select {
				case raw = <-r.free:
				default:
				}
				p.raw = r.rows.nextRaw(copyBatchRows, raw)
				last = p.raw.err != nil || p.raw.eof
			}
			select {
			case r.batches <- p:
			case <-r.stop:
				return
			}
			if last {
				return
			}
		}
	}()
}

// close stops the decoder and waits for it (the CopyIn is the
// session's again afterwards). Safe when it never started.
func (r *copyReader) close() {
	if !r.started {
		return
	}
	select {
	case <-r.stop:
	default:
		close(r.stop)
	}
	<-r.exited
}

func (r *copyReader) Next() bool {
	r.cur = nil
	if r.done || r.err != nil {
		return false
	}
	if !r.started {
		r.start()
	}
	for {
		p, ok := <-r.batches
		if !ok {
			r.done = true
			return false
		}
		if p.raw != nil {
			p.b, p.err = r.rows.convert(p.raw)
			select {
			case r.free <- p.raw:
			default:
			}
		}
		if p.err != nil {
			r.err = p.err
			return false
		}
		if p.b.n == 0 {
			continue
		}
		vecs, err := r.w.copyVecs(r.ti, r.targets, p.b)
		if err == nil {
			err = r.w.checkCopyRows(r.ti, vecs)
		}
		if err != nil {
			r.err = err
			return false
		}
		rec, err := copyRecord(r.ti, r.targets, p.b, vecs)
		if err != nil {
			r.err = err
			return false
		}
		r.n += int64(p.b.n)
		r.cur = rec
		return true
	}
}
