package file

import "encoding/binary"

// FastLanes bit-packing, as Lance's inline and out-of-line bitpacking use
// it: 1024 values of a T-bit type packed at W bits each into 1024·W/T
// words. There are 1024/T lanes; each lane is a little-endian bit stream
// of T rows, its word w stored at index lanes·w + lane. The value at
// (row, lane) is element flOrder[row/8]·16 + (row%8)·128 + lane of the block.

const flBlock = 1024

var flOrder = [8]int{0, 4, 2, 6, 1, 5, 3, 7}

// readWord reads word i of T bits from b.
func readWord(b []byte, t, i int) uint64 {
	switch t {
	case 8:
		return uint64(b[i])
	case 16:
		return uint64(binary.LittleEndian.Uint16(b[2*i:]))
	case 32:
		return uint64(binary.LittleEndian.Uint32(b[4*i:]))
	default:
		return binary.LittleEndian.Uint64(b[8*i:])
	}
}

// packedBytes is the size of one packed block of 1024 W-bit values of a
// T-bit type.
func packedBytes(t, w int) int { return flBlock * w / 8 }

// unpackBlock unpacks one block (packedBytes(t, w) bytes) into out, 1024
// values, each stored as a uint64.
func unpackBlock(t, w int, packed []byte, out []uint64) {
	lanes := flBlock / t
	if w == 0 {
		clear(out[:flBlock])
		return
	}
	mask := uint64(1)<<uint(w) - 1
	if w == 64 {
		mask = ^uint64(0)
	}
	for lane := 0; lane < lanes; lane++ {
		for row := 0; row < t; row++ {
			pos := row * w
			wi, sh := pos/t, pos%t
			v := readWord(packed, t, lanes*wi+lane) >> uint(sh)
			if sh+w > t {
				v |= readWord(packed, t, lanes*(wi+1)+lane) << uint(t-sh)
			}
			out[flOrder[row/8]*16+(row%8)*128+lane] = v & mask
		}
	}
}

// packBlock is the inverse of unpackBlock (used by tests and fuzz seeds).
func packBlock(t, w int, in []uint64) []byte {
	out := make([]byte, packedBytes(t, w))
	if w == 0 {
		return out
	}
	lanes := flBlock / t
	words := make([]uint64, flBlock*w/t)
	for lane := 0; lane < lanes; lane++ {
		for row := 0; row < t; row++ {
			v := in[flOrder[row/8]*16+(row%8)*128+lane]
			if w < 64 {
				v &= uint64(1)<<uint(w) - 1
			}
			pos := row * w
			wi, sh := pos/t, pos%t
			words[lanes*wi+lane] |= v << uint(sh)
			if sh+w > t {
				words[lanes*(wi+1)+lane] |= v >> uint(t-sh)
			}
		}
	}
	for i, v := range words {
		switch t {
		case 8:
			out[i] = byte(v)
		case 16:
			binary.LittleEndian.PutUint16(out[2*i:], uint16(v))
		case 32:
			binary.LittleEndian.PutUint32(out[4*i:], uint32(v))
		default:
			binary.LittleEndian.PutUint64(out[8*i:], v)
		}
	}
	return out
}

// putWord stores v as a T-bit little-endian word at index i of b.
func putWord(b []byte, t, i int, v uint64) {
	switch t {
	case 8:
		b[i] = byte(v)
	case 16:
		binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
	case 32:
		binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
	default:
		binary.LittleEndian.PutUint64(b[8*i:], v)
	}
}

// unpackInline decodes one inline-bitpacked mini-block buffer: a T-bit
// word holding the bit width, then one packed block. It returns n values
// as T-bit little-endian bytes.
func unpackInline(col string, t int, buf []byte, n int) ([]byte, error) {
	tb := t / 8
	if len(buf) < tb || n > flBlock {
		return nil, corrupt(col, "inline bitpacking buffer of %d bytes for %d values", len(buf), n)
	}
	w := int(readWord(buf, t, 0))
	if w > t || len(buf)-tb < packedBytes(t, w) {
		return nil, corrupt(col, "inline bitpacking width %d with %d bytes", w, len(buf)-tb)
	}
	vals := make([]uint64, flBlock)
	unpackBlock(t, w, buf[tb:], vals)
	out := make([]byte, n*tb)
	for i := 0; i < n; i++ {
		putWord(out, t, i, vals[i])
	}
	return out, nil
}

// unpackOutOfLine decodes an out-of-line bitpacked buffer of n values:
// whole packed blocks, then a tail that is either one more padded block or
// the raw values (told apart by the buffer length).
func unpackOutOfLine(col string, t, w int, buf []byte, n int) ([]byte, error) {
	tb := t / 8
	if w > t {
		return nil, corrupt(col, "out-of-line bitpacking width %d > %d", w, t)
	}
	blk := packedBytes(t, w)
	whole, tail := n/flBlock, n%flBlock
	rawTail := tail > 0 && len(buf) == whole*blk+tail*tb
	need := whole * blk
	if tail > 0 {
		if rawTail {
			need += tail * tb
		} else {
			need += blk
		}
	}
	if len(buf) < need {
		return nil, corrupt(col, "out-of-line bitpacking: %d bytes for %d values at %d bits", len(buf), n, w)
	}
	out := make([]byte, n*tb)
	vals := make([]uint64, flBlock)
	for b := 0; b < whole; b++ {
		unpackBlock(t, w, buf[b*blk:], vals)
		for i := 0; i < flBlock; i++ {
			putWord(out, t, b*flBlock+i, vals[i])
		}
	}
	if tail > 0 {
		if rawTail {
			copy(out[whole*flBlock*tb:], buf[whole*blk:whole*blk+tail*tb])
		} else {
			unpackBlock(t, w, buf[whole*blk:], vals)
			for i := 0; i < tail; i++ {
				putWord(out, t, whole*flBlock+i, vals[i])
			}
		}
	}
	return out, nil
}
