package exec

import (
	"github.com/cockroachdb/apd/v3"
)

// Interval is PostgreSQL's interval: months, days and microseconds kept apart.
type Interval struct {
	Months int32
	Days   int32
	Micros int64
}

// Array is a one-dimensional PostgreSQL array value (lower bound 1).
type Array struct {
	Elem  Type
	Items *Vec
	// vector marks int2vector/oidvector: 0-based, space-separated text
	vector bool
}

// Vec is one column of a batch: a typed slice chosen by the type's Kind and
// an optional null mask. Only the slice of the type's Kind is allocated.
// Vecs are immutable once an operator has emitted them.
type Vec struct {
	T     Type
	N     int
	Nulls []bool // nil: no NULLs
	I     []int64
	F     []float64
	B     []bool
	S     []string
	D     []apd.Decimal
	V     []Interval
	A     []*Array
}

// NewVec allocates a vector of n rows of type t.
func NewVec(t Type, n int) *Vec {
	v := &Vec{T: t, N: n}
	switch t.Kind() {
	case KInt:
		v.I = make([]int64, n)
	case KFloat:
		v.F = make([]float64, n)
	case KBool:
		v.B = make([]bool, n)
	case KStr:
		v.S = make([]string, n)
	case KNum:
		v.D = make([]apd.Decimal, n)
	case KInterval:
		v.V = make([]Interval, n)
	case KArray:
		v.A = make([]*Array, n)
	}
	return v
}

// IsNull reports whether row i is NULL.
func (v *Vec) IsNull(i int) bool { return v.Nulls != nil && v.Nulls[i] }

// SetNull marks row i NULL.
func (v *Vec) SetNull(i int) {
	if v.Nulls == nil {
		v.Nulls = make([]bool, v.N)
	}
	v.Nulls[i] = true
}

// Datum returns row i boxed (nil for NULL). For slow paths only.
func (v *Vec) Datum(i int) any {
	if v.IsNull(i) {
		return nil
	}
	switch v.T.Kind() {
	case KInt:
		return v.I[i]
	case KFloat:
		return v.F[i]
	case KBool:
		return v.B[i]
	case KStr:
		return v.S[i]
	case KNum:
		return &v.D[i]
	case KInterval:
		return v.V[i]
	case KArray:
		return v.A[i]
	}
	return nil
}

// SetDatum stores a boxed value (as returned by Datum) at row i.
func (v *Vec) SetDatum(i int, d any) {
	if d == nil {
		v.SetNull(i)
		return
	}
	switch x := d.(type) {
	case int64:
		v.I[i] = x
	case float64:
		v.F[i] = x
	case bool:
		v.B[i] = x
	case string:
		v.S[i] = x
	case *apd.Decimal:
		v.D[i].Set(x)
	case apd.Decimal:
		v.D[i].Set(&x)
	case Interval:
		v.V[i] = x
	case *Array:
		v.A[i] = x
	}
}

// copyRow copies row j of src into row i of v (same Kind).
func (v *Vec) copyRow(i int, src *Vec, j int) {
	if src.IsNull(j) {
		v.SetNull(i)
		return
	}
	switch v.T.Kind() {
	case KInt:
		v.I[i] = src.I[j]
	case KFloat:
		v.F[i] = src.F[j]
	case KBool:
		v.B[i] = src.B[j]
	case KStr:
		v.S[i] = src.S[j]
	case KNum:
		v.D[i].Set(&src.D[j])
	case KInterval:
		v.V[i] = src.V[j]
	case KArray:
		v.A[i] = src.A[j]
	}
}

// Gather returns a new vector holding rows idx of v, in that order. An index
// of -1 yields NULL (outer-join padding).
func (v *Vec) Gather(idx []int32) *Vec {
	out := NewVec(v.T, len(idx))
	hasNeg := false
	for _, j := range idx {
		if j < 0 {
			hasNeg = true
			break
		}
	}
	if v.Nulls != nil || hasNeg {
		out.Nulls = make([]bool, len(idx))
		for i, j := range idx {
			out.Nulls[i] = j < 0 || (v.Nulls != nil && v.Nulls[j])
		}
	}
	switch v.T.Kind() {
	case KInt:
		gatherSlice(out.I, v.I, idx)
	case KFloat:
		gatherSlice(out.F, v.F, idx)
	case KBool:
		gatherSlice(out.B, v.B, idx)
	case KStr:
		gatherSlice(out.S, v.S, idx)
	case KInterval:
		gatherSlice(out.V, v.V, idx)
	case KArray:
		gatherSlice(out.A, v.A, idx)
	case KNum:
		for i, j := range idx {
			if j >= 0 {
				out.D[i].Set(&v.D[j])
			}
		}
	}
	return out
}

func gatherSlice[T any](dst, src []T, idx []int32) {
	for i, j := range idx {
		if j >= 0 {
			dst[i] = src[j]
		}
	}
}

// appendVec appends rows of src (selected by sel, nil = all) to v.
func (v *Vec) appendVec(src *Vec, sel []int32) {
	n := src.N
	if sel != nil {
		n = len(sel)
	}
	base := v.N
	v.grow(base + n)
	if appendTyped(v, src, sel, base) {
		return
	}
	if sel == nil {
		for j := 0; j < src.N; j++ {
			v.copyRow(base+j, src, j)
		}
		return
	}
	for k, j := range sel {
		v.copyRow(base+k, src, int(j))
	}
}

func (v *Vec) grow(n int) {
	if n <= v.N {
		return
	}
	add := n - v.N
	switch v.T.Kind() {
	case KInt:
		v.I = append(v.I, make([]int64, add)...)
	case KFloat:
		v.F = append(v.F, make([]float64, add)...)
	case KBool:
		v.B = append(v.B, make([]bool, add)...)
	case KStr:
		v.S = append(v.S, make([]string, add)...)
	case KNum:
		v.D = append(v.D, make([]apd.Decimal, add)...)
	case KInterval:
		v.V = append(v.V, make([]Interval, add)...)
	case KArray:
		v.A = append(v.A, make([]*Array, add)...)
	}
	if v.Nulls != nil {
		v.Nulls = append(v.Nulls, make([]bool, add)...)
	}
	v.N = n
}

// Batch is a set of equally long columns plus an optional selection vector:
// when Sel is non-nil only the listed rows (ascending) are live.
type Batch struct {
	Cols []*Vec
	N    int
	Sel  []int32
}

// Live returns the number of live rows.
func (b *Batch) Live() int {
	if b.Sel != nil {
		return len(b.Sel)
	}
	return b.N
}

// Compact returns a batch without a selection vector.
func (b *Batch) Compact() *Batch {
	if b.Sel == nil {
		return b
	}
	out := &Batch{N: len(b.Sel), Cols: make([]*Vec, len(b.Cols))}
	for i, c := range b.Cols {
		out.Cols[i] = c.Gather(b.Sel)
	}
	return out
}

// forEach calls f for every live row of a selection over n rows.
func forEach(n int, sel []int32, f func(i int)) {
	if sel == nil {
		for i := 0; i < n; i++ {
			f(i)
		}
		return
	}
	for _, i := range sel {
		f(int(i))
	}
}

// allRows returns the identity selection of n rows.
func allRows(n int) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = int32(i)
	}
	return s
}

// slice returns rows [lo, hi) of v sharing its storage (v is immutable).
func (v *Vec) slice(lo, hi int) *Vec {
	out := &Vec{}
	v.sliceInto(out, lo, hi)
	return out
}

// sliceInto makes out rows [lo, hi) of v, sharing v's storage.
func (v *Vec) sliceInto(out *Vec, lo, hi int) {
	*out = Vec{T: v.T, N: hi - lo}
	if v.Nulls != nil {
		out.Nulls = v.Nulls[lo:hi:hi]
	}
	switch {
	case v.I != nil:
		out.I = v.I[lo:hi:hi]
	case v.F != nil:
		out.F = v.F[lo:hi:hi]
	case v.B != nil:
		out.B = v.B[lo:hi:hi]
	case v.S != nil:
		out.S = v.S[lo:hi:hi]
	case v.D != nil:
		out.D = v.D[lo:hi:hi]
	case v.V != nil:
		out.V = v.V[lo:hi:hi]
	case v.A != nil:
		out.A = v.A[lo:hi:hi]
	}
}

// appendTyped is appendVec's bulk path for fixed-width kinds and strings
// (values copied without a per-row switch, then NULL flags); false when
// the kind needs copyRow.
func appendTyped(v, src *Vec, sel []int32, base int) bool {
	switch v.T.Kind() {
	case KInt:
		appendSlice(v.I[base:], src.I, src.N, sel)
	case KFloat:
		appendSlice(v.F[base:], src.F, src.N, sel)
	case KBool:
		appendSlice(v.B[base:], src.B, src.N, sel)
	case KStr:
		appendSlice(v.S[base:], src.S, src.N, sel)
	default:
		return false
	}
	if src.Nulls != nil {
		if sel == nil {
			for j, null := range src.Nulls[:src.N] {
				if null {
					v.SetNull(base + j)
				}
			}
		} else {
			for k, j := range sel {
				if src.Nulls[j] {
					v.SetNull(base + k)
				}
			}
		}
	}
	return true
}

func appendSlice[T any](dst, src []T, n int, sel []int32) {
	if sel == nil {
		copy(dst, src[:n])
		return
	}
	for k, j := range sel {
		dst[k] = src[j]
	}
}
