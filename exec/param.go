package exec

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/pggraph/pggraph/pgerr"
)

// DecodeParam turns one Bind parameter of type oid into a value Execute
// accepts. Text format (0) stays a string: Execute parses it with the
// type's own input rules, as PostgreSQL's input function would, so every
// type the engine has takes text parameters. Binary format (1) is read
// with the layout of the type's PostgreSQL send function (the recv
// functions') into a one-row *Vec. nil is NULL. A malformed binary value
// is 22P03 naming the parameter, as PostgreSQL reports it.
func DecodeParam(oid uint32, format int16, src []byte, index int) (any, error) {
	if src == nil {
		return nil, nil
	}
	if format == 0 || oid == 0 || oid == OIDUnknown {
		return string(src), nil
	}
	t := Type{OID: oid, Mod: -1}
	if _, ok := typeInfos[oid]; !ok && !IsEnumOID(oid) {
		return nil, unsupported("binary parameters of type %d are not supported", oid)
	}
	v := NewVec(t, 1)
	if err := decodeBinary(v, 0, src); err != nil {
		if _, ok := err.(*Error); ok {
			return nil, err
		}
		return nil, errf(CodeInvalidBinaryRepr, "incorrect binary data format in bind parameter %d", index+1)
	}
	return v, nil
}

// CodeInvalidBinaryRepr is PostgreSQL's invalid_binary_representation.
const CodeInvalidBinaryRepr = pgerr.InvalidBinaryRepresentation

// errBadBinary marks a malformed binary value; DecodeParam reports it
// with the parameter's number.
type badBinary struct{}

func (badBinary) Error() string { return "incorrect binary data format" }

var errBadBinary error = badBinary{}

// decodeBinary reads src, one value in PostgreSQL's binary format, into
// row i of v (the inverse of AppendBinary).
func decodeBinary(v *Vec, i int, src []byte) error {
	t := v.T
	fixed := func(n int) error {
		if len(src) != n {
			return errBadBinary
		}
		return nil
	}
	switch t.OID {
	case OIDBool:
		if err := fixed(1); err != nil {
			return err
		}
		v.B[i] = src[0] != 0
		return nil
	case OIDInt2:
		if err := fixed(2); err != nil {
			return err
		}
		v.I[i] = int64(int16(binary.BigEndian.Uint16(src)))
		return nil
	case OIDInt4:
		if err := fixed(4); err != nil {
			return err
		}
		v.I[i] = int64(int32(binary.BigEndian.Uint32(src)))
		return nil
	case OIDOid, OIDRegclass, OIDRegtype, OIDRegproc, OIDRegprocedure, OIDRegoperator, OIDRegnamespace, OIDXid:
		if err := fixed(4); err != nil {
			return err
		}
		v.I[i] = int64(binary.BigEndian.Uint32(src))
		return nil
	case OIDInt8:
		if err := fixed(8); err != nil {
			return err
		}
		v.I[i] = int64(binary.BigEndian.Uint64(src))
		return nil
	case OIDFloat4:
		if err := fixed(4); err != nil {
			return err
		}
		v.F[i] = float64(math.Float32frombits(binary.BigEndian.Uint32(src)))
		return nil
	case OIDFloat8:
		if err := fixed(8); err != nil {
			return err
		}
		v.F[i] = math.Float64frombits(binary.BigEndian.Uint64(src))
		return nil
	case OIDDate:
		if err := fixed(4); err != nil {
			return err
		}
		d := int32(binary.BigEndian.Uint32(src))
		v.I[i] = int64(d) + pgEpochDays
		if d == math.MaxInt32 || d == math.MinInt32 { // date_recv's DATEVAL_NOEND/NOBEGIN
			v.I[i] = int64(d)
		}
		return nil
	case OIDTimestamp, OIDTimestamptz:
		if err := fixed(8); err != nil {
			return err
		}
		us := int64(binary.BigEndian.Uint64(src))
		v.I[i] = us + pgEpochUS
		if !tsFinite(us) { // timestamp_recv's DT_NOEND/NOBEGIN
			v.I[i] = us
		}
		return nil
	case OIDTime:
		if err := fixed(8); err != nil {
			return err
		}
		us := int64(binary.BigEndian.Uint64(src))
		if us < 0 || us > usPerDay {
			return errf(CodeDatetimeFieldOverflow, "time out of range")
		}
		v.I[i] = us
		return nil
	case OIDInterval:
		if err := fixed(16); err != nil {
			return err
		}
		v.V[i] = Interval{Micros: int64(binary.BigEndian.Uint64(src)), Days: int32(binary.BigEndian.Uint32(src[8:])), Months: int32(binary.BigEndian.Uint32(src[12:]))}
		return nil
	case OIDUUID:
		if err := fixed(16); err != nil {
			return err
		}
		v.S[i] = uuid.UUID(src).String()
		return nil
	case OIDBytea:
		v.S[i] = string(src)
		return nil
	case OIDJSONB:
		// jsonb_recv: a version byte (1), then the text
		if len(src) == 0 || src[0] != 1 {
			return errf(CodeInvalidBinaryRepr, "unsupported jsonb version number %d", firstByte(src))
		}
		return parseText(v, i, string(src[1:]), nil)
	case OIDJSON:
		return parseText(v, i, string(src), nil)
	case OIDChar:
		if len(src) > 1 {
			return errBadBinary
		}
		v.S[i] = string(src)
		return nil
	case OIDNumeric:
		s, err := numericFromBinary(src)
		if err != nil {
			return err
		}
		return parseText(v, i, s, nil)
	case OIDVector:
		// vector_recv: dimensions (int16), an unused int16, float4s
		if len(src) < 4 {
			return errBadBinary
		}
		n := int(binary.BigEndian.Uint16(src))
		if len(src) != 4+4*n {
			return errBadBinary
		}
		items := NewVec(TFloat4, n)
		for k := 0; k < n; k++ {
			items.F[k] = float64(math.Float32frombits(binary.BigEndian.Uint32(src[4+4*k:])))
		}
		v.A[i] = &Array{Elem: TFloat4, Items: items}
		return nil
	}
	if t.IsArray() && t.OID != OIDInt2Vector && t.OID != OIDOidVector {
		a, err := arrayFromBinary(t.Elem(), src)
		if err != nil {
			return err
		}
		v.A[i] = a
		return nil
	}
	if t.Kind() == KStr {
		// the text family: the bytes are the string, in the client's
		// encoding (UTF8 only)
		if !utf8.Valid(src) {
			return errf(CodeCharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\"")
		}
		v.S[i] = string(src)
		return nil
	}
	return unsupported("binary parameters of type %s are not supported", t)
}

func firstByte(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	return int(b[0])
}

// numericFromBinary renders numeric_send's layout (ndigits, weight, sign,
// dscale, base-10000 digits) as numeric text input.
func numericFromBinary(src []byte) (string, error) {
	if len(src) < 8 {
		return "", errBadBinary
	}
	ndigits := int(binary.BigEndian.Uint16(src))
	weight := int(int16(binary.BigEndian.Uint16(src[2:])))
	sign := binary.BigEndian.Uint16(src[4:])
	scale := int(binary.BigEndian.Uint16(src[6:]))
	if len(src) != 8+2*ndigits || scale > 0x3FFF {
		return "", errBadBinary
	}
	switch sign {
	case 0xC000:
		return "NaN", nil
	case 0xD000:
		return "Infinity", nil
	case 0xF000:
		return "-Infinity", nil
	case 0x0000, 0x4000:
	default:
		return "", errf(CodeInvalidBinaryRepr, "invalid sign in external \"numeric\" value")
	}
	// digits as one decimal string with the point after group weight
	var b strings.Builder
	for k := 0; k < ndigits; k++ {
		d := binary.BigEndian.Uint16(src[8+2*k:])
		if d >= 10000 {
			return "", errf(CodeInvalidBinaryRepr, "invalid digit in external \"numeric\" value")
		}
		s := strconv.Itoa(int(d))
		b.WriteString(strings.Repeat("0", 4-len(s)) + s)
	}
	digits := b.String()
	// the value is 0.digits * 10000^(weight+1)
	exp := 4 * (weight + 1) // position of the decimal point in digits
	var intPart, frac string
	switch {
	case exp <= 0:
		intPart, frac = "0", strings.Repeat("0", -exp)+digits
	case exp >= len(digits):
		intPart = digits + strings.Repeat("0", exp-len(digits))
	default:
		intPart, frac = digits[:exp], digits[exp:]
	}
	intPart = strings.TrimLeft(intPart, "0")
	if intPart == "" {
		intPart = "0"
	}
	// dscale is the number of fraction digits shown
	if len(frac) > scale {
		frac = frac[:scale] // the dropped digits are zeros in a well-formed value
	} else {
		frac += strings.Repeat("0", scale-len(frac))
	}
	s := intPart
	if frac != "" {
		s += "." + frac
	}
	if sign == 0x4000 {
		s = "-" + s
	}
	return s, nil
}

// arrayFromBinary reads array_recv's layout: ndim, a has-NULLs flag, the
// element type OID, per dimension its length and lower bound, then each
// element length-prefixed (-1 for NULL). The engine's arrays have one
// dimension with lower bound 1.
func arrayFromBinary(elem Type, src []byte) (*Array, error) {
	if len(src) < 12 {
		return nil, errBadBinary
	}
	ndim := int32(binary.BigEndian.Uint32(src))
	elemOID := binary.BigEndian.Uint32(src[8:])
	if elemOID != elem.OID {
		return nil, errf(CodeDatatypeMismatch, "binary data has array element type %d (%s) instead of expected %d (%s)",
			elemOID, Type{OID: elemOID, Mod: -1}, elem.OID, elem)
	}
	src = src[12:]
	switch {
	case ndim == 0:
		return &Array{Elem: elem, Items: NewVec(elem, 0)}, nil
	case ndim < 0 || ndim > 6:
		return nil, errf(CodeInvalidBinaryRepr, "invalid number of dimensions: %d", ndim)
	case ndim > 1:
		return nil, unsupported("multidimensional arrays are not supported")
	}
	if len(src) < 8 {
		return nil, errBadBinary
	}
	n := int32(binary.BigEndian.Uint32(src))
	lb := int32(binary.BigEndian.Uint32(src[4:]))
	src = src[8:]
	if n < 0 || int(n) > len(src)/4 {
		return nil, errBadBinary
	}
	if lb != 1 && n > 0 {
		return nil, unsupported("arrays with a lower bound other than 1 are not supported")
	}
	items := NewVec(elem, int(n))
	for k := 0; k < int(n); k++ {
		if len(src) < 4 {
			return nil, errBadBinary
		}
		l := int32(binary.BigEndian.Uint32(src))
		src = src[4:]
		if l == -1 {
			items.SetNull(k)
			continue
		}
		if l < 0 || int(l) > len(src) {
			return nil, errBadBinary
		}
		if err := decodeBinary(items, k, src[:l]); err != nil {
			return nil, err
		}
		src = src[l:]
	}
	if len(src) != 0 {
		return nil, errBadBinary
	}
	return &Array{Elem: elem, Items: items}, nil
}
