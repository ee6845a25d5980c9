package exec

import (
	"encoding/binary"
	"math"

	"github.com/cockroachdb/apd/v3"
)

// appendKey appends a canonical encoding of row i of v such that two values
// PostgreSQL considers equal (1.0 = 1.00, -0 = 0, NaN = NaN, 'a ' = 'a'
// for char(n), '1 day' = '24 hours', jsonb 1.0 = 1) encode identically. NULL encodes as a
// distinct marker (callers decide whether NULLs match).
func appendKey(buf []byte, v *Vec, i int) []byte {
	if v.IsNull(i) {
		return append(buf, 0)
	}
	buf = append(buf, 1)
	switch v.T.Kind() {
	case KInt:
		return binary.LittleEndian.AppendUint64(buf, uint64(v.I[i]))
	case KFloat:
		f := v.F[i]
		if f == 0 {
			f = 0
		}
		if math.IsNaN(f) {
			f = math.NaN()
		}
		return binary.LittleEndian.AppendUint64(buf, math.Float64bits(f))
	case KBool:
		if v.B[i] {
			return append(buf, 1)
		}
		return append(buf, 0)
	case KStr:
		s := v.S[i]
		if v.T.OID == OIDJSONB {
			return appendJSONBKey(buf, s)
		}
		if v.T.OID == OIDBpchar {
			s = trimRightSpaces(s)
		}
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		return append(buf, s...)
	case KNum:
		var r apd.Decimal
		r.Reduce(&v.D[i])
		s := r.String()
		if r.IsZero() {
			s = "0"
		}
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		return append(buf, s...)
	case KInterval:
		d, us := intervalSpan(v.V[i])
		buf = binary.LittleEndian.AppendUint64(buf, uint64(d))
		return binary.LittleEndian.AppendUint64(buf, uint64(us))
	case KArray:
		a := v.A[i]
		buf = binary.AppendUvarint(buf, uint64(a.Items.N))
		for k := 0; k < a.Items.N; k++ {
			buf = appendKey(buf, a.Items, k)
		}
		return buf
	}
	return buf
}

// rowKey encodes the key columns of row i; hasNull reports a NULL part.
func rowKey(buf []byte, cols []*Vec, i int) ([]byte, bool) {
	hasNull := false
	for _, c := range cols {
		if c.IsNull(i) {
			hasNull = true
		}
		buf = appendKey(buf, c, i)
	}
	return buf, hasNull
}

// AppendKey is the exported canonical key encoding (for TableSources that
// build key indexes).
func AppendKey(buf []byte, v *Vec, i int) []byte { return appendKey(buf, v, i) }
