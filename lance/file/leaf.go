package file

import (
	"encoding/binary"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// leafData is one page worth of a column's values, normalized to offset 0
// with null slots zeroed: the form the chunker consumes.
type leafData struct {
	n         int
	nulls     []bool // nil when the page has no nulls
	nullCount int
	fixed     []byte  // physFixed / physFSL: n*rowBytes
	boolv     []bool  // physBool
	offsets   []int64 // physVariable: n+1 offsets into data
	data      []byte  // physVariable
	elemValid []bool  // physFSL: per-element validity when any element is null
	spare     []bool  // fill keeps the nulls buffer here while a page has none
	// parts, when set, stand in for fixed (physFixed pages the writer
	// encodes as mini-block chunks): the value bytes of each input array,
	// read in place rather than copied; partRows[i] is the first row of
	// parts[i]. Null slots are zeroed as values are copied out.
	parts    [][]byte
	partRows []int
}

// leafFromArrows normalizes consecutive arrays of the column's type into one
// page worth of values, reading their buffers directly.
func leafFromArrows(col string, p *physical, arrs []arrow.Array) (*leafData, error) {
	ld := &leafData{}
	if err := ld.fill(col, p, arrs, false); err != nil {
		return nil, err
	}
	return ld, nil
}

// fill makes ld the page made of arrs, reusing ld's buffers (the writer
// keeps one leafData for all its pages, so steady-state writing does not
// allocate per page). With inPlace, fixed-width values that will go to
// mini-block chunks are referenced in arrs (ld.parts) instead of copied;
// arrs must then outlive the page's encoding.
func (ld *leafData) fill(col string, p *physical, arrs []arrow.Array, inPlace bool) error {
	nulls := ld.nulls
	if nulls == nil {
		nulls = ld.spare
	}
	*ld = leafData{nulls: nulls[:0], fixed: ld.fixed[:0], boolv: ld.boolv[:0], offsets: ld.offsets[:0], data: ld.data[:0],
		parts: ld.parts[:0], partRows: ld.partRows[:0]}
	if !inPlace || p.kind != physFixed || p.rowBytes() > fullZipThreshold {
		ld.parts, ld.partRows = nil, nil
	}
	dataBytes := 0
	for _, a := range arrs {
		ld.n += a.Len()
		ld.nullCount += a.NullN()
		if p.kind == physVariable {
			dataBytes += variableBytes(a)
		}
	}
	if ld.nullCount > 0 {
		ld.nulls = slices.Grow(ld.nulls, ld.n)
	} else {
		ld.spare, ld.nulls = ld.nulls, nil
	}
	switch p.kind {
	case physFixed, physFSL:
		if ld.parts == nil {
			ld.fixed = slices.Grow(ld.fixed, ld.n*p.rowBytes())
		}
	case physBool:
		ld.boolv = slices.Grow(ld.boolv, ld.n)
	case physVariable:
		ld.offsets = append(slices.Grow(ld.offsets, ld.n+1), 0)
		ld.data = slices.Grow(ld.data, dataBytes)
	}
	for _, a := range arrs {
		if err := ld.appendArrow(col, p, a); err != nil {
			return err
		}
	}
	return nil
}

// variableBytes is the size of the value bytes of a string/binary array
// (0 for other arrays).
func variableBytes(a arrow.Array) int {
	if a.Len() == 0 {
		return 0
	}
	span := func(o []int64) int { return int(o[len(o)-1] - o[0]) }
	switch v := a.(type) {
	case *array.String:
		o := v.ValueOffsets()
		return int(o[len(o)-1] - o[0])
	case *array.Binary:
		o := v.ValueOffsets()
		return int(o[len(o)-1] - o[0])
	case *array.LargeString:
		return span(v.ValueOffsets())
	case *array.LargeBinary:
		return span(v.ValueOffsets())
	}
	return 0
}

func (ld *leafData) appendArrow(col string, p *physical, arr arrow.Array) error {
	n := arr.Len()
	d := arr.Data()
	base := len(ld.nulls)
	if ld.nulls != nil {
		ld.nulls = append(ld.nulls, make([]bool, n)...)
		if arr.NullN() > 0 {
			nl := ld.nulls[base:]
			if vb := d.Buffers()[0]; vb != nil {
				bm, off := vb.Bytes(), d.Offset()
				for i := range nl {
					nl[i] = bitutil.BitIsNotSet(bm, off+i)
				}
			} else {
				for i := range nl {
					nl[i] = arr.IsNull(i)
				}
			}
		}
	}
	isNull := func(i int) bool { return ld.nulls != nil && ld.nulls[base+i] }
	switch p.kind {
	case physFixed:
		w := p.bits / 8
		vals := d.Buffers()[1].Bytes()[d.Offset()*w : (d.Offset()+n)*w]
		if ld.parts != nil {
			row := 0
			if k := len(ld.parts); k > 0 {
				row = ld.partRows[k-1] + len(ld.parts[k-1])/w
			}
			ld.parts = append(ld.parts, vals)
			ld.partRows = append(ld.partRows, row)
			return nil
		}
		start := len(ld.fixed)
		ld.fixed = append(ld.fixed, vals...)
		if arr.NullN() > 0 {
			for i := 0; i < n; i++ {
				if isNull(i) {
					clear(ld.fixed[start+i*w : start+(i+1)*w])
				}
			}
		}
	case physBool:
		bits := d.Buffers()[1].Bytes()
		for i := 0; i < n; i++ {
			ld.boolv = append(ld.boolv, !isNull(i) && bitutil.BitIsSet(bits, d.Offset()+i))
		}
	case physVariable:
		var offs func(i int) int64
		switch arr.(type) {
		case *array.String, *array.Binary:
			o := arrow.Int32Traits.CastFromBytes(d.Buffers()[1].Bytes())
			offs = func(i int) int64 { return int64(o[d.Offset()+i]) }
		case *array.LargeString, *array.LargeBinary:
			o := arrow.Int64Traits.CastFromBytes(d.Buffers()[1].Bytes())
			offs = func(i int) int64 { return o[d.Offset()+i] }
		default:
			return mismatch(col, "array %T for a variable-width column", arr)
		}
		var data []byte
		if b := d.Buffers()[2]; b != nil {
			data = b.Bytes()
		}
		if arr.NullN() == 0 || nullsEmpty(ld.nulls[base:], offs) {
			// One copy of the whole value range, then shifted offsets
			// (null slots hold no bytes, so they stay empty).
			lo, hi := offs(0), offs(n)
			shift := int64(len(ld.data)) - lo
			ld.data = append(ld.data, data[lo:hi]...)
			for i := 1; i <= n; i++ {
				ld.offsets = append(ld.offsets, offs(i)+shift)
			}
			return nil
		}
		for i := 0; i < n; i++ {
			if !isNull(i) {
				ld.data = append(ld.data, data[offs(i):offs(i+1)]...)
			}
			ld.offsets = append(ld.offsets, int64(len(ld.data)))
		}
	case physFSL:
		fsl, ok := arr.(*array.FixedSizeList)
		if !ok {
			return mismatch(col, "array %T for a fixed_size_list column", arr)
		}
		child := fsl.ListValues()
		w := p.bits / 8
		cd := child.Data()
		cstart := cd.Offset() + d.Offset()*p.dim
		start := len(ld.fixed)
		ld.fixed = append(ld.fixed, cd.Buffers()[1].Bytes()[cstart*w:(cstart+n*p.dim)*w]...)
		rowBytes := p.dim * w
		for i := 0; i < n; i++ {
			if isNull(i) {
				clear(ld.fixed[start+i*rowBytes : start+(i+1)*rowBytes])
			}
		}
		// Element validity inside non-null rows travels in its own buffer.
		cbase := d.Offset() * p.dim
		anyNull := false
		for i := 0; i < n && !anyNull && child.NullN() > 0; i++ {
			if isNull(i) {
				continue
			}
			for k := 0; k < p.dim; k++ {
				if child.IsNull(cbase + i*p.dim + k) {
					anyNull = true
					break
				}
			}
		}
		if anyNull && ld.elemValid == nil {
			// Earlier arrays had none: they were all valid.
			ld.elemValid = make([]bool, start/w, cap(ld.fixed)/w)
			for i := range ld.elemValid {
				ld.elemValid[i] = true
			}
		}
		if ld.elemValid != nil {
			for i := 0; i < n*p.dim; i++ {
				ld.elemValid = append(ld.elemValid, child.IsValid(cbase+i) && !isNull(i/p.dim))
			}
		}
	default:
		return unsupported(col, "leaf layout %d", p.kind)
	}
	return nil
}

// nullsEmpty reports whether every null slot of an array spans no bytes
// (offs gives the array's offsets; nulls its null flags).
func nullsEmpty(nulls []bool, offs func(int) int64) bool {
	for i, null := range nulls {
		if null && offs(i) != offs(i+1) {
			return false
		}
	}
	return true
}

// rowBytes is the flat size of one value of a fixed layout.
func (p *physical) rowBytes() int {
	switch p.kind {
	case physFixed:
		return p.bits / 8
	case physFSL:
		return p.dim * p.bits / 8
	}
	return 0
}

// valueBuffers returns the mini-block value buffers of rows [s, s+k).
func (ld *leafData) valueBuffers(p *physical, s, k int) [][]byte {
	switch p.kind {
	case physFixed:
		w := p.rowBytes()
		return [][]byte{ld.fixed[s*w : (s+k)*w]}
	case physBool:
		b := make([]byte, (k+7)/8)
		for i := 0; i < k; i++ {
			if ld.boolv[s+i] {
				bitutil.SetBit(b, i)
			}
		}
		return [][]byte{b}
	case physVariable:
		ow := p.bits / 8
		head := int64((k + 1) * ow)
		base := ld.offsets[s]
		body := ld.data[base:ld.offsets[s+k]]
		buf := make([]byte, int(head)+len(body), int(head)+len(body)+ow)
		for i := 0; i <= k; i++ {
			o := uint64(head + ld.offsets[s+i] - base)
			if ow == 4 {
				binary.LittleEndian.PutUint32(buf[i*4:], uint32(o))
			} else {
				binary.LittleEndian.PutUint64(buf[i*8:], o)
			}
		}
		copy(buf[head:], body)
		for len(buf)%ow != 0 {
			buf = append(buf, 0x48)
		}
		return [][]byte{buf}
	case physFSL:
		w := p.rowBytes()
		vals := ld.fixed[s*w : (s+k)*w]
		if ld.elemValid == nil {
			return [][]byte{vals}
		}
		m := k * p.dim
		v := make([]byte, (m+7)/8)
		for i := 0; i < m; i++ {
			if ld.elemValid[s*p.dim+i] {
				bitutil.SetBit(v, i)
			}
		}
		return [][]byte{v, vals}
	}
	return nil
}

// sizeOf estimates the encoded bytes of rows [s, s+k) (values only).
func (ld *leafData) sizeOf(p *physical, s, k int) int {
	switch p.kind {
	case physBool:
		return (k + 7) / 8
	case physVariable:
		return (k+1)*p.bits/8 + int(ld.offsets[s+k]-ld.offsets[s])
	}
	return k * p.rowBytes()
}
