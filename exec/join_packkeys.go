package exec

// Packed join keys. A hash join on several integer keys (a triangle's
// c.src = b.dst AND c.dst = a.src, a composite foreign key) would hash
// an encoded byte string per row. When the build side's keys span small
// enough ranges, each key's offset from its minimum is packed into one
// int64 (mixed radix: key i times the product of the later keys' spans),
// and the join uses the single-integer paths — the direct table or the
// int64 map — on both sides. Probe rows whose key lies outside a build
// range cannot match and get a NULL packed key, as NULL keys never match.
// Integer keys compare as int64 values (the byte encoding of rowKey is
// the same int64), so packing changes no answer.

// keyPack is the packing of a joinTable's keys.
type keyPack struct {
	lo   []int64  // per key: the build side's minimum
	span []uint64 // per key: max - min
	mul  []uint64 // per key: the radix weight
}

// packLimit bounds the packed key space (the product of the spans).
const packLimit = 1 << 62

// packBuildKeys packs the build side's key vectors kv (n rows) when every
// key, on both sides (leftTypes), is an integer and the ranges fit; the
// packed vector is NULL where any key is.
func packBuildKeys(kv []*Vec, leftTypes []Type, n int) (*keyPack, *Vec) {
	if len(kv) < 2 {
		return nil, nil
	}
	for i, v := range kv {
		if v.T.Kind() != KInt || leftTypes[i].Kind() != KInt {
			return nil, nil
		}
	}
	p := &keyPack{lo: make([]int64, len(kv)), span: make([]uint64, len(kv)), mul: make([]uint64, len(kv))}
	hi := make([]int64, len(kv))
	any := false
	for r := 0; r < n; r++ {
		if anyNull(kv, r) {
			continue
		}
		for i, v := range kv {
			x := v.I[r]
			if !any || x < p.lo[i] {
				p.lo[i] = x
			}
			if !any || x > hi[i] {
				hi[i] = x
			}
		}
		any = true
	}
	total := uint64(1)
	for i := len(kv) - 1; i >= 0; i-- {
		p.span[i] = uint64(hi[i]) - uint64(p.lo[i])
		w := p.span[i] + 1
		if w == 0 || total > packLimit/w {
			return nil, nil
		}
		p.mul[i] = total
		total *= w
	}
	return p, p.pack(kv, n, nil)
}

// pack packs the rows sel (nil: all n) of the key vectors kv; rows with a
// NULL key or a key outside the build ranges are NULL.
func (p *keyPack) pack(kv []*Vec, n int, sel []int32) *Vec {
	out := NewVec(TInt8, n)
	forEach(n, sel, func(r int) {
		var k uint64
		for i, v := range kv {
			if v.IsNull(r) {
				out.SetNull(r)
				return
			}
			off := uint64(v.I[r]) - uint64(p.lo[i])
			if off > p.span[i] {
				out.SetNull(r)
				return
			}
			k += off * p.mul[i]
		}
		out.I[r] = int64(k)
	})
	return out
}

func anyNull(kv []*Vec, r int) bool {
	for _, v := range kv {
		if v.IsNull(r) {
			return true
		}
	}
	return false
}

// exprTypes lists the types of es.
func exprTypes(es []Expr) []Type {
	ts := make([]Type, len(es))
	for i, e := range es {
		ts[i] = e.Type()
	}
	return ts
}
