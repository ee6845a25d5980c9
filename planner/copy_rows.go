package planner

import (
	"encoding/binary"
	"errors"
	"io"
	"math"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/wire"
)

// copyRowReader reads COPY rows from the client (wire.CopyIn.NextShared,
// no allocation per row) into batches.
type copyRowReader struct {
	in      *wire.CopyIn
	td      *exec.TableDef
	targets []int
	binary  bool
	m       *pgtype.Map
	line    int
	// hint is each text column's byte size in the previous batch (the
	// next batch's buffer starts there)
	hint []int
	// loc and style are the session's TimeZone, DateStyle and
	// IntervalStyle, which text input reads values in
	loc   *time.Location
	style exec.DateStyle
}

func newCopyRowReader(in *wire.CopyIn, td *exec.TableDef, targets []int, s *session) *copyRowReader {
	r := &copyRowReader{in: in, td: td, targets: targets, binary: in.Options().Format == wire.CopyBinary, loc: s.location(), style: s.dateStyle()}
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
		fields, err := r.in.NextShared() // valid until the next call: copied or converted at once
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
			o := r.in.Options()
			raw.err = copyWidthError(r.td, r.targets, fields, r.line, &o)
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
		b.cols[i].loc, b.cols[i].style = r.loc, r.style
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

// nextBinary reads and converts up to max binary-format rows.
func (r *copyRowReader) nextBinary(max int) (*copyBatch, error) {
	b := r.newBatch(max)
	defer r.keepHints(b)
	for b.n < max {
		fields, err := r.in.NextShared() // valid until the next call: copied or converted at once
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
		o := r.in.Options()
		return copyWidthError(r.td, r.targets, fields, r.line, &o)
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
			return copyBinaryValueError(binaryValueError(c.t, f, err), r.td.Name, r.line, c.name)
		}
		if err := c.add([]byte(txt)); err != nil {
			return copyBinaryValueError(err, r.td.Name, r.line, c.name)
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
