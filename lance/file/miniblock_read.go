package file

import (
	"encoding/binary"
)

// chunkInfo locates one mini-block chunk inside page buffer 1.
type chunkInfo struct {
	off, size int
	values    int // items in the chunk
}

// parseChunkTable reads a mini-block chunk table: one word per chunk of
// wordBytes (2 in format 2.1, 4 in 2.2), ((bytes/8 - 1) << 4) | log2(values).
func parseChunkTable(col string, table []byte, wordBytes int, dataLen int, numItems uint64) ([]chunkInfo, error) {
	if len(table)%wordBytes != 0 {
		return nil, corrupt(col, "chunk table of %d bytes", len(table))
	}
	words := len(table) / wordBytes
	out := make([]chunkInfo, 0, words)
	off := 0
	var seen uint64
	for i := 0; i < words; i++ {
		var w uint64
		if wordBytes == 2 {
			w = uint64(binary.LittleEndian.Uint16(table[2*i:]))
		} else {
			w = uint64(binary.LittleEndian.Uint32(table[4*i:]))
		}
		size := (int(w>>4) + 1) * miniBlockAlignment
		var n uint64
		if i < words-1 {
			n = 1 << (w & 0x0F)
		} else {
			if seen > numItems {
				return nil, corrupt(col, "chunk table counts %d items for a page of %d", seen, numItems)
			}
			n = numItems - seen
		}
		if off+size > dataLen {
			return nil, corrupt(col, "chunk %d (%d+%d) beyond its %d-byte buffer", i, off, size, dataLen)
		}
		if n > 1<<16 {
			return nil, corrupt(col, "chunk %d holds %d items", i, n)
		}
		out = append(out, chunkInfo{off: off, size: size, values: int(n)})
		off += size
		seen += n
	}
	if seen != numItems && !(words == 0 && numItems == 0) {
		return nil, corrupt(col, "chunks hold %d items, page has %d", seen, numItems)
	}
	return out, nil
}

// rawChunk is a chunk split into its parts (still encoded).
type rawChunk struct {
	numLevels int
	rep, def  []byte
	buffers   [][]byte
}

func splitChunk(col string, c []byte, hasRep, hasDef bool, numBuffers int) (rawChunk, error) {
	var rc rawChunk
	off := 0
	u16 := func() (int, error) {
		if off+2 > len(c) {
			return 0, corrupt(col, "truncated chunk header")
		}
		v := int(binary.LittleEndian.Uint16(c[off:]))
		off += 2
		return v, nil
	}
	var err error
	if rc.numLevels, err = u16(); err != nil {
		return rc, err
	}
	repSize, defSize := -1, -1
	if hasRep {
		if repSize, err = u16(); err != nil {
			return rc, err
		}
	}
	if hasDef {
		if defSize, err = u16(); err != nil {
			return rc, err
		}
	}
	sizes := make([]int, numBuffers)
	for i := range sizes {
		if sizes[i], err = u16(); err != nil {
			return rc, err
		}
	}
	align := func() { off = (off + miniBlockAlignment - 1) &^ (miniBlockAlignment - 1) }
	take := func(n int) ([]byte, error) {
		align()
		if off+n > len(c) {
			return nil, corrupt(col, "chunk part of %d bytes past the chunk end", n)
		}
		b := c[off : off+n]
		off += n
		return b, nil
	}
	if repSize >= 0 {
		if rc.rep, err = take(repSize); err != nil {
			return rc, err
		}
	}
	if defSize >= 0 {
		if rc.def, err = take(defSize); err != nil {
			return rc, err
		}
	}
	for _, s := range sizes {
		b, err := take(s)
		if err != nil {
			return rc, err
		}
		rc.buffers = append(rc.buffers, b)
	}
	return rc, nil
}

// decodeLevels decodes a chunk's rep or def buffer into n u16 levels.
func decodeLevels(col string, e *enc, b []byte, n int) ([]uint16, error) {
	var raw []byte
	var err error
	switch {
	case e.kind == encFlat && e.bits == 16 && e.compression == 0:
		if len(b) < 2*n {
			return nil, corrupt(col, "%d level bytes for %d levels", len(b), n)
		}
		raw = b
	case e.kind == encOutOfLineBitpacking && e.bits == 16 && e.child != nil && e.child.kind == encFlat:
		raw, err = unpackOutOfLine(col, 16, int(e.child.bits), b, n)
	case e.kind == encInlineBitpacking && e.bits == 16 && e.compression == 0:
		raw, err = unpackInline(col, 16, b, n)
	default:
		return nil, unsupported(col, "level encoding %s", e)
	}
	if err != nil {
		return nil, err
	}
	out := make([]uint16, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint16(raw[2*i:])
	}
	return out, nil
}
