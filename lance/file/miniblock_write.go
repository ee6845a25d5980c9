package file

import (
	"encoding/binary"
	"math/bits"
)

// Chunk sizing targets (the sizes Lance itself aims for): a chunk holds a
// power-of-two number of values, at most 4096, of about targetChunkBytes.
const (
	maxChunkValues   = 4096
	targetChunkBytes = 4096
)

// encodedPage is a page ready to be written: its buffers and its
// PageLayout protobuf.
type encodedPage struct {
	rows    uint64
	buffers [][]byte
	layout  []byte
}

// encodePage encodes one page of a non-list column with plain encodings.
func encodePage(col string, p *physical, ld *leafData) (encodedPage, error) {
	if ld.n > 0 && ld.nullCount == ld.n {
		var al []byte
		al = appendPacked(al, 5, []uint64{layerNullableItem})
		return encodedPage{rows: uint64(ld.n), layout: appendBytesField(nil, layoutAllNull, al)}, nil
	}
	if needsFullZip(p, ld) {
		return encodeFullZipPage(col, p, ld)
	}
	withDef := ld.nullCount > 0
	var table []byte
	// One allocation for all chunks: values, levels, and per-chunk overhead.
	est := ld.sizeOf(p, 0, ld.n) + ld.n/maxChunkValues*64 + 64
	if withDef {
		est += 2 * ld.n
	}
	if p.kind == physVariable {
		est += ld.n * p.bits / 8
	}
	chunks := make([]byte, 0, est)
	var defs []uint16
	for s := 0; s < ld.n; {
		k := chunkRows(p, ld, s)
		last := s+k == ld.n
		defs = defs[:0]
		if withDef {
			for i := 0; i < k; i++ {
				d := uint16(0)
				if ld.nulls[s+i] {
					d = 1
				}
				defs = append(defs, d)
			}
		}
		before := len(chunks)
		var err error
		if chunks, err = appendChunk(col, chunks, withDef, defs, ld.valueBuffers(p, s, k)); err != nil {
			return encodedPage{}, err
		}
		word := uint16(((len(chunks)-before)/miniBlockAlignment - 1) << 4)
		if !last {
			word |= uint16(bits.TrailingZeros(uint(k)))
		}
		table = binary.LittleEndian.AppendUint16(table, word)
		s += k
	}
	var mb []byte
	if withDef {
		mb = appendBytesField(mb, 2, flatEnc(16))
	}
	mb = appendBytesField(mb, 3, valueEncoding(p, ld))
	layer := uint64(layerAllValidItem)
	if withDef {
		layer = layerNullableItem
	}
	mb = appendPacked(mb, 6, []uint64{layer})
	nbuf := uint64(1)
	if p.kind == physFSL && ld.elemValid != nil {
		nbuf = 2
	}
	mb = appendVarintField(mb, 7, nbuf)
	mb = appendVarintField(mb, 9, uint64(ld.n))
	return encodedPage{rows: uint64(ld.n), buffers: [][]byte{table, chunks}, layout: appendBytesField(nil, layoutMiniBlock, mb)}, nil
}

func valueEncoding(p *physical, ld *leafData) []byte {
	switch p.kind {
	case physBool:
		return flatEnc(1)
	case physVariable:
		return variableEnc(uint64(p.bits))
	case physFSL:
		return fslEnc(uint64(p.dim), ld.elemValid != nil, flatEnc(uint64(p.bits)))
	}
	return flatEnc(uint64(p.bits))
}

// chunkRows picks how many values start at s go into one chunk: the whole
// remainder if it is small enough, else the largest power of two that fits
// the byte target (at least one).
func chunkRows(p *physical, ld *leafData, s int) int {
	rest := ld.n - s
	if rest <= maxChunkValues && ld.sizeOf(p, s, rest) <= targetChunkBytes {
		return rest
	}
	k := 1
	for k*2 <= maxChunkValues && k*2 <= rest && ld.sizeOf(p, s, k*2) <= targetChunkBytes {
		k *= 2
	}
	return k
}

// appendChunk lays out one mini-block chunk after dst: u16 level count,
// u16 def size (when withDef), u16 per value buffer, padding to 8, defs,
// padding, buffers each padded to 8. Lance pads with 0xFE.
func appendChunk(col string, dst []byte, withDef bool, defs []uint16, bufs [][]byte) ([]byte, error) {
	start := len(dst)
	c := dst
	c = binary.LittleEndian.AppendUint16(c, uint16(len(defs)))
	if withDef {
		c = binary.LittleEndian.AppendUint16(c, uint16(2*len(defs)))
	}
	for _, b := range bufs {
		if len(b) > 0xFFFF {
			return nil, unsupported(col, "a mini-block value buffer of %d bytes (a single value larger than ~32 KiB)", len(b))
		}
		c = binary.LittleEndian.AppendUint16(c, uint16(len(b)))
	}
	c = padFrom(c, start, 0xFE)
	if withDef {
		for _, d := range defs {
			c = binary.LittleEndian.AppendUint16(c, d)
		}
		c = padFrom(c, start, 0xFE)
	}
	for _, b := range bufs {
		c = append(c, b...)
		c = padFrom(c, start, 0xFE)
	}
	if len(c)-start > maxChunkBytes {
		return nil, unsupported(col, "a mini-block chunk of %d bytes (values larger than ~32 KiB need the full-zip layout)", len(c)-start)
	}
	return c, nil
}

// padFrom pads b so that len(b)-start is a multiple of 8.
func padFrom(b []byte, start int, fill byte) []byte {
	for (len(b)-start)%miniBlockAlignment != 0 {
		b = append(b, fill)
	}
	return b
}

func pad(b []byte, align int, fill byte) []byte {
	for len(b)%align != 0 {
		b = append(b, fill)
	}
	return b
}
