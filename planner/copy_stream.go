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
	}
	return r
}

// next reads up to max rows (fewer only at the end of the data).
func (r *copyRowReader) next(max int) (*copyBatch, error) {
	b := newCopyBatch(r.td, r.targets, max)
	for i := range b.cols {
		if i < len(r.hint) {
			b.cols[i].data = make([]byte, 0, r.hint[i]+r.hint[i]/8)
		}
	}
	defer func() {
		r.hint = r.hint[:0]
		for i := range b.cols {
			r.hint = append(r.hint, len(b.cols[i].data))
		}
	}()
	for b.n < max {
		fields, err := r.next1()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		r.line++
		if r.binary {
			err = r.addBinary(b, fields)
		} else {
			err = b.add(fields, r.line)
		}
		if err != nil {
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
	stop    chan struct{}
	exited  chan struct{}
}

// copyParsed is one decoded batch, or the decoder's error.
type copyParsed struct {
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
func (r *copyReader) start() {
	r.started = true
	r.batches = make(chan copyParsed, 1)
	r.stop = make(chan struct{})
	r.exited = make(chan struct{})
	go func() {
		defer close(r.exited)
		defer close(r.batches)
		for {
			b, err := r.rows.next(copyBatchRows)
			select {
			case r.batches <- copyParsed{b, err}:
			case <-r.stop:
				return
			}
			if err != nil || b.n < copyBatchRows {
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
