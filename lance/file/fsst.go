package file

import "encoding/binary"

// FSST (Fast Static Symbol Table) decompression, as Lance stores it: a
// symbol table serialized as a u64 header (magic "FSST" in the high 32
// bits, bit 24 = compression on, low byte = number of symbols), then the
// symbols as 8-byte little-endian words, then one length byte per symbol.
// A code byte c < 255 expands to the first lens[c] bytes of symbol c; 255
// escapes the next byte, which is copied literally.

const (
	fsstMagic  = 0x46535354 << 32
	fsstEscape = 255
)

type fsstTable struct {
	on      bool
	symbols [255][8]byte
	lens    [255]uint8
}

func parseFsstTable(col string, b []byte) (*fsstTable, error) {
	if len(b) < 8 {
		return nil, corrupt(col, "FSST symbol table of %d bytes", len(b))
	}
	h := binary.LittleEndian.Uint64(b)
	if h&fsstMagic != fsstMagic {
		return nil, corrupt(col, "FSST symbol table without magic")
	}
	t := &fsstTable{on: h&(1<<24) != 0}
	n := int(h & 255)
	if len(b) < 8+9*n {
		return nil, corrupt(col, "FSST symbol table with %d symbols in %d bytes", n, len(b))
	}
	for i := 0; i < n; i++ {
		copy(t.symbols[i][:], b[8+8*i:8+8*i+8])
		l := b[8+8*n+i]
		if l < 1 || l > 8 {
			return nil, corrupt(col, "FSST symbol %d of length %d", i, l)
		}
		t.lens[i] = l
	}
	return t, nil
}

// decode appends the expansion of one compressed string to out.
func (t *fsstTable) decode(col string, out, in []byte) ([]byte, error) {
	if !t.on {
		return append(out, in...), nil
	}
	for i := 0; i < len(in); i++ {
		c := in[i]
		if c == fsstEscape {
			i++
			if i == len(in) {
				return nil, corrupt(col, "FSST escape at the end of a string")
			}
			out = append(out, in[i])
			continue
		}
		if t.lens[c] == 0 {
			return nil, corrupt(col, "FSST code %d not in the symbol table", c)
		}
		out = append(out, t.symbols[c][:t.lens[c]]...)
	}
	return out, nil
}
