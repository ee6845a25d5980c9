package file

import (
	"encoding/binary"
)

// Full-zip pages (Lance's layout for large values) interleave, per value,
// a control word carrying the rep/def levels (1, 2 or 4 bytes by their
// total bit width) with the value: for variable-width data a length
// (bits_per_offset wide) and the bytes, present only for valid values; for
// fixed-width data the value bytes, always present. Page buffer 0 is the
// zipped data, buffer 1 a repetition index we do not need for a full scan.

func decodeFullZipLeaf(col string, p *physical, pl *pageLayout, rows uint64, bufs [][]byte) (*leafData, error) {
	if pl.bitsRep != 0 {
		return nil, unsupported(col, "full-zip page with repetition levels")
	}
	if len(pl.layers) != 1 || (pl.layers[0] != layerAllValidItem && pl.layers[0] != layerNullableItem) {
		return nil, unsupported(col, "full-zip layers %v", pl.layers)
	}
	if len(bufs) < 1 || pl.numItems != rows || rows > maxPageItems || pl.value == nil {
		return nil, corrupt(col, "full-zip page shape")
	}
	cw := 0
	switch {
	case pl.bitsDef == 0:
	case pl.bitsDef <= 8:
		cw = 1
	case pl.bitsDef <= 16:
		cw = 2
	case pl.bitsDef <= 32:
		cw = 4
	default:
		return nil, corrupt(col, "full-zip def width %d", pl.bitsDef)
	}
	data := bufs[0]
	n := int(rows)
	ld := &leafData{n: n}
	if cw > 0 {
		ld.nulls = make([]bool, 0, min(n, len(data)))
	}
	readCW := func() (uint32, error) {
		if len(data) < cw {
			return 0, corrupt(col, "full-zip data ends inside a control word")
		}
		var v uint32
		switch cw {
		case 1:
			v = uint32(data[0])
		case 2:
			v = uint32(binary.LittleEndian.Uint16(data))
		case 4:
			v = binary.LittleEndian.Uint32(data)
		}
		data = data[cw:]
		return v, nil
	}
	e := pl.value
	switch {
	case p.kind == physVariable && pl.bitsPerOffst != 0:
		lw := int(pl.bitsPerOffst / 8)
		if lw != 1 && lw != 2 && lw != 4 && lw != 8 {
			return nil, corrupt(col, "full-zip length width %d", pl.bitsPerOffst)
		}
		var t *fsstTable
		inner := e
		if e.kind == encFsst {
			var err error
			if t, err = parseFsstTable(col, e.symbols); err != nil {
				return nil, err
			}
			inner = e.child
		}
		if inner == nil || inner.kind != encVariable || inner.compression != 0 {
			return nil, unsupported(col, "full-zip value encoding %s", e)
		}
		ld.offsets = make([]int64, 1, min(n, len(bufs[0]))+1)
		for i := 0; i < n; i++ {
			def, err := readCW()
			if err != nil {
				return nil, err
			}
			if cw > 0 {
				ld.nulls = append(ld.nulls, def != 0)
			}
			if def == 0 {
				if len(data) < lw {
					return nil, corrupt(col, "full-zip data ends inside a length")
				}
				l := readWord(data, lw*8, 0)
				data = data[lw:]
				if l > uint64(len(data)) {
					return nil, corrupt(col, "full-zip value of %d bytes past the buffer", l)
				}
				if t != nil {
					if ld.data, err = t.decode(col, ld.data, data[:l]); err != nil {
						return nil, err
					}
				} else {
					ld.data = append(ld.data, data[:l]...)
				}
				data = data[l:]
			} else {
				ld.nullCount++
			}
			ld.offsets = append(ld.offsets, int64(len(ld.data)))
		}
	case (p.kind == physFixed || p.kind == physFSL) && pl.bitsPerValue != 0:
		w := p.rowBytes()
		ok := (p.kind == physFixed && e.kind == encFlat && int(e.bits) == p.bits) ||
			(p.kind == physFSL && e.kind == encFixedSizeList && int(e.bits) == p.dim &&
				e.child != nil && e.child.kind == encFlat && int(e.child.bits) == p.bits && e.child.compression == 0)
		// A vector with element validity carries ceil(dim/8) validity bytes
		// before its values.
		vb := 0
		if p.kind == physFSL && e.hasValidity {
			vb = (p.dim + 7) / 8
			ld.elemValid = make([]bool, 0, n*p.dim)
		}
		if !ok || e.compression != 0 || int(pl.bitsPerValue) != 8*(w+vb) {
			return nil, unsupported(col, "full-zip value encoding %s", e)
		}
		if uint64(len(data)) < rows*uint64(cw+vb+w) {
			return nil, corrupt(col, "full-zip buffer of %d bytes for %d values", len(data), rows)
		}
		ld.fixed = make([]byte, 0, n*w)
		for i := 0; i < n; i++ {
			def, err := readCW()
			if err != nil {
				return nil, err
			}
			if cw > 0 {
				ld.nulls = append(ld.nulls, def != 0)
				if def != 0 {
					ld.nullCount++
				}
			}
			for k := 0; k < p.dim && vb > 0; k++ {
				ld.elemValid = append(ld.elemValid, data[k/8]&(1<<(k%8)) != 0)
			}
			data = data[vb:]
			ld.fixed = append(ld.fixed, data[:w]...)
			data = data[w:]
		}
	default:
		return nil, unsupported(col, "full-zip page for this column type (%s)", e)
	}
	if ld.nullCount == 0 {
		ld.nulls = nil
	}
	return ld, nil
}

// fullZipThreshold: values larger than this go to a full-zip page instead
// of mini-block chunks (which cannot hold a value over ~32 KiB).
const fullZipThreshold = 8 << 10

// needsFullZip reports whether a page should be written full-zip.
func needsFullZip(p *physical, ld *leafData) bool {
	switch p.kind {
	case physFixed, physFSL:
		return p.rowBytes() > fullZipThreshold
	case physVariable:
		for i := 0; i < ld.n; i++ {
			if ld.offsets[i+1]-ld.offsets[i] > fullZipThreshold {
				return true
			}
		}
	}
	return false
}

// encodeFullZipPage writes a page as Lance's full_zip_layout with plain
// values: per value a one-byte control word when the page has nulls (def 1
// = null), then for variable data a length and the bytes (valid values
// only), for fixed data the value bytes (always); buffer 1 is the
// repetition index of variable pages: rows+1 byte positions, u64 each.
func encodeFullZipPage(col string, p *physical, ld *leafData) (encodedPage, error) {
	withDef := ld.nullCount > 0
	var data, repIndex []byte
	var fz []byte
	bitsDef := uint64(0)
	if withDef {
		bitsDef = 1
	}
	if bitsDef != 0 {
		fz = appendVarintField(fz, 2, bitsDef)
	}
	switch p.kind {
	case physVariable:
		lw := p.bits / 8
		data = make([]byte, 0, len(ld.data)+ld.n*(lw+1))
		for i := 0; i < ld.n; i++ {
			repIndex = binary.LittleEndian.AppendUint64(repIndex, uint64(len(data)))
			null := withDef && ld.nulls[i]
			if withDef {
				data = append(data, boolByte(null))
			}
			if null {
				continue
			}
			v := ld.data[ld.offsets[i]:ld.offsets[i+1]]
			if lw == 4 {
				data = binary.LittleEndian.AppendUint32(data, uint32(len(v)))
			} else {
				data = binary.LittleEndian.AppendUint64(data, uint64(len(v)))
			}
			data = append(data, v...)
		}
		repIndex = binary.LittleEndian.AppendUint64(repIndex, uint64(len(data)))
		fz = appendVarintField(fz, 4, uint64(p.bits))
	case physFixed, physFSL:
		w := p.rowBytes()
		vb := 0
		if p.kind == physFSL && ld.elemValid != nil {
			vb = (p.dim + 7) / 8
		}
		data = make([]byte, 0, ld.n*(w+vb+1))
		for i := 0; i < ld.n; i++ {
			if withDef {
				data = append(data, boolByte(ld.nulls[i]))
			}
			if vb > 0 {
				v := make([]byte, vb)
				for k := 0; k < p.dim; k++ {
					if ld.elemValid[i*p.dim+k] {
						v[k/8] |= 1 << (k % 8)
					}
				}
				data = append(data, v...)
			}
			data = append(data, ld.fixed[i*w:(i+1)*w]...)
		}
		fz = appendVarintField(fz, 3, uint64(8*(w+vb)))
	default:
		return encodedPage{}, unsupported(col, "full-zip for layout %d", p.kind)
	}
	fz = appendVarintField(fz, 5, uint64(ld.n))
	fz = appendVarintField(fz, 6, uint64(ld.n))
	fz = appendBytesField(fz, 7, valueEncoding(p, ld))
	layer := uint64(layerAllValidItem)
	if withDef {
		layer = layerNullableItem
	}
	fz = appendPacked(fz, 8, []uint64{layer})
	bufs := [][]byte{data}
	if repIndex != nil {
		bufs = append(bufs, repIndex)
	}
	return encodedPage{rows: uint64(ld.n), buffers: bufs, layout: appendBytesField(nil, layoutFullZip, fz)}, nil
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}
