package exec

import (
	"encoding/binary"
	"math"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/google/uuid"
)

// PostgreSQL's binary epoch (2000-01-01) relative to the Unix epoch.
const (
	pgEpochDays = 10957
	pgEpochUS   = pgEpochDays * usPerDay
)

// AppendBinary appends row i of v in PostgreSQL's binary format (the
// payload of a DataRow field, without the length word). NULL has no
// binary form: callers send length -1.
func AppendBinary(buf []byte, v *Vec, i int) ([]byte, error) {
	t := v.T
	switch t.OID {
	case OIDBool:
		if v.B[i] {
			return append(buf, 1), nil
		}
		return append(buf, 0), nil
	case OIDInt2:
		return binary.BigEndian.AppendUint16(buf, uint16(v.I[i])), nil
	case OIDInt4, OIDCardinalNumber:
		return binary.BigEndian.AppendUint32(buf, uint32(v.I[i])), nil
	case OIDOid, OIDRegclass, OIDRegtype, OIDRegproc, OIDRegprocedure, OIDRegoperator, OIDRegnamespace, OIDXid:
		return binary.BigEndian.AppendUint32(buf, uint32(v.I[i])), nil
	case OIDInt8:
		return binary.BigEndian.AppendUint64(buf, uint64(v.I[i])), nil
	case OIDFloat4:
		return binary.BigEndian.AppendUint32(buf, math.Float32bits(float32(v.F[i]))), nil
	case OIDFloat8:
		return binary.BigEndian.AppendUint64(buf, math.Float64bits(v.F[i])), nil
	case OIDDate:
		if !dateFinite(v.I[i]) { // DATEVAL_NOBEGIN/NOEND are the same int32s
			return binary.BigEndian.AppendUint32(buf, uint32(int32(v.I[i]))), nil
		}
		return binary.BigEndian.AppendUint32(buf, uint32(int32(v.I[i]-pgEpochDays))), nil
	case OIDTimestamp, OIDTimestamptz, OIDTimeStamp:
		if !tsFinite(v.I[i]) { // DT_NOBEGIN/NOEND are the same int64s
			return binary.BigEndian.AppendUint64(buf, uint64(v.I[i])), nil
		}
		return binary.BigEndian.AppendUint64(buf, uint64(v.I[i]-pgEpochUS)), nil
	case OIDTime:
		return binary.BigEndian.AppendUint64(buf, uint64(v.I[i])), nil
	case OIDInterval:
		iv := v.V[i]
		buf = binary.BigEndian.AppendUint64(buf, uint64(iv.Micros))
		buf = binary.BigEndian.AppendUint32(buf, uint32(iv.Days))
		return binary.BigEndian.AppendUint32(buf, uint32(iv.Months)), nil
	case OIDUUID:
		u, err := uuid.Parse(v.S[i])
		if err != nil {
			return nil, err
		}
		return append(buf, u[:]...), nil
	case OIDJSONB:
		return append(append(buf, 1), v.S[i]...), nil
	case OIDChar:
		// charsend: exactly one byte, 0 for the empty "char"
		if v.S[i] == "" {
			return append(buf, 0), nil
		}
		return append(buf, v.S[i][0]), nil
	case OIDNumeric:
		return appendNumericBinary(buf, &v.D[i]), nil
	}
	if t.IsArray() {
		return appendArrayBinary(buf, v.A[i])
	}
	if t.OID == OIDRecord {
		return appendRecordBinary(buf, t, v.A[i])
	}
	if t.OID == OIDVector {
		// vector_send: dimensions (int16), an unused int16, float4s
		a := v.A[i]
		buf = binary.BigEndian.AppendUint16(buf, uint16(a.Items.N))
		buf = binary.BigEndian.AppendUint16(buf, 0)
		for k := 0; k < a.Items.N; k++ {
			buf = binary.BigEndian.AppendUint32(buf, math.Float32bits(float32(a.Items.F[k])))
		}
		return buf, nil
	}
	if t.Kind() == KStr {
		return append(buf, v.S[i]...), nil
	}
	return nil, unsupported("binary output of type %s is not supported", t)
}

// appendNumericBinary writes numeric_send's layout: ndigits, weight, sign,
// dscale, then base-10000 digits.
func appendNumericBinary(buf []byte, d *apd.Decimal) []byte {
	const (
		signPos  = 0x0000
		signNeg  = 0x4000
		signNaN  = 0xC000
		signPInf = 0xD000
		signNInf = 0xF000
	)
	head := func(ndigits, weight int, sign uint16, dscale int) []byte {
		b := binary.BigEndian.AppendUint16(buf, uint16(ndigits))
		b = binary.BigEndian.AppendUint16(b, uint16(int16(weight)))
		b = binary.BigEndian.AppendUint16(b, sign)
		return binary.BigEndian.AppendUint16(b, uint16(dscale))
	}
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return head(0, 0, signNaN, 0)
	case apd.Infinite:
		// PostgreSQL 15's numeric_send writes 32 as the display scale
		// of the infinities (what its header bits read as)
		if d.Negative {
			return head(0, 0, signNInf, 32)
		}
		return head(0, 0, signPInf, 32)
	}
	scale := int(dscale(d))
	digits := d.Coeff.String()
	if d.Exponent > 0 {
		digits += strings.Repeat("0", int(d.Exponent))
	}
	// split into integer and fraction parts in base 10
	intPart, frac := digits, ""
	if scale > 0 {
		if len(digits) <= scale {
			digits = strings.Repeat("0", scale-len(digits)+1) + digits
		}
		intPart, frac = digits[:len(digits)-scale], digits[len(digits)-scale:]
	}
	intPart = strings.TrimLeft(intPart, "0")
	// pad to base-10000 groups
	if r := len(intPart) % 4; r != 0 {
		intPart = strings.Repeat("0", 4-r) + intPart
	}
	if r := len(frac) % 4; r != 0 {
		frac += strings.Repeat("0", 4-r)
	}
	var groups []uint16
	for k := 0; k < len(intPart); k += 4 {
		groups = append(groups, uint16(atoi4(intPart[k:k+4])))
	}
	weight := len(groups) - 1
	for k := 0; k < len(frac); k += 4 {
		groups = append(groups, uint16(atoi4(frac[k:k+4])))
	}
	// strip leading and trailing zero groups
	for len(groups) > 0 && groups[0] == 0 {
		groups = groups[1:]
		weight--
	}
	for len(groups) > 0 && groups[len(groups)-1] == 0 {
		groups = groups[:len(groups)-1]
	}
	sign := uint16(signPos)
	if d.Negative && len(groups) > 0 {
		sign = signNeg
	}
	if len(groups) == 0 {
		weight = 0
	}
	buf = head(len(groups), weight, sign, scale)
	for _, g := range groups {
		buf = binary.BigEndian.AppendUint16(buf, g)
	}
	return buf
}

func atoi4(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// appendArrayBinary writes array_send's layout for one dimension.
func appendArrayBinary(buf []byte, a *Array) ([]byte, error) {
	hasNull := uint32(0)
	for i := 0; i < a.Items.N; i++ {
		if a.Items.IsNull(i) {
			hasNull = 1
		}
	}
	ndim := uint32(1)
	if a.Items.N == 0 {
		ndim = 0
	}
	buf = binary.BigEndian.AppendUint32(buf, ndim)
	buf = binary.BigEndian.AppendUint32(buf, hasNull)
	buf = binary.BigEndian.AppendUint32(buf, a.Elem.OID)
	if ndim == 0 {
		return buf, nil
	}
	lb := uint32(1)
	if a.vector {
		lb = 0
	}
	buf = binary.BigEndian.AppendUint32(buf, uint32(a.Items.N))
	buf = binary.BigEndian.AppendUint32(buf, lb)
	for i := 0; i < a.Items.N; i++ {
		if a.Items.IsNull(i) {
			buf = binary.BigEndian.AppendUint32(buf, 0xFFFFFFFF)
			continue
		}
		at := len(buf)
		buf = append(buf, 0, 0, 0, 0)
		var err error
		if buf, err = AppendBinary(buf, a.Items, i); err != nil {
			return nil, err
		}
		binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
	}
	return buf, nil
}

// Binary renders a result value in binary format; ok=false for NULL.
func (r *Result) Binary(row, col int) ([]byte, bool, error) {
	b, i := r.locate(row)
	v := b.Cols[col]
	if v.IsNull(i) {
		return nil, false, nil
	}
	out, err := AppendBinary(nil, v, i)
	return out, true, err
}

// Value returns a result value as a Go value for drivers that encode by
// OID (pgx/pgtype): int64, float64, bool, string (text family, json(b),
// uuid), []byte (bytea); other types as their PostgreSQL text form. nil is
// NULL.
func (r *Result) Value(row, col int) any {
	b, i := r.locate(row)
	v := b.Cols[col]
	if v.IsNull(i) {
		return nil
	}
	switch v.T.OID {
	case OIDInt2, OIDInt4, OIDInt8, OIDOid:
		return v.I[i]
	case OIDFloat4, OIDFloat8:
		return v.F[i]
	case OIDBool:
		return v.B[i]
	case OIDBytea:
		return []byte(v.S[i])
	}
	s, _ := FormatText(v, i, r.loc)
	return s
}

// appendRecordBinary writes record_send's layout: the field count, then
// per field its type OID and length-prefixed binary value (-1 for NULL).
func appendRecordBinary(buf []byte, t Type, a *Array) ([]byte, error) {
	fields, ok := RecordFields(t)
	if !ok || len(fields) != a.Items.N {
		return nil, unsupported("binary output of an anonymous record is not supported")
	}
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(fields)))
	for i, f := range fields {
		buf = binary.BigEndian.AppendUint32(buf, f.Type.OID)
		if a.Items.IsNull(i) {
			buf = binary.BigEndian.AppendUint32(buf, 0xFFFFFFFF)
			continue
		}
		one := NewVec(f.Type, 1)
		if err := parseText(one, 0, a.Items.S[i], nil); err != nil {
			return nil, err
		}
		at := len(buf)
		buf = append(buf, 0, 0, 0, 0)
		var err error
		if buf, err = AppendBinary(buf, one, 0); err != nil {
			return nil, err
		}
		binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
	}
	return buf, nil
}
