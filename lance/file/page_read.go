package file

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// maxPageItems bounds what one page may claim, so a corrupt length cannot
// force a huge allocation before the buffers are checked.
const maxPageItems = 1 << 28

// decodeMiniBlockLeaf decodes a non-list mini-block page into leafData.
func decodeMiniBlockLeaf(col string, p *physical, pl *pageLayout, rows uint64, bufs [][]byte) (*leafData, error) {
	return decodeMiniBlockLeafDict(col, p, pl, rows, bufs, nil)
}

// decodeMiniBlockLeafDict is decodeMiniBlockLeaf with the page's
// dictionary already decoded (dict; nil = decode page buffer 2), as
// sparse reads cache it.
func decodeMiniBlockLeafDict(col string, p *physical, pl *pageLayout, rows uint64, bufs [][]byte, dict *leafData) (*leafData, error) {
	if pl.kind != layoutMiniBlock {
		return nil, corrupt(col, "page layout %d with layers %v for a primitive column", pl.kind, pl.layers)
	}
	if pl.rep != nil || pl.repIndexDepth != 0 {
		return nil, corrupt(col, "repetition levels in a non-list column")
	}
	var idx *leafData
	vp, ve := p, pl.value
	if pl.dictionary != nil {
		if dict == nil {
			if len(bufs) < 3 {
				return nil, corrupt(col, "dictionary page without its dictionary buffer")
			}
			var err error
			if dict, err = decodeDictionary(col, p, pl.dictionary, pl.numDictItems, bufs[2]); err != nil {
				return nil, err
			}
		}
		bits := int(pl.value.bits)
		if (pl.value.kind != encFlat && pl.value.kind != encInlineBitpacking) || (bits != 8 && bits != 16 && bits != 32 && bits != 64) {
			return nil, unsupported(col, "dictionary indices encoded as %s", pl.value)
		}
		vp = &physical{kind: physFixed, bits: bits}
		idx = &leafData{}
	}
	if len(bufs) < 2 {
		return nil, corrupt(col, "mini-block page with %d buffers", len(bufs))
	}
	if pl.numItems != rows || rows > maxPageItems {
		return nil, corrupt(col, "mini-block page of %d rows holds %d items", rows, pl.numItems)
	}
	if len(pl.layers) != 1 || (pl.layers[0] != layerAllValidItem && pl.layers[0] != layerNullableItem) {
		return nil, unsupported(col, "rep/def layers %v for a primitive column", pl.layers)
	}
	chunks, err := parseChunkTable(col, bufs[0], pl.chunkWordBytes, len(bufs[1]), rows)
	if err != nil {
		return nil, err
	}
	n := int(rows)
	ld := &leafData{n: n}
	// Preallocate no more than the buffers could plausibly hold, so a
	// corrupt row count cannot force a large allocation.
	prealloc := min(n, 8*len(bufs[1])+flBlock)
	if pl.def != nil {
		ld.nulls = make([]bool, 0, prealloc)
	}
	switch p.kind {
	case physVariable:
		ld.offsets = make([]int64, 1, prealloc+1)
		ld.data = make([]byte, 0, len(bufs[1]))
	case physFixed, physFSL:
		if want := n * p.rowBytes(); want <= 64*len(bufs[1])+4096 {
			ld.fixed = make([]byte, 0, want)
		}
	case physBool:
		ld.boolv = make([]bool, 0, prealloc)
	}
	nbuf := int(pl.numBuffers)
	if nbuf > 16 {
		return nil, corrupt(col, "%d buffers per chunk", nbuf)
	}
	for _, ch := range chunks {
		rc, err := splitChunk(col, bufs[1][ch.off:ch.off+ch.size], false, pl.def != nil, nbuf)
		if err != nil {
			return nil, err
		}
		if pl.def != nil {
			if rc.numLevels != ch.values {
				return nil, corrupt(col, "chunk with %d levels for %d values", rc.numLevels, ch.values)
			}
			defs, err := decodeLevels(col, pl.def, rc.def, ch.values)
			if err != nil {
				return nil, err
			}
			for _, d := range defs {
				ld.nulls = append(ld.nulls, d != 0)
				if d != 0 {
					ld.nullCount++
				}
			}
		}
		target := ld
		if idx != nil {
			target = idx
		}
		if err := target.appendChunkValues(col, vp, ve, rc.buffers, ch.values); err != nil {
			return nil, err
		}
	}
	if ld.nullCount == 0 {
		ld.nulls = nil
	}
	if idx != nil {
		if err := ld.lookupDictionary(col, p, dict, idx, vp.bits/8); err != nil {
			return nil, err
		}
	}
	return ld, nil
}

// decodeDictionary decodes a mini-block page's dictionary (page buffer 2):
// a variable block (u32|u64 offset width, data start, offsets, bytes) or
// flat fixed-width items.
func decodeDictionary(col string, p *physical, e *enc, n uint64, b []byte) (*leafData, error) {
	if n > uint64(len(b))+1 {
		return nil, corrupt(col, "dictionary of %d items in %d bytes", n, len(b))
	}
	d := &leafData{n: int(n)}
	switch {
	case p.kind == physVariable && e.kind == encVariable && e.compression == 0:
		if len(b) < 8 {
			return nil, corrupt(col, "dictionary block of %d bytes", len(b))
		}
		ow := 4
		if binary.LittleEndian.Uint32(b) == 64 {
			ow = 8
		}
		var start uint64
		if ow == 4 {
			start = uint64(binary.LittleEndian.Uint32(b[4:]))
		} else {
			if len(b) < 16 {
				return nil, corrupt(col, "dictionary block of %d bytes", len(b))
			}
			start = binary.LittleEndian.Uint64(b[8:])
		}
		head := uint64(2 * ow)
		if start > uint64(len(b)) || start < head || (start-head)/uint64(ow) < n+1 {
			return nil, corrupt(col, "dictionary data start %d", start)
		}
		data := b[start:]
		get := func(i uint64) uint64 {
			if ow == 4 {
				return uint64(binary.LittleEndian.Uint32(b[head+4*i:]))
			}
			return binary.LittleEndian.Uint64(b[head+8*i:])
		}
		d.offsets = make([]int64, 1, n+1)
		for i := uint64(0); i < n; i++ {
			a, z := get(i), get(i+1)
			if a > z || z > uint64(len(data)) {
				return nil, corrupt(col, "dictionary offsets out of range")
			}
			d.data = append(d.data, data[a:z]...)
			d.offsets = append(d.offsets, int64(len(d.data)))
		}
	case p.kind == physFixed && e.kind == encFlat && int(e.bits) == p.bits && e.compression == 0:
		w := p.bits / 8
		if uint64(len(b)) < n*uint64(w) {
			return nil, corrupt(col, "dictionary of %d items in %d bytes", n, len(b))
		}
		d.fixed = b[:n*uint64(w)]
	default:
		return nil, unsupported(col, "dictionary items encoded as %s", e)
	}
	return d, nil
}

// lookupDictionary replaces decoded indices by dictionary items.
func (ld *leafData) lookupDictionary(col string, p *physical, dict, idx *leafData, iw int) error {
	if len(idx.fixed) != ld.n*iw {
		return corrupt(col, "%d index bytes for %d values", len(idx.fixed), ld.n)
	}
	if p.kind == physVariable {
		ld.offsets = make([]int64, 1, ld.n+1)
	}
	for i := 0; i < ld.n; i++ {
		v := readWord(idx.fixed, iw*8, i)
		null := ld.nulls != nil && ld.nulls[i]
		if !null && v >= uint64(dict.n) {
			return corrupt(col, "dictionary index %d of %d items", v, dict.n)
		}
		switch p.kind {
		case physVariable:
			if !null {
				ld.data = append(ld.data, dict.data[dict.offsets[v]:dict.offsets[v+1]]...)
			}
			ld.offsets = append(ld.offsets, int64(len(ld.data)))
		default:
			w := p.bits / 8
			if null {
				ld.fixed = append(ld.fixed, make([]byte, w)...)
			} else {
				ld.fixed = append(ld.fixed, dict.fixed[int(v)*w:(int(v)+1)*w]...)
			}
		}
	}
	return nil
}

// appendChunkValues decodes one chunk's value buffers and appends k values.
func (ld *leafData) appendChunkValues(col string, p *physical, e *enc, bufs [][]byte, k int) error {
	need := func(n int) error {
		if len(bufs) != n {
			return corrupt(col, "%d value buffers in a chunk, want %d", len(bufs), n)
		}
		return nil
	}
	if e.kind == encGeneral {
		// Only the first buffer is compressed; the rest pass through.
		if len(bufs) == 0 || e.child == nil {
			return corrupt(col, "general compression without buffers or inner encoding")
		}
		first, err := decompressGeneral(col, e.compression, bufs[0])
		if err != nil {
			return err
		}
		return ld.appendChunkValues(col, p, e.child, append([][]byte{first}, bufs[1:]...), k)
	}
	switch {
	case e.compression != 0:
		return unsupported(col, "compressed value buffer (%s)", e)
	case p.kind == physFixed && e.kind == encFlat && int(e.bits) == p.bits:
		if err := need(1); err != nil {
			return err
		}
		w := p.bits / 8
		if len(bufs[0]) < k*w {
			return corrupt(col, "flat buffer of %d bytes for %d values", len(bufs[0]), k)
		}
		ld.fixed = append(ld.fixed, bufs[0][:k*w]...)
	case p.kind == physFixed && e.kind == encInlineBitpacking && int(e.bits) == p.bits && p.bits <= 64:
		if err := need(1); err != nil {
			return err
		}
		v, err := unpackInline(col, p.bits, bufs[0], k)
		if err != nil {
			return err
		}
		ld.fixed = append(ld.fixed, v...)
	case p.kind == physBool && e.kind == encFlat && e.bits == 1:
		if err := need(1); err != nil {
			return err
		}
		if len(bufs[0])*8 < k {
			return corrupt(col, "bool buffer of %d bytes for %d values", len(bufs[0]), k)
		}
		for i := 0; i < k; i++ {
			ld.boolv = append(ld.boolv, bitutil.BitIsSet(bufs[0], i))
		}
	case p.kind == physVariable && e.kind == encVariable && e.child != nil && e.child.kind == encFlat &&
		(e.child.bits == 32 || e.child.bits == 64):
		if err := need(1); err != nil {
			return err
		}
		return ld.appendVariable(col, bufs[0], int(e.child.bits), k, nil)
	case p.kind == physVariable && e.kind == encFsst && e.child != nil && e.child.kind == encVariable &&
		e.child.compression == 0 && e.child.child != nil && e.child.child.kind == encFlat &&
		(e.child.child.bits == 32 || e.child.child.bits == 64):
		if err := need(1); err != nil {
			return err
		}
		t, err := parseFsstTable(col, e.symbols)
		if err != nil {
			return err
		}
		return ld.appendVariable(col, bufs[0], int(e.child.child.bits), k, t)
	case p.kind == physFixed && e.kind == encRle && e.child != nil && e.child.kind == encFlat &&
		int(e.child.bits) == p.bits && e.child2 != nil && e.child2.kind == encFlat && e.child2.bits == 8:
		if err := need(2); err != nil {
			return err
		}
		return ld.appendRle(col, p.bits/8, bufs[0], bufs[1], k)
	case p.kind == physFixed && e.kind == encByteStreamSplit && e.child != nil && e.child.kind == encFlat &&
		int(e.child.bits) == p.bits && e.child.compression == 0:
		// Byte planes: byte j of value i is at j*k + i within the chunk.
		if err := need(1); err != nil {
			return err
		}
		w := p.bits / 8
		if len(bufs[0]) < k*w {
			return corrupt(col, "byte-stream-split buffer of %d bytes for %d values", len(bufs[0]), k)
		}
		base := len(ld.fixed)
		ld.fixed = append(ld.fixed, make([]byte, k*w)...)
		for j := 0; j < w; j++ {
			plane := bufs[0][j*k : (j+1)*k]
			for i, b := range plane {
				ld.fixed[base+i*w+j] = b
			}
		}
	case p.kind == physFixed && e.kind == encConstant && len(e.constant) == p.bits/8:
		for i := 0; i < k; i++ {
			ld.fixed = append(ld.fixed, e.constant...)
		}
	case p.kind == physFSL && e.kind == encFixedSizeList && int(e.bits) == p.dim && e.child != nil &&
		e.child.kind == encFlat && int(e.child.bits) == p.bits && e.child.compression == 0:
		m := k * p.dim
		w := p.bits / 8
		vals := bufs[len(bufs)-1]
		if e.hasValidity {
			if err := need(2); err != nil {
				return err
			}
			if len(bufs[0])*8 < m {
				return corrupt(col, "fixed_size_list validity too short")
			}
			if ld.elemValid == nil {
				ld.elemValid = make([]bool, len(ld.fixed)/w, len(ld.fixed)/w+m)
				for i := range ld.elemValid {
					ld.elemValid[i] = true
				}
			}
			for i := 0; i < m; i++ {
				ld.elemValid = append(ld.elemValid, bitutil.BitIsSet(bufs[0], i))
			}
		} else {
			if err := need(1); err != nil {
				return err
			}
			for i := 0; ld.elemValid != nil && i < m; i++ {
				ld.elemValid = append(ld.elemValid, true)
			}
		}
		if len(vals) < m*w {
			return corrupt(col, "fixed_size_list buffer of %d bytes for %d values", len(vals), m)
		}
		ld.fixed = append(ld.fixed, vals[:m*w]...)
	default:
		return unsupported(col, "value encoding %s for this column type", e)
	}
	return nil
}

// appendRle expands run-length encoded values (T-byte values, u8 runs).
func (ld *leafData) appendRle(col string, w int, vals, runs []byte, k int) error {
	if len(vals)%w != 0 || len(vals)/w != len(runs) {
		return corrupt(col, "rle buffers of %d and %d bytes", len(vals), len(runs))
	}
	got := 0
	for i, r := range runs {
		n := min(int(r), k-got)
		for j := 0; j < n; j++ {
			ld.fixed = append(ld.fixed, vals[i*w:(i+1)*w]...)
		}
		got += n
	}
	if got != k {
		return corrupt(col, "rle runs cover %d of %d values", got, k)
	}
	return nil
}

// appendVariable decodes a mini-block variable buffer (offsets relative to
// the buffer start, then bytes); t, when set, FSST-expands each value.
func (ld *leafData) appendVariable(col string, b []byte, ob, k int, t *fsstTable) error {
	ow := ob / 8
	if len(b) < (k+1)*ow {
		return corrupt(col, "variable buffer of %d bytes for %d offsets", len(b), k+1)
	}
	get := func(i int) uint64 {
		if ow == 4 {
			return uint64(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return binary.LittleEndian.Uint64(b[8*i:])
	}
	prev := get(0)
	if prev > uint64(len(b)) {
		return corrupt(col, "variable offset %d past buffer end %d", prev, len(b))
	}
	for i := 1; i <= k; i++ {
		o := get(i)
		if o < prev || o > uint64(len(b)) {
			return corrupt(col, "variable offsets not increasing within the buffer")
		}
		if t != nil {
			var err error
			if ld.data, err = t.decode(col, ld.data, b[prev:o]); err != nil {
				return err
			}
		} else {
			ld.data = append(ld.data, b[prev:o]...)
		}
		ld.offsets = append(ld.offsets, int64(len(ld.data)))
		prev = o
	}
	return nil
}

// toArrow builds the Arrow array of a decoded page.
func (ld *leafData) toArrow(col string, p *physical, dt arrow.DataType) (arrow.Array, error) {
	n := ld.n
	var validity *memory.Buffer
	if ld.nullCount > 0 {
		vb := make([]byte, bitutil.BytesForBits(int64(n)))
		for i := 0; i < n; i++ {
			if !ld.nulls[i] {
				bitutil.SetBit(vb, i)
			}
		}
		validity = memory.NewBufferBytes(vb)
	}
	var data arrow.ArrayData
	switch p.kind {
	case physFixed:
		if len(ld.fixed) != n*p.bits/8 {
			return nil, corrupt(col, "decoded %d bytes for %d values", len(ld.fixed), n)
		}
		data = array.NewData(dt, n, []*memory.Buffer{validity, memory.NewBufferBytes(ld.fixed)}, nil, ld.nullCount, 0)
	case physBool:
		if len(ld.boolv) != n {
			return nil, corrupt(col, "decoded %d bools for %d values", len(ld.boolv), n)
		}
		vb := make([]byte, bitutil.BytesForBits(int64(n)))
		for i, v := range ld.boolv {
			if v {
				bitutil.SetBit(vb, i)
			}
		}
		data = array.NewData(dt, n, []*memory.Buffer{validity, memory.NewBufferBytes(vb)}, nil, ld.nullCount, 0)
	case physVariable:
		if len(ld.offsets) != n+1 {
			return nil, corrupt(col, "decoded %d offsets for %d values", len(ld.offsets), n)
		}
		var ob []byte
		switch dt.(type) {
		case *arrow.LargeStringType, *arrow.LargeBinaryType:
			ob = make([]byte, 8*(n+1))
			for i, o := range ld.offsets {
				binary.LittleEndian.PutUint64(ob[8*i:], uint64(o))
			}
		default:
			if len(ld.data) > 1<<31-1 {
				return nil, unsupported(col, "a page with more than 2 GiB of string data under 32-bit offsets")
			}
			ob = make([]byte, 4*(n+1))
			for i, o := range ld.offsets {
				binary.LittleEndian.PutUint32(ob[4*i:], uint32(o))
			}
		}
		data = array.NewData(dt, n, []*memory.Buffer{validity, memory.NewBufferBytes(ob), memory.NewBufferBytes(ld.data)}, nil, ld.nullCount, 0)
	case physFSL:
		m := n * p.dim
		if len(ld.fixed) != m*p.bits/8 {
			return nil, corrupt(col, "decoded %d bytes for %d vector elements", len(ld.fixed), m)
		}
		var cv *memory.Buffer
		cnulls := 0
		if ld.elemValid != nil || ld.nullCount > 0 {
			vb := make([]byte, bitutil.BytesForBits(int64(m)))
			for i := 0; i < m; i++ {
				ok := ld.nulls == nil || !ld.nulls[i/p.dim]
				if ld.elemValid != nil {
					ok = ok && ld.elemValid[i]
				}
				if ok {
					bitutil.SetBit(vb, i)
				} else {
					cnulls++
				}
			}
			if cnulls > 0 {
				cv = memory.NewBufferBytes(vb)
			}
		}
		child := array.NewData(p.elem, m, []*memory.Buffer{cv, memory.NewBufferBytes(ld.fixed)}, nil, cnulls, 0)
		defer child.Release()
		data = array.NewData(dt, n, []*memory.Buffer{validity}, []arrow.ArrayData{child}, ld.nullCount, 0)
	default:
		return nil, unsupported(col, "layout %d", p.kind)
	}
	defer data.Release()
	return array.MakeFromData(data), nil
}
