package file

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"sort"
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

// pageScratch holds the buffers a Writer reuses for every page it
// encodes; an encodedPage built in it is valid until the next encodePage.
type pageScratch struct {
	chunks, table []byte
	defs          []uint16
}

// encodePage encodes one page of a non-list column with plain encodings,
// in sc's buffers (nil: fresh ones).
func encodePage(col string, p *physical, ld *leafData, sc *pageScratch) (encodedPage, error) {
	if sc == nil {
		sc = &pageScratch{}
	}
	if ld.n > 0 && ld.nullCount == ld.n {
		var al []byte
		al = appendPacked(al, 5, []uint64{layerNullableItem})
		return encodedPage{rows: uint64(ld.n), layout: appendBytesField(nil, layoutAllNull, al)}, nil
	}
	if needsFullZip(p, ld) {
		return encodeFullZipPage(col, p, ld)
	}
	withDef := ld.nullCount > 0
	table := sc.table[:0]
	// One buffer for all chunks: values, levels, and per-chunk overhead.
	est := ld.sizeOf(p, 0, ld.n) + ld.n/maxChunkValues*64 + 64
	if withDef {
		est += 2 * ld.n
	}
	if p.kind == physVariable {
		est += ld.n * p.bits / 8
	}
	chunks := slices.Grow(sc.chunks[:0], est)
	defs := sc.defs[:0]
	defer func() { sc.chunks, sc.table, sc.defs = chunks[:0], table[:0], defs[:0] }()
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
		if chunks, err = appendLeafChunk(col, chunks, withDef, defs, p, ld, s, k); err != nil {
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

// appendLeafChunk lays out the mini-block chunk of values [s, s+k) of ld
// after dst: u16 level count, u16 def size (when withDef), u16 per value
// buffer, padding to 8, defs, padding, value buffers each padded to 8
// (Lance pads with 0xFE). The value buffers are written straight into
// dst, not built first.
func appendLeafChunk(col string, dst []byte, withDef bool, defs []uint16, p *physical, ld *leafData, s, k int) ([]byte, error) {
	var sizes [2]int
	nb := 1
	switch p.kind {
	case physFixed:
		sizes[0] = k * p.rowBytes()
	case physBool:
		sizes[0] = (k + 7) / 8
	case physVariable:
		ow := p.bits / 8
		n := (k+1)*ow + int(ld.offsets[s+k]-ld.offsets[s])
		sizes[0] = (n + ow - 1) / ow * ow
	case physFSL:
		if ld.elemValid != nil {
			nb = 2
			sizes[0] = (k*p.dim + 7) / 8
			sizes[1] = k * p.rowBytes()
		} else {
			sizes[0] = k * p.rowBytes()
		}
	default:
		return nil, unsupported(col, "leaf layout %d", p.kind)
	}
	start := len(dst)
	c := dst
	c = binary.LittleEndian.AppendUint16(c, uint16(len(defs)))
	if withDef {
		c = binary.LittleEndian.AppendUint16(c, uint16(2*len(defs)))
	}
	for _, n := range sizes[:nb] {
		if n > 0xFFFF {
			return nil, unsupported(col, "a mini-block value buffer of %d bytes (a single value larger than ~32 KiB)", n)
		}
		c = binary.LittleEndian.AppendUint16(c, uint16(n))
	}
	c = padFrom(c, start, 0xFE)
	if withDef {
		for _, d := range defs {
			c = binary.LittleEndian.AppendUint16(c, d)
		}
		c = padFrom(c, start, 0xFE)
	}
	switch p.kind {
	case physFixed:
		w := p.rowBytes()
		if ld.parts == nil {
			c = append(c, ld.fixed[s*w:(s+k)*w]...)
			break
		}
		// values read in place from the input arrays: copy rows
		// [s, s+k) out of the parts they span, then zero null slots
		at := len(c)
		i := sort.Search(len(ld.partRows), func(j int) bool { return ld.partRows[j] > s }) - 1
		for row := s; row < s+k; i++ {
			part, first := ld.parts[i], ld.partRows[i]
			end := min(s+k, first+len(part)/w)
			c = append(c, part[(row-first)*w:(end-first)*w]...)
			row = end
		}
		if ld.nulls != nil {
			for j, null := range ld.nulls[s : s+k] {
				if null {
					clear(c[at+j*w : at+(j+1)*w])
				}
			}
		}
	case physBool:
		at := len(c)
		c = append(c, make([]byte, sizes[0])...)
		for i, v := range ld.boolv[s : s+k] {
			if v {
				c[at+i/8] |= 1 << (i % 8)
			}
		}
	case physVariable:
		ow := p.bits / 8
		at := len(c)
		head := int64((k + 1) * ow)
		base := ld.offsets[s]
		for _, o := range ld.offsets[s : s+k+1] {
			if ow == 4 {
				c = binary.LittleEndian.AppendUint32(c, uint32(head+o-base))
			} else {
				c = binary.LittleEndian.AppendUint64(c, uint64(head+o-base))
			}
		}
		c = append(c, ld.data[base:ld.offsets[s+k]]...)
		for len(c)-at < sizes[0] {
			c = append(c, 0x48)
		}
	case physFSL:
		if nb == 2 {
			at := len(c)
			m := k * p.dim
			c = append(c, make([]byte, sizes[0])...)
			for i, v := range ld.elemValid[s*p.dim : s*p.dim+m] {
				if v {
					c[at+i/8] |= 1 << (i % 8)
				}
			}
			c = padFrom(c, start, 0xFE)
		}
		w := p.rowBytes()
		c = append(c, ld.fixed[s*w:(s+k)*w]...)
	}
	c = padFrom(c, start, 0xFE)
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
