package file

import (
	"encoding/binary"

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
}

// leafFromArrow normalizes an Arrow array of the column's type.
func leafFromArrow(col string, p *physical, arr arrow.Array) (*leafData, error) {
	n := arr.Len()
	ld := &leafData{n: n, nullCount: arr.NullN()}
	if ld.nullCount > 0 {
		ld.nulls = make([]bool, n)
		for i := 0; i < n; i++ {
			ld.nulls[i] = arr.IsNull(i)
		}
	}
	d := arr.Data()
	switch p.kind {
	case physFixed:
		w := p.bits / 8
		src := d.Buffers()[1].Bytes()[d.Offset()*w : (d.Offset()+n)*w]
		ld.fixed = append([]byte(nil), src...)
		for i, null := range ld.nulls {
			if null {
				clear(ld.fixed[i*w : (i+1)*w])
			}
		}
	case physBool:
		ld.boolv = make([]bool, n)
		bits := d.Buffers()[1].Bytes()
		for i := 0; i < n; i++ {
			ld.boolv[i] = (ld.nulls == nil || !ld.nulls[i]) && bitutil.BitIsSet(bits, d.Offset()+i)
		}
	case physVariable:
		ld.offsets = make([]int64, n+1)
		var get func(i int) []byte
		switch a := arr.(type) {
		case *array.String:
			get = func(i int) []byte { return []byte(a.Value(i)) }
		case *array.LargeString:
			get = func(i int) []byte { return []byte(a.Value(i)) }
		case *array.Binary:
			get = a.Value
		case *array.LargeBinary:
			get = a.Value
		default:
			return nil, mismatch(col, "array %T for a variable-width column", arr)
		}
		for i := 0; i < n; i++ {
			if ld.nulls == nil || !ld.nulls[i] {
				ld.data = append(ld.data, get(i)...)
			}
			ld.offsets[i+1] = int64(len(ld.data))
		}
	case physFSL:
		fsl, ok := arr.(*array.FixedSizeList)
		if !ok {
			return nil, mismatch(col, "array %T for a fixed_size_list column", arr)
		}
		child := fsl.ListValues()
		w := p.bits / 8
		cd := child.Data()
		start := cd.Offset() + d.Offset()*p.dim
		ld.fixed = append([]byte(nil), cd.Buffers()[1].Bytes()[start*w:(start+n*p.dim)*w]...)
		rowBytes := p.dim * w
		for i, null := range ld.nulls {
			if null {
				clear(ld.fixed[i*rowBytes : (i+1)*rowBytes])
			}
		}
		// Element validity inside non-null rows travels in its own buffer.
		base := d.Offset() * p.dim
		anyNull := false
		for i := 0; i < n && !anyNull; i++ {
			if ld.nulls != nil && ld.nulls[i] {
				continue
			}
			for k := 0; k < p.dim; k++ {
				if child.IsNull(base + i*p.dim + k) {
					anyNull = true
					break
				}
			}
		}
		if anyNull {
			ld.elemValid = make([]bool, n*p.dim)
			for i := 0; i < n*p.dim; i++ {
				ld.elemValid[i] = child.IsValid(base+i) && (ld.nulls == nil || !ld.nulls[i/p.dim])
			}
		}
	default:
		return nil, unsupported(col, "leaf layout %d", p.kind)
	}
	return ld, nil
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
