package exec

import (
	"math"
	"time"

	"github.com/cockroachdb/apd/v3"
)

// The value conversions of castRowsBase (cast.go), one function per
// source type family. Each reports whether it converted: a pair it does
// not know goes on to the conversions every type shares (castRowsShared:
// to text, from text, between arrays, through the text form).

// castBySource converts by the source type's family.
func castBySource(v, out *Vec, live []int32, loc *time.Location) (bool, error) {
	from := v.T
	switch {
	case from.OID == OIDChar:
		return castFromChar(v, out, live)
	case from.OID == OIDBool:
		return castFromBool(v, out, live)
	case from.OID == OIDNumeric:
		return castFromNumeric(v, out, live)
	case from.Kind() == KFloat:
		return castFromFloat(v, out, live)
	case from.isTemporal() || from.OID == OIDInterval:
		return castFromTemporal(v, out, live, loc)
	case from.Kind() == KInt:
		return castFromInt(v, out, live)
	}
	return false, nil
}

// castFromChar: "char" to integer by the character's code (a signed
// byte; empty is 0).
func castFromChar(v, out *Vec, live []int32) (bool, error) {
	if out.T.OID != OIDInt4 {
		return false, nil
	}
	for _, i := range live {
		out.I[i] = 0
		if s := v.S[i]; s != "" {
			out.I[i] = int64(int8(s[0]))
		}
	}
	return true, nil
}

func castFromBool(v, out *Vec, live []int32) (bool, error) {
	if out.T.OID != OIDInt4 {
		return false, nil
	}
	for _, i := range live {
		if v.B[i] {
			out.I[i] = 1
		}
	}
	return true, nil
}

// castFromInt converts the integers and the OID types.
func castFromInt(v, out *Vec, live []int32) (bool, error) {
	from, to := v.T, out.T
	switch {
	case from.OID == OIDInt4 && to.OID == OIDChar:
		// the character with that code (a signed byte; 0 is empty)
		for _, i := range live {
			x := v.I[i]
			if x < -128 || x > 127 {
				return true, errf(CodeNumericOutOfRange, "\"char\" out of range")
			}
			out.S[i] = ""
			if x != 0 {
				out.S[i] = string([]byte{byte(int8(x))})
			}
		}
	case to.Kind() == KInt && !to.isTemporal():
		lo, hi, msg := intBounds(to)
		if isOIDType(to) {
			lo, hi, msg = math.MinInt32, math.MaxUint32, "OID out of range"
		}
		for _, i := range live {
			x := v.I[i]
			if x < lo || x > hi {
				return true, errf(CodeNumericOutOfRange, "%s", msg)
			}
			if x < 0 && hi == math.MaxUint32 {
				x = int64(uint32(int32(x)))
			}
			out.I[i] = x
		}
	case to.Kind() == KFloat:
		for _, i := range live {
			f := float64(v.I[i])
			if to.OID == OIDFloat4 {
				f = float64(float32(f))
			}
			out.F[i] = f
		}
	case to.OID == OIDNumeric:
		for _, i := range live {
			out.D[i].SetInt64(v.I[i])
			if err := applyNumericTypmod(&out.D[i], to.Mod); err != nil {
				return true, err
			}
		}
	case from.isInt() && to.OID == OIDBool:
		for _, i := range live {
			out.B[i] = v.I[i] != 0
		}
	default:
		return false, nil
	}
	return true, nil
}

func castFromFloat(v, out *Vec, live []int32) (bool, error) {
	from, to := v.T, out.T
	switch {
	case to.Kind() == KFloat:
		for _, i := range live {
			f := v.F[i]
			if to.OID == OIDFloat4 {
				f32 := float32(f)
				if math.IsInf(float64(f32), 0) && !math.IsInf(f, 0) {
					return true, errf(CodeNumericOutOfRange, "value out of range: overflow")
				}
				f = float64(f32)
			}
			out.F[i] = f
		}
	case to.isInt():
		lo, hi, msg := intBounds(to)
		for _, i := range live {
			f := math.RoundToEven(v.F[i])
			if math.IsNaN(f) || f < float64(lo) || f >= -float64(lo) || f > float64(hi) {
				return true, errf(CodeNumericOutOfRange, "%s", msg)
			}
			out.I[i] = int64(f)
		}
	case to.OID == OIDNumeric:
		for _, i := range live {
			f := v.F[i]
			var s string
			if from.OID == OIDFloat4 {
				s = formatFloatDigits(f, 32)
			} else {
				s = formatFloatDigits(f, 64)
			}
			d, err := parseNumeric(s)
			if err != nil {
				return true, err
			}
			if err := applyNumericTypmod(&d, to.Mod); err != nil {
				return true, err
			}
			out.D[i] = d
		}
	default:
		return false, nil
	}
	return true, nil
}

func castFromNumeric(v, out *Vec, live []int32) (bool, error) {
	to := out.T
	switch {
	case to.isInt():
		lo, hi, msg := intBounds(to)
		for _, i := range live {
			d := &v.D[i]
			if d.Form != apd.Finite {
				return true, unsupportedNumericSpecial(d, to)
			}
			var r apd.Decimal
			if _, err := numCtx.Quantize(&r, d, 0); err != nil {
				return true, errf(CodeNumericOutOfRange, "%s", msg)
			}
			n, err := r.Int64()
			if err != nil || n < lo || n > hi {
				return true, errf(CodeNumericOutOfRange, "%s", msg)
			}
			out.I[i] = n
		}
	case to.Kind() == KFloat:
		for _, i := range live {
			if err := numericToFloat(v, out, int(i)); err != nil {
				return true, err
			}
		}
	case to.OID == OIDNumeric:
		for _, i := range live {
			out.D[i].Set(&v.D[i])
			if err := applyNumericTypmod(&out.D[i], to.Mod); err != nil {
				return true, err
			}
		}
	default:
		return false, nil
	}
	return true, nil
}

// numericToFloat converts row i as PostgreSQL does, through float8in:
// out of range both ways.
func numericToFloat(v, out *Vec, i int) error {
	f, err := v.D[i].Float64()
	if v.D[i].Form == apd.NaN {
		f, err = math.NaN(), nil
	}
	if err != nil && !math.IsInf(f, 0) {
		return errf(CodeNumericOutOfRange, "value out of range: overflow")
	}
	if v.D[i].Form == apd.Finite && (math.IsInf(f, 0) || f == 0 && !v.D[i].IsZero()) {
		return errf(CodeNumericOutOfRange, "\"%s\" is out of range for type double precision", formatNumeric(&v.D[i]))
	}
	if out.T.OID == OIDFloat4 {
		f32 := float32(f)
		if math.IsInf(float64(f32), 0) && !math.IsInf(f, 0) {
			return errf(CodeNumericOutOfRange, "\"%s\" is out of range for type real", formatNumeric(&v.D[i]))
		}
		f = float64(f32)
	}
	out.F[i] = f
	return nil
}

// castFromTemporal converts between date, timestamp(tz), time and
// interval.
func castFromTemporal(v, out *Vec, live []int32, loc *time.Location) (bool, error) {
	from, to := v.T, out.T
	switch {
	case from.OID == OIDDate && (to.OID == OIDTimestamp || to.OID == OIDTimestamptz):
		for _, i := range live {
			us, finite := dateToTimestamp(v.I[i])
			if finite && to.OID == OIDTimestamptz {
				us = localToUTC(us, loc)
			}
			out.I[i] = us
		}
	case from.OID == OIDTimestamp && to.OID == OIDTimestamptz:
		for _, i := range live {
			out.I[i] = v.I[i]
			if tsFinite(v.I[i]) {
				out.I[i] = localToUTC(v.I[i], loc)
			}
		}
	case from.OID == OIDTime && to.OID == OIDInterval:
		for _, i := range live {
			out.V[i] = Interval{Micros: v.I[i]}
		}
	case from.OID == OIDInterval && to.OID == OIDTime:
		// the time-of-day part, as interval_time: modulo one day
		for _, i := range live {
			us := v.V[i].Micros % usPerDay
			if us < 0 {
				us += usPerDay
			}
			out.I[i] = us
		}
	case from.OID == OIDTimestamptz && (to.OID == OIDTimestamp || to.OID == OIDDate || to.OID == OIDTime):
		for _, i := range live {
			if !tsFinite(v.I[i]) {
				if to.OID == OIDTime { // timestamp_time: NULL
					out.SetNull(int(i))
					continue
				}
				out.I[i], _ = timestampToDate(v.I[i])
				if to.OID != OIDDate {
					out.I[i] = v.I[i]
				}
				continue
			}
			w := utcToLocal(v.I[i], loc)
			switch to.OID {
			case OIDDate:
				w = floorDiv(w, usPerDay)
			case OIDTime:
				w -= floorDiv(w, usPerDay) * usPerDay
			}
			out.I[i] = w
		}
	case from.OID == OIDTimestamp && (to.OID == OIDDate || to.OID == OIDTime):
		for _, i := range live {
			w := v.I[i]
			if !tsFinite(w) {
				if to.OID == OIDTime { // timestamp_time: NULL
					out.SetNull(int(i))
					continue
				}
				out.I[i], _ = timestampToDate(w)
				continue
			}
			if to.OID == OIDDate {
				w = floorDiv(w, usPerDay)
			} else {
				w -= floorDiv(w, usPerDay) * usPerDay
			}
			out.I[i] = w
		}
	default:
		return false, nil
	}
	return true, nil
}
