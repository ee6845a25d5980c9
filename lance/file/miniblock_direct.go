package file

import (
	"bytes"
	"encoding/binary"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The direct decoder handles the mini-block pages a plain writer emits
// (ours, and Lance's with plain encodings): flat fixed-width, flat bool
// and variable{flat 32|64} values, one value buffer per chunk, optional
// definition levels. It builds the Arrow buffers in one pass over the
// chunks with no per-value appends: fixed-width and string bytes are
// gathered with one copy per chunk into an uninitialized buffer
// (bytes.Join), offsets are rebased in one tight loop, definition levels
// become the validity bitmap directly. Everything else goes through the
// general leafData path, which stays the reference (the tests decode
// every page both ways).

// directChunk is one chunk's parts, located in page buffer 1.
type directChunk struct {
	values int    // values in the chunk
	def    []byte // encoded definition levels (nil without)
	vals   []byte // the value buffer
}

// directable reports whether decodeMiniBlockDirect handles the page.
func directable(p *physical, pl *pageLayout) bool {
	if pl.kind != layoutMiniBlock || pl.dictionary != nil || pl.rep != nil || pl.repIndexDepth != 0 ||
		pl.numBuffers != 1 || pl.value == nil || pl.value.compression != 0 ||
		len(pl.layers) != 1 || (pl.layers[0] != layerAllValidItem && pl.layers[0] != layerNullableItem) {
		return false
	}
	if d := pl.def; d != nil && !(d.kind == encFlat && d.bits == 16 && d.compression == 0) {
		return false
	}
	v := pl.value
	switch p.kind {
	case physFixed:
		return v.kind == encFlat && int(v.bits) == p.bits && p.bits%8 == 0
	case physBool:
		return v.kind == encFlat && v.bits == 1
	case physVariable:
		return v.kind == encVariable && v.child != nil && v.child.kind == encFlat && v.child.compression == 0 &&
			(v.child.bits == 32 || v.child.bits == 64)
	}
	return false
}

// decodeMiniBlockDirect decodes a page directable accepts into an Arrow
// array of type dt. With owned, bufs are the caller's to modify (a fresh
// read): value and string bytes are then compacted in place in bufs[1]
// and the Arrow buffers share it, so a scan allocates and touches no
// second copy of the page; without, they are gathered into a new buffer.
func decodeMiniBlockDirect(col string, p *physical, dt arrow.DataType, pl *pageLayout, rows uint64, bufs [][]byte, owned bool) (arrow.Array, error) {
	if len(bufs) < 2 {
		return nil, corrupt(col, "mini-block page with %d buffers", len(bufs))
	}
	if pl.numItems != rows || rows > maxPageItems {
		return nil, corrupt(col, "mini-block page of %d rows holds %d items", rows, pl.numItems)
	}
	chunks, err := splitDirectChunks(col, bufs[0], pl.chunkWordBytes, bufs[1], rows, pl.def != nil)
	if err != nil {
		return nil, err
	}
	n := int(rows)
	validity, nulls, err := directValidity(col, chunks, n, pl.def != nil)
	if err != nil {
		return nil, err
	}
	var vb *memory.Buffer
	if nulls > 0 {
		vb = memory.NewBufferBytes(validity)
	}
	var data arrow.ArrayData
	switch p.kind {
	case physFixed:
		w := p.bits / 8
		parts := make([][]byte, len(chunks))
		for i, c := range chunks {
			if len(c.vals) < c.values*w {
				return nil, corrupt(col, "flat buffer of %d bytes for %d values", len(c.vals), c.values)
			}
			parts[i] = c.vals[:c.values*w]
		}
		data = array.NewData(dt, n, []*memory.Buffer{vb, memory.NewBufferBytes(gather(parts, bufs[1], owned))}, nil, nulls, 0)
	case physBool:
		for _, c := range chunks {
			if len(c.vals)*8 < c.values {
				return nil, corrupt(col, "bool buffer of %d bytes for %d values", len(c.vals), c.values)
			}
		}
		out := make([]byte, bitutil.BytesForBits(int64(n)))
		at := 0
		for _, c := range chunks {
			bitutil.CopyBitmap(c.vals, 0, c.values, out, at)
			at += c.values
		}
		data = array.NewData(dt, n, []*memory.Buffer{vb, memory.NewBufferBytes(out)}, nil, nulls, 0)
	case physVariable:
		ob, vals, err := directVariable(col, dt, chunks, n, int(pl.value.child.bits)/8, bufs[1], owned)
		if err != nil {
			return nil, err
		}
		data = array.NewData(dt, n, []*memory.Buffer{vb, memory.NewBufferBytes(ob), memory.NewBufferBytes(vals)}, nil, nulls, 0)
	default:
		return nil, unsupported(col, "layout %d", p.kind)
	}
	defer data.Release()
	return array.MakeFromData(data), nil
}

// splitDirectChunks walks the chunk table and splits every chunk into
// its definition levels and its single value buffer.
func splitDirectChunks(col string, table []byte, wordBytes int, data []byte, numItems uint64, hasDef bool) ([]directChunk, error) {
	if wordBytes != 2 && wordBytes != 4 {
		return nil, corrupt(col, "chunk table word of %d bytes", wordBytes)
	}
	if len(table)%wordBytes != 0 {
		return nil, corrupt(col, "chunk table of %d bytes", len(table))
	}
	words := len(table) / wordBytes
	if words == 0 {
		if numItems != 0 {
			return nil, corrupt(col, "chunks hold 0 items, page has %d", numItems)
		}
		return nil, nil
	}
	out := make([]directChunk, words)
	off := 0
	var seen uint64
	for i := range out {
		var w uint64
		if wordBytes == 2 {
			w = uint64(binary.LittleEndian.Uint16(table[2*i:]))
		} else {
			w = uint64(binary.LittleEndian.Uint32(table[4*i:]))
		}
		size := (int(w>>4) + 1) * miniBlockAlignment
		var k uint64
		if i < words-1 {
			k = 1 << (w & 0x0F)
		} else if seen <= numItems {
			k = numItems - seen
		} else {
			return nil, corrupt(col, "chunk table counts %d items for a page of %d", seen, numItems)
		}
		if k > 1<<16 {
			return nil, corrupt(col, "chunk %d holds %d items", i, k)
		}
		if size > len(data)-off {
			return nil, corrupt(col, "chunk %d (%d+%d) beyond its %d-byte buffer", i, off, size, len(data))
		}
		c := data[off : off+size]
		off += size
		seen += k
		// header: u16 levels, [u16 def bytes], u16 value bytes; then the
		// parts, each starting 8-aligned
		hdr := 4
		if hasDef {
			hdr = 6
		}
		if len(c) < hdr {
			return nil, corrupt(col, "truncated chunk header")
		}
		levels := int(binary.LittleEndian.Uint16(c))
		at := 2
		defSize := 0
		if hasDef {
			defSize = int(binary.LittleEndian.Uint16(c[at:]))
			at += 2
			if levels != int(k) {
				return nil, corrupt(col, "chunk with %d levels for %d values", levels, k)
			}
		}
		valSize := int(binary.LittleEndian.Uint16(c[at:]))
		at = alignUp8(at + 2)
		dc := directChunk{values: int(k)}
		if hasDef {
			if defSize > len(c)-at {
				return nil, corrupt(col, "chunk part of %d bytes past the chunk end", defSize)
			}
			dc.def = c[at : at+defSize]
			at = alignUp8(at + defSize)
		}
		if at > len(c) || valSize > len(c)-at {
			return nil, corrupt(col, "chunk part of %d bytes past the chunk end", valSize)
		}
		dc.vals = c[at : at+valSize]
		out[i] = dc
	}
	if seen != numItems {
		return nil, corrupt(col, "chunks hold %d items, page has %d", seen, numItems)
	}
	return out, nil
}

func alignUp8(n int) int { return (n + miniBlockAlignment - 1) &^ (miniBlockAlignment - 1) }

// directValidity turns flat u16 definition levels (0 = valid) into an
// Arrow validity bitmap and counts the nulls.
func directValidity(col string, chunks []directChunk, n int, hasDef bool) ([]byte, int, error) {
	if !hasDef {
		return nil, 0, nil
	}
	// check every chunk before allocating, so a corrupt page claiming
	// many values cannot force a large allocation
	for _, c := range chunks {
		if len(c.def) < 2*c.values {
			return nil, 0, corrupt(col, "%d level bytes for %d levels", len(c.def), c.values)
		}
	}
	vb := make([]byte, bitutil.BytesForBits(int64(n)))
	at, nulls := 0, 0
	for _, c := range chunks {
		d := c.def[:2*c.values]
		i := 0
		// whole output bytes while aligned: 8 levels (16 bytes) at a time
		if at%8 == 0 {
			for ; i+8 <= c.values; i += 8 {
				q := d[2*i : 2*i+16]
				byt := zeroLanes(binary.LittleEndian.Uint64(q)) | zeroLanes(binary.LittleEndian.Uint64(q[8:]))<<4
				vb[(at+i)/8] = byt
				nulls += 8 - bits.OnesCount8(byt)
			}
		}
		for ; i < c.values; i++ {
			if binary.LittleEndian.Uint16(d[2*i:]) == 0 {
				bitutil.SetBit(vb, at+i)
			} else {
				nulls++
			}
		}
		at += c.values
	}
	return vb, nulls, nil
}

// gather concatenates parts, which are sub-slices of buf in ascending,
// non-overlapping order: in place at the front of buf when the caller
// owns it (each part moves left, never over a part not yet moved), else
// into a new buffer (one copy, no zeroing).
func gather(parts [][]byte, buf []byte, owned bool) []byte {
	if !owned {
		return bytes.Join(parts, nil)
	}
	at := 0
	for _, p := range parts {
		at += copy(buf[at:], p)
	}
	return buf[:at:at]
}

// zeroLanes returns a 4-bit mask of the 16-bit lanes of x that are zero
// (bit j for lane j, the level of value j in little-endian order).
func zeroLanes(x uint64) byte {
	const low, high = 0x7FFF7FFF7FFF7FFF, 0x8000800080008000
	// bit 15 of a lane is set iff the lane is non-zero (no carry leaves
	// a lane: 0x7FFF + 0x7FFF < 0x10000)
	nz := ((x & low) + low | x) & high
	nz >>= 15
	return ^byte(nz|nz>>15|nz>>30|nz>>45) & 0xF
}

// directVariable gathers the bytes of every chunk's values (see gather)
// and builds the offsets buffer (32-bit for utf8/binary, 64-bit for the
// large types) rebased onto the gathered bytes. All offsets are read
// before any byte moves, so an in-place gather cannot clobber them.
func directVariable(col string, dt arrow.DataType, chunks []directChunk, n, ow int, buf []byte, owned bool) ([]byte, []byte, error) {
	parts := make([][]byte, len(chunks))
	total := 0
	for i, c := range chunks {
		b := c.vals
		if len(b) < (c.values+1)*ow {
			return nil, nil, corrupt(col, "variable buffer of %d bytes for %d offsets", len(b), c.values+1)
		}
		first, last := varOffset(b, ow, 0), varOffset(b, ow, c.values)
		if first > last || last > uint64(len(b)) {
			return nil, nil, corrupt(col, "variable offsets not increasing within the buffer")
		}
		parts[i] = b[first:last]
		total += int(last - first)
	}
	large := false
	switch dt.(type) {
	case *arrow.LargeStringType, *arrow.LargeBinaryType:
		large = true
	default:
		if total > 1<<31-1 {
			return nil, nil, unsupported(col, "a page with more than 2 GiB of string data under 32-bit offsets")
		}
	}
	obw := 4
	if large {
		obw = 8
	}
	ob := make([]byte, obw*(n+1))
	at, base := 0, uint64(0)
	for _, c := range chunks {
		b, k := c.vals, c.values
		first := varOffset(b, ow, 0)
		prev, bad := first, false
		if ow == 4 && !large {
			// the common case (utf8 in a plain 2.1 file), without branches
			src, dst := b[4:4*(k+1)], ob[4*(at+1):4*(at+k+1)]
			p32, shift := uint32(first), uint32(base)-uint32(first)
			for i := 0; i < k; i++ {
				o := binary.LittleEndian.Uint32(src[4*i:])
				bad = bad || o < p32
				p32 = o
				binary.LittleEndian.PutUint32(dst[4*i:], o+shift)
			}
			prev = uint64(p32)
		} else {
			for i := 1; i <= k; i++ {
				o := varOffset(b, ow, i)
				bad = bad || o < prev
				prev = o
				if large {
					binary.LittleEndian.PutUint64(ob[8*(at+i):], base+o-first)
				} else {
					binary.LittleEndian.PutUint32(ob[4*(at+i):], uint32(base+o-first))
				}
			}
		}
		if bad {
			return nil, nil, corrupt(col, "variable offsets not increasing within the buffer")
		}
		at += k
		base += prev - first
	}
	return ob, gather(parts, buf, owned), nil
}

func varOffset(b []byte, ow, i int) uint64 {
	if ow == 4 {
		return uint64(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return binary.LittleEndian.Uint64(b[8*i:])
}
