package exec

import (
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"time"
)

// Text output in PostgreSQL's formats (extra_float_digits 1, bytea_output
// hex). Dates, timestamps and intervals print in the session's DateStyle
// and IntervalStyle (FormatTextStyle, AppendTextStyle); FormatText and
// AppendText use the defaults, ISO and postgres, which is also what the
// server's own text (JSON, catalogs, stored defaults) is written in.

// FormatText renders row i of v as PostgreSQL's text output; ok=false for NULL.
func FormatText(v *Vec, i int, loc *time.Location) (string, bool) {
	return FormatTextStyle(v, i, loc, DateStyle{})
}

// FormatTextStyle is FormatText with the session's DateStyle and
// IntervalStyle.
func FormatTextStyle(v *Vec, i int, loc *time.Location, st DateStyle) (string, bool) {
	if v.IsNull(i) {
		return "", false
	}
	return formatValueStyle(v, i, loc, st), true
}

// AppendText appends FormatText of row i of v (not NULL) to buf; the
// common types are written without an intermediate string.
func AppendText(buf []byte, v *Vec, i int, loc *time.Location) []byte {
	return AppendTextStyle(buf, v, i, loc, DateStyle{})
}

// AppendTextStyle is AppendText with the session's DateStyle and
// IntervalStyle.
func AppendTextStyle(buf []byte, v *Vec, i int, loc *time.Location, st DateStyle) []byte {
	switch v.T.OID {
	case OIDInt2, OIDInt4, OIDInt8:
		return strconv.AppendInt(buf, v.I[i], 10)
	case OIDBool:
		if v.B[i] {
			return append(buf, 't')
		}
		return append(buf, 'f')
	case OIDText, OIDVarchar:
		return append(buf, v.S[i]...)
	}
	return append(buf, formatValueStyle(v, i, loc, st)...)
}

// formatValue is text output in the default styles (ISO, postgres).
func formatValue(v *Vec, i int, loc *time.Location) string {
	return formatValueStyle(v, i, loc, DateStyle{})
}

func formatValueStyle(v *Vec, i int, loc *time.Location, st DateStyle) string {
	t := v.T
	switch t.Kind() {
	case KBool:
		if v.B[i] {
			return "t"
		}
		return "f"
	case KInt:
		switch t.OID {
		case OIDDate:
			return formatDateStyled(v.I[i], st)
		case OIDTimestamp:
			return formatTimestampStyled(v.I[i], nil, st)
		case OIDTimestamptz:
			return formatTimestampStyled(v.I[i], loc, st)
		case OIDTime:
			return formatTimeOfDay(v.I[i])
		case OIDTimeStamp:
			return formatTimestamp(v.I[i], loc)
		case OIDRegtype:
			if v.I[i] == 0 { // InvalidOid, as regtypeout prints it
				return "-"
			}
			if uint32(v.I[i]) == OIDBpchar {
				return "character" // regtype output names bpchar without a length
			}
			if _, ok := typeInfos[uint32(v.I[i])]; ok || IsEnumOID(uint32(v.I[i])) || IsDomainOID(uint32(v.I[i])) {
				return FormatType(uint32(v.I[i]), -1)
			}
		case OIDRegoperator:
			if v.I[i] == 0 {
				return "0"
			}
			if o, ok := operatorByOID(uint32(v.I[i])); ok {
				l := "NONE"
				if o.kind == 'b' {
					l = typeSQLName(o.left)
				}
				return o.name + "(" + l + "," + typeSQLName(o.right) + ")"
			}
		case OIDRegprocedure:
			if v.I[i] == 0 {
				return "-"
			}
			if f, ok := procByOID(uint32(v.I[i])); ok {
				return qualifiedName(f.nsp, f.name, f.nsp == "pg_catalog") + "(" + typeSQLList(f.args) + ")"
			}
		case OIDRegproc:
			if v.I[i] == 0 {
				return "-"
			}
			if name, ok := regName(v.T.OID, uint32(v.I[i])); ok {
				return name
			}
		case OIDRegclass, OIDRegnamespace:
			if v.I[i] == 0 { // InvalidOid, as regclassout/regnamespaceout print it
				return "-"
			}
			if name, ok := regName(v.T.OID, uint32(v.I[i])); ok {
				return name
			}
		}
		return strconv.FormatInt(v.I[i], 10)
	case KFloat:
		if t.OID == OIDFloat4 {
			return formatFloat(v.F[i], 32)
		}
		return formatFloat(v.F[i], 64)
	case KNum:
		return formatNumeric(&v.D[i])
	case KStr:
		if t.OID == OIDBytea {
			return `\x` + hex.EncodeToString([]byte(v.S[i]))
		}
		return v.S[i]
	case KInterval:
		return formatIntervalStyled(v.V[i], st.Interval)
	case KArray:
		if t.OID == OIDRecord {
			if st != (DateStyle{}) {
				return formatRecordStyled(v, i, loc, st)
			}
			return formatRecord(v.A[i])
		}
		if t.OID == OIDVector {
			return formatVector(v.A[i])
		}
		return formatArray(v.A[i], loc, st)
	}
	return ""
}

// formatFloat follows float8out/float4out: shortest round-trip digits,
// exponent form when the decimal exponent is < -4 or >= the type's DIG.
func formatFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0"
		}
		return "0"
	}
	e := strconv.FormatFloat(f, 'e', -1, bits)
	mant, expS, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expS)
	neg := strings.HasPrefix(mant, "-")
	mant = strings.TrimPrefix(mant, "-")
	digits := strings.Replace(mant, ".", "", 1)
	dig := 15
	if bits == 32 {
		dig = 6
	}
	var sb strings.Builder
	if neg {
		sb.WriteByte('-')
	}
	if exp < -4 || exp >= dig {
		sb.WriteByte(digits[0])
		if len(digits) > 1 {
			sb.WriteByte('.')
			sb.WriteString(digits[1:])
		}
		sb.WriteByte('e')
		if exp < 0 {
			sb.WriteByte('-')
			exp = -exp
		} else {
			sb.WriteByte('+')
		}
		if exp < 10 {
			sb.WriteByte('0')
		}
		sb.WriteString(strconv.Itoa(exp))
		return sb.String()
	}
	if exp < 0 {
		sb.WriteString("0.")
		sb.WriteString(strings.Repeat("0", -exp-1))
		sb.WriteString(digits)
		return sb.String()
	}
	if len(digits) <= exp+1 {
		sb.WriteString(digits)
		sb.WriteString(strings.Repeat("0", exp+1-len(digits)))
		return sb.String()
	}
	sb.WriteString(digits[:exp+1])
	sb.WriteByte('.')
	sb.WriteString(digits[exp+1:])
	return sb.String()
}

const usPerDay = 86400_000_000

func civil(days int64) (y int, m time.Month, d int) {
	t := time.Unix(days*86400, 0).UTC()
	return t.Year(), t.Month(), t.Day()
}

func formatYear(sb *strings.Builder, y int) (bc bool) {
	if y <= 0 {
		y = 1 - y
		bc = true
	}
	s := strconv.Itoa(y)
	for i := len(s); i < 4; i++ {
		sb.WriteByte('0')
	}
	sb.WriteString(s)
	return bc
}

func formatDate(days int64) string {
	if !dateFinite(days) {
		return infinityText(days < 0)
	}
	y, m, d := civil(days)
	var sb strings.Builder
	bc := formatYear(&sb, y)
	sb.WriteByte('-')
	write2(&sb, int(m))
	sb.WriteByte('-')
	write2(&sb, d)
	if bc {
		sb.WriteString(" BC")
	}
	return sb.String()
}

func write2(sb *strings.Builder, n int) {
	if n < 10 {
		sb.WriteByte('0')
	}
	sb.WriteString(strconv.Itoa(n))
}

func writeFrac(sb *strings.Builder, us int64) {
	if us == 0 {
		return
	}
	s := strconv.FormatInt(us+1_000_000, 10)[1:]
	sb.WriteByte('.')
	sb.WriteString(strings.TrimRight(s, "0"))
}

func formatTimeOfDay(us int64) string {
	var sb strings.Builder
	writeClock(&sb, us)
	return sb.String()
}

func writeClock(sb *strings.Builder, us int64) {
	secs := us / 1_000_000
	write2(sb, int(secs/3600))
	sb.WriteByte(':')
	write2(sb, int(secs/60%60))
	sb.WriteByte(':')
	write2(sb, int(secs%60))
	writeFrac(sb, us%1_000_000)
}

// formatTimestamp renders µs since the Unix epoch; with loc non-nil as
// timestamptz in that zone (offset suffix as PostgreSQL prints it).
func formatTimestamp(us int64, loc *time.Location) string {
	if !tsFinite(us) {
		return infinityText(us < 0)
	}
	secs := floorDiv(us, 1_000_000)
	frac := us - secs*1_000_000
	var t time.Time
	if loc != nil {
		t = time.Unix(secs, 0).In(loc)
	} else {
		t = time.Unix(secs, 0).UTC()
	}
	var sb strings.Builder
	bc := formatYear(&sb, t.Year())
	sb.WriteByte('-')
	write2(&sb, int(t.Month()))
	sb.WriteByte('-')
	write2(&sb, t.Day())
	sb.WriteByte(' ')
	write2(&sb, t.Hour())
	sb.WriteByte(':')
	write2(&sb, t.Minute())
	sb.WriteByte(':')
	write2(&sb, t.Second())
	writeFrac(&sb, frac)
	if loc != nil {
		_, off := t.Zone()
		writeOffset(&sb, off)
	}
	if bc {
		sb.WriteString(" BC")
	}
	return sb.String()
}

func writeOffset(sb *strings.Builder, off int) {
	if off < 0 {
		sb.WriteByte('-')
		off = -off
	} else {
		sb.WriteByte('+')
	}
	write2(sb, off/3600)
	if m := off / 60 % 60; m != 0 || off%60 != 0 {
		sb.WriteByte(':')
		write2(sb, m)
		if s := off % 60; s != 0 {
			sb.WriteByte(':')
			write2(sb, s)
		}
	}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// formatArray renders the {a,b,NULL} text form with PostgreSQL's quoting.
func formatArray(a *Array, loc *time.Location, st DateStyle) string {
	var sb strings.Builder
	if a.vector {
		for i := 0; i < a.Items.N; i++ {
			if i > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(formatValueStyle(a.Items, i, loc, st))
		}
		return sb.String()
	}
	sb.WriteByte('{')
	for i := 0; i < a.Items.N; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		if a.Items.IsNull(i) {
			sb.WriteString("NULL")
			continue
		}
		s := formatValueStyle(a.Items, i, loc, st)
		if a.Items.T.IsArray() {
			sb.WriteString(s)
			continue
		}
		sb.WriteString(quoteArrayElem(s))
	}
	sb.WriteByte('}')
	return sb.String()
}

func quoteArrayElem(s string) string {
	need := s == "" || strings.EqualFold(s, "NULL")
	if !need {
		for i := 0; i < len(s); i++ {
			switch s[i] {
			case '{', '}', ',', '"', '\\', ' ', '\t', '\n', '\r', '\v', '\f':
				need = true
			}
		}
	}
	if !need {
		return s
	}
	var sb strings.Builder
	sb.WriteByte('"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			sb.WriteByte('\\')
		}
		sb.WriteByte(s[i])
	}
	sb.WriteByte('"')
	return sb.String()
}

// formatVector is pgvector's vector_out: [e1,e2,...] with each element's
// shortest float4 form.
func formatVector(a *Array) string {
	var sb strings.Builder
	sb.WriteByte('[')
	for k := 0; k < a.Items.N; k++ {
		if k > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(formatFloat(a.Items.F[k], 32))
	}
	sb.WriteByte(']')
	return sb.String()
}
