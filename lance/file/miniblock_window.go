package file

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// decodeMiniBlockWindow decodes only rows [lo, hi) of the chunks in bufs
// (a sparse read's chunk sub-table and chunk bytes, holding rows of a
// page directable accepts; lo and hi count from the first chunk's first
// row). A point lookup wants one row of a chunk of hundreds: decoding
// the whole chunk (every offset rebased, every string gathered) was most
// of the lookup's decoding work. The chunk headers are checked as a
// whole-chunk decode checks them; the values are checked where they are
// read (offsets increasing and inside the chunk's value buffer), so a
// damaged row elsewhere in the chunk goes unnoticed here and is reported
// by a scan that decodes it.
func decodeMiniBlockWindow(col string, p *physical, dt arrow.DataType, pl *pageLayout, rows uint64, bufs [][]byte, lo, hi uint64) (arrow.Array, error) {
	if len(bufs) < 2 {
		return nil, corrupt(col, "mini-block page with %d buffers", len(bufs))
	}
	if pl.numItems != rows || rows > maxPageItems || lo >= hi || hi > rows {
		return nil, corrupt(col, "rows %d..%d of mini-block chunks of %d rows holding %d items", lo, hi, rows, pl.numItems)
	}
	hasDef := pl.def != nil
	chunks, err := splitDirectChunks(col, bufs[0], pl.chunkWordBytes, bufs[1], rows, hasDef)
	if err != nil {
		return nil, err
	}
	m := int(hi - lo)
	var validity []byte
	nulls := 0
	if hasDef {
		validity = make([]byte, bitutil.BytesForBits(int64(m)))
	}
	large := false
	switch dt.(type) {
	case *arrow.LargeStringType, *arrow.LargeBinaryType:
		large = true
	}
	var values, offsets []byte
	switch p.kind {
	case physFixed:
		values = make([]byte, 0, m*(p.bits/8))
	case physBool:
		values = make([]byte, bitutil.BytesForBits(int64(m)))
	case physVariable:
		if large {
			offsets = make([]byte, 8*(m+1))
		} else {
			offsets = make([]byte, 4*(m+1))
		}
	default:
		return nil, unsupported(col, "layout %d", p.kind)
	}
	at := 0 // rows of the window done
	row := uint64(0)
	for _, c := range chunks {
		start, end := row, row+uint64(c.values)
		row = end
		if end <= lo || start >= hi {
			continue
		}
		clo, chi := int(max(lo, start)-start), int(min(hi, end)-start)
		k := chi - clo
		if hasDef {
			if len(c.def) < 2*c.values {
				return nil, corrupt(col, "%d level bytes for %d levels", len(c.def), c.values)
			}
			for i := 0; i < k; i++ {
				if binary.LittleEndian.Uint16(c.def[2*(clo+i):]) == 0 {
					bitutil.SetBit(validity, at+i)
				} else {
					nulls++
				}
			}
		}
		switch p.kind {
		case physFixed:
			w := p.bits / 8
			if len(c.vals) < c.values*w {
				return nil, corrupt(col, "flat buffer of %d bytes for %d values", len(c.vals), c.values)
			}
			values = append(values, c.vals[clo*w:chi*w]...)
		case physBool:
			if len(c.vals)*8 < c.values {
				return nil, corrupt(col, "bool buffer of %d bytes for %d values", len(c.vals), c.values)
			}
			bitutil.CopyBitmap(c.vals, clo, k, values, at)
		case physVariable:
			ow := int(pl.value.child.bits) / 8
			b := c.vals
			if len(b) < (c.values+1)*ow {
				return nil, corrupt(col, "variable buffer of %d bytes for %d offsets", len(b), c.values+1)
			}
			first := varOffset(b, ow, clo)
			if first > uint64(len(b)) {
				return nil, corrupt(col, "variable offsets not increasing within the buffer")
			}
			prev, base := first, uint64(len(values))
			for i := 1; i <= k; i++ {
				o := varOffset(b, ow, clo+i)
				if o < prev || o > uint64(len(b)) {
					return nil, corrupt(col, "variable offsets not increasing within the buffer")
				}
				prev = o
				if large {
					binary.LittleEndian.PutUint64(offsets[8*(at+i):], base+o-first)
				} else {
					binary.LittleEndian.PutUint32(offsets[4*(at+i):], uint32(base+o-first))
				}
			}
			values = append(values, b[first:prev]...)
			if !large && len(values) > 1<<31-1 {
				return nil, unsupported(col, "more than 2 GiB of string data under 32-bit offsets")
			}
		}
		at += k
	}
	if at != m {
		return nil, corrupt(col, "chunks hold %d of rows %d..%d", at, lo, hi)
	}
	var vb *memory.Buffer
	if nulls > 0 {
		vb = memory.NewBufferBytes(validity)
	}
	var bufsOut []*memory.Buffer
	if p.kind == physVariable {
		bufsOut = []*memory.Buffer{vb, memory.NewBufferBytes(offsets), memory.NewBufferBytes(values)}
	} else {
		bufsOut = []*memory.Buffer{vb, memory.NewBufferBytes(values)}
	}
	data := array.NewData(dt, m, bufsOut, nil, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data), nil
}
