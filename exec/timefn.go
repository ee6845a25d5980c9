package exec

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
)

func numOne() apd.Decimal {
	var d apd.Decimal
	d.SetInt64(1)
	return d
}

// wallParts splits µs of wall-clock time into civil fields.
func wallParts(us int64) (t time.Time, frac int64) {
	secs := floorDiv(us, 1_000_000)
	return time.Unix(secs, 0).UTC(), us - secs*1_000_000
}

// truncWall truncates wall-clock µs to a date_trunc unit.
func truncWall(unit string, us int64) (int64, error) {
	t, frac := wallParts(us)
	y, m, d := t.Date()
	var r time.Time
	switch unit {
	case "microseconds":
		return us, nil
	case "milliseconds":
		return us - frac%1000, nil
	case "second":
		r = time.Date(y, m, d, t.Hour(), t.Minute(), t.Second(), 0, time.UTC)
	case "minute":
		r = time.Date(y, m, d, t.Hour(), t.Minute(), 0, 0, time.UTC)
	case "hour":
		r = time.Date(y, m, d, t.Hour(), 0, 0, 0, time.UTC)
	case "day":
		r = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	case "week":
		wd := (int(t.Weekday()) + 6) % 7
		r = time.Date(y, m, d-wd, 0, 0, 0, 0, time.UTC)
	case "month":
		r = time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	case "quarter":
		r = time.Date(y, ((m-1)/3)*3+1, 1, 0, 0, 0, 0, time.UTC)
	case "year":
		r = time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
	case "decade":
		r = time.Date(int(floorDiv(int64(y), 10))*10, 1, 1, 0, 0, 0, 0, time.UTC)
	case "century":
		r = time.Date(int(floorDiv(int64(y-1), 100))*100+1, 1, 1, 0, 0, 0, 0, time.UTC)
	case "millennium":
		r = time.Date(int(floorDiv(int64(y-1), 1000))*1000+1, 1, 1, 0, 0, 0, 0, time.UTC)
	default:
		return 0, unsupported("unit \"%s\" not supported for date_trunc", unit)
	}
	return r.Unix() * 1_000_000, nil
}

func normUnit(u string) (string, bool) {
	u = strings.ToLower(u)
	switch u {
	case "microsecond", "microseconds", "us", "usec", "usecs":
		return "microseconds", true
	case "millisecond", "milliseconds", "ms", "msec", "msecs":
		return "milliseconds", true
	case "second", "seconds", "s", "sec", "secs":
		return "second", true
	case "minute", "minutes", "m", "min", "mins":
		return "minute", true
	case "hour", "hours", "h", "hr", "hrs":
		return "hour", true
	case "day", "days", "d":
		return "day", true
	case "week", "weeks", "w":
		return "week", true
	case "month", "months", "mon", "mons":
		return "month", true
	case "quarter":
		return "quarter", true
	case "year", "years", "y", "yr", "yrs":
		return "year", true
	case "decade", "decades":
		return "decade", true
	case "century", "centuries":
		return "century", true
	case "millennium", "millennia":
		return "millennium", true
	case "dow", "doy", "isodow", "epoch", "julian", "timezone", "timezone_hour", "timezone_minute", "isoyear":
		return u, true
	}
	return u, false
}

// extractField computes extract(field FROM ts) on wall-clock µs as numeric
// text (PostgreSQL 14+ returns numeric).
func extractField(unit string, us int64, epochUS int64, isDate bool) (apd.Decimal, error) {
	t, frac := wallParts(us)
	var d apd.Decimal
	setI := func(n int64) { d.SetInt64(n) }
	switch unit {
	case "microseconds":
		setI(int64(t.Second())*1_000_000 + frac)
	case "milliseconds":
		d.SetFinite(int64(t.Second())*1_000_000+frac, -3)
	case "second":
		d.SetFinite(int64(t.Second())*1_000_000+frac, -6)
	case "minute":
		setI(int64(t.Minute()))
	case "hour":
		setI(int64(t.Hour()))
	case "day":
		setI(int64(t.Day()))
	case "week":
		_, w := t.ISOWeek()
		setI(int64(w))
	case "month":
		setI(int64(t.Month()))
	case "quarter":
		setI(int64((t.Month()-1)/3 + 1))
	case "year":
		y := t.Year()
		if y <= 0 {
			y--
		}
		setI(int64(y))
	case "isoyear":
		y, _ := t.ISOWeek()
		setI(int64(y))
	case "decade":
		setI(floorDiv(int64(t.Year()), 10))
	case "century":
		y := int64(t.Year())
		if y > 0 {
			setI((y + 99) / 100)
		} else {
			setI(-((99 - (y - 1)) / 100))
		}
	case "millennium":
		y := int64(t.Year())
		setI((y + 999) / 1000)
	case "dow":
		setI(int64(t.Weekday()))
	case "isodow":
		wd := int64(t.Weekday())
		if wd == 0 {
			wd = 7
		}
		setI(wd)
	case "doy":
		setI(int64(t.YearDay()))
	case "epoch":
		if isDate {
			setI(floorDiv(epochUS, 1_000_000))
		} else {
			d.SetFinite(epochUS, -6)
		}
	case "julian":
		// the Julian day number of the local date, plus the fraction of
		// the day for timestamps (numeric division, as PostgreSQL)
		days := floorDiv(us, usPerDay)
		setI(days + 2440588)
		if !isDate {
			var f, jd apd.Decimal
			if err := numDiv(&f, apd.New(us-days*usPerDay, 0), apd.New(usPerDay, 0)); err != nil {
				return d, err
			}
			jd.Set(&d)
			if err := numAdd(&d, &jd, &f); err != nil {
				return d, err
			}
		}
	default:
		return d, errf(CodeInvalidParameterValue, "unit \"%s\" not supported", unit)
	}
	return d, nil
}

func init() {
	nowK := func(_ *evalCtx, _ []*Vec, out *Vec, sel []int32) error { return nil }
	_ = nowK
	defCustom("now", func(b *binder, args []Expr) (Expr, error) {
		if len(args) != 0 {
			return nil, noFunction("now", args)
		}
		return &opExpr{name: "now", t: TTimestamptz, k: func(ec *evalCtx, _ []*Vec, out *Vec, sel []int32) error {
			us := ec.run.now.UnixMicro()
			for _, i := range sel {
				out.I[i] = us
			}
			return nil
		}}, nil
	})
	for _, n := range []string{"transaction_timestamp", "statement_timestamp"} {
		funcs[n] = funcs["now"]
	}
	// clock_timestamp is the wall clock at each call (it advances within a
	// statement, unlike now())
	defCustom("clock_timestamp", func(b *binder, args []Expr) (Expr, error) {
		if len(args) != 0 {
			return nil, noFunction("clock_timestamp", args)
		}
		return &opExpr{name: "clock_timestamp", t: TTimestamptz, k: func(ec *evalCtx, _ []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				out.I[i] = max(time.Now().UnixMicro(), ec.run.now.UnixMicro())
			}
			return nil
		}}, nil
	})
	defCustom("current_date", func(b *binder, args []Expr) (Expr, error) {
		return &opExpr{name: "current_date", t: TDate, k: func(ec *evalCtx, _ []*Vec, out *Vec, sel []int32) error {
			d := floorDiv(utcToLocal(ec.run.now.UnixMicro(), ec.loc), usPerDay)
			for _, i := range sel {
				out.I[i] = d
			}
			return nil
		}}, nil
	})
	defCustom("localtimestamp", func(b *binder, args []Expr) (Expr, error) {
		return &opExpr{name: "localtimestamp", t: TTimestamp, k: func(ec *evalCtx, _ []*Vec, out *Vec, sel []int32) error {
			w := utcToLocal(ec.run.now.UnixMicro(), ec.loc)
			for _, i := range sel {
				out.I[i] = w
			}
			return nil
		}}, nil
	})
	truncK := func(tz bool) kernel {
		return func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				u, ok := normUnit(a[0].S[i])
				if !ok {
					return errf(CodeInvalidParameterValue, "unit \"%s\" not recognized for type timestamp", a[0].S[i])
				}
				us := a[1].I[i]
				if !tsFinite(us) { // timestamp_trunc: infinity stays
					out.I[i] = us
					continue
				}
				if tz {
					us = utcToLocal(us, ec.loc)
				}
				r, err := truncWall(u, us)
				if err != nil {
					return err
				}
				if tz {
					switch u {
					case "hour", "minute", "second", "milliseconds", "microseconds":
						// units below a day keep the original UTC offset
						r -= us - a[1].I[i]
					default:
						r = localToUTC(r, ec.loc)
					}
				}
				out.I[i] = r
			}
			return nil
		}
	}
	def("date_trunc", sig(TTimestamptz, truncK(true), TText, TTimestamptz), sig(TTimestamp, truncK(false), TText, TTimestamp),
		sig(TInterval, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				u, _ := normUnit(a[0].S[i])
				v := a[1].V[i]
				switch u {
				case "year":
					v = Interval{Months: v.Months / 12 * 12}
				case "month":
					v = Interval{Months: v.Months}
				case "day":
					v = Interval{Months: v.Months, Days: v.Days}
				case "hour":
					v.Micros = v.Micros / 3600_000_000 * 3600_000_000
				case "minute":
					v.Micros = v.Micros / 60_000_000 * 60_000_000
				case "second":
					v.Micros = v.Micros / 1_000_000 * 1_000_000
				default:
					return unsupported("date_trunc(%s, interval) is not supported", u)
				}
				out.V[i] = v
			}
			return nil
		}, TText, TInterval))
	extractK := func(kind uint32, asFloat bool) kernel {
		return func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				u, ok := normUnit(a[0].S[i])
				if !ok {
					return errf(CodeInvalidParameterValue, "unit \"%s\" not recognized for type %s", a[0].S[i], Type{kind, -1})
				}
				var d apd.Decimal
				var err error
				if kind == OIDDate && !dateFinite(a[1].I[i]) || (kind == OIDTimestamp || kind == OIDTimestamptz) && !tsFinite(a[1].I[i]) {
					if kind == OIDDate {
						switch u {
						case "hour", "minute", "second", "milliseconds", "microseconds":
							return errf(CodeFeatureNotSupported, "unit \"%s\" not supported for type date", u)
						}
					}
					if !infiniteFieldIsInfinite(u) {
						out.SetNull(int(i))
						continue
					}
					neg := a[1].I[i] < 0
					if asFloat {
						out.F[i] = math.Inf(1)
						if neg {
							out.F[i] = math.Inf(-1)
						}
					} else {
						setInf(&out.D[i], neg)
					}
					continue
				}
				switch kind {
				case OIDDate:
					switch u {
					case "hour", "minute", "second", "milliseconds", "microseconds":
						return errf(CodeFeatureNotSupported, "unit \"%s\" not supported for type date", u)
					}
					us := a[1].I[i] * usPerDay
					d, err = extractField(u, us, us, true)
				case OIDTimestamp:
					d, err = extractField(u, a[1].I[i], a[1].I[i], false)
				case OIDTime:
					switch u {
					case "hour", "minute", "second", "milliseconds", "microseconds", "epoch":
						d, err = extractField(u, a[1].I[i], a[1].I[i], false)
					default:
						return errf(CodeFeatureNotSupported, "unit \"%s\" not supported for type time without time zone", u)
					}
				case OIDTimestamptz:
					if u == "timezone" || u == "timezone_hour" || u == "timezone_minute" {
						_, off := time.Unix(floorDiv(a[1].I[i], 1_000_000), 0).In(ec.loc).Zone()
						switch u {
						case "timezone_hour":
							off /= 3600
						case "timezone_minute":
							off = off / 60 % 60
						}
						d.SetInt64(int64(off))
						break
					}
					d, err = extractField(u, utcToLocal(a[1].I[i], ec.loc), a[1].I[i], false)
				case OIDInterval:
					d, err = extractInterval(u, a[1].V[i])
				}
				if err != nil {
					return err
				}
				if asFloat {
					f, _ := d.Float64()
					out.F[i] = f
				} else {
					out.D[i] = d
				}
			}
			return nil
		}
	}
	def("extract", sig(TNumeric, extractK(OIDTimestamptz, false), TText, TTimestamptz), sig(TNumeric, extractK(OIDTimestamp, false), TText, TTimestamp),
		sig(TNumeric, extractK(OIDDate, false), TText, TDate), sig(TNumeric, extractK(OIDInterval, false), TText, TInterval),
		sig(TNumeric, extractK(OIDTime, false), TText, TTime))
	def("date_part", sig(TFloat8, extractK(OIDTimestamptz, true), TText, TTimestamptz), sig(TFloat8, extractK(OIDTimestamp, true), TText, TTimestamp),
		sig(TFloat8, extractK(OIDInterval, true), TText, TInterval), sig(TFloat8, extractK(OIDTime, true), TText, TTime))
	def("make_date", sig(TDate, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			y, m, d := int(a[0].I[i]), int(a[1].I[i]), int(a[2].I[i])
			if !validCivil(y, m, d) {
				return errf(CodeDatetimeFieldOverflow, "date field value out of range: %d-%02d-%02d", y, m, d)
			}
			out.I[i] = daysFromCivil(y, time.Month(m), d)
		}
		return nil
	}, TInt4, TInt4, TInt4))
	def("to_timestamp", sig(TTimestamptz, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			f := a[0].F[i]
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return errf(CodeDatetimeFieldOverflow, "timestamp cannot be NaN")
			}
			out.I[i] = int64(math.Round(f * 1_000_000))
		}
		return nil
	}, TFloat8))
	def("age", sig(TInterval, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			out.V[i] = ageWall(a[0].I[i], a[1].I[i])
		}
		return nil
	}, TTimestamp, TTimestamp), sig(TInterval, func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			out.V[i] = ageWall(utcToLocal(a[0].I[i], ec.loc), utcToLocal(a[1].I[i], ec.loc))
		}
		return nil
	}, TTimestamptz, TTimestamptz))
	def("justify_days", sig(TInterval, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			v := a[0].V[i]
			v.Months += v.Days / 30
			v.Days %= 30
			out.V[i] = v
		}
		return nil
	}, TInterval))
	def("justify_hours", sig(TInterval, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			v := a[0].V[i]
			v.Days += int32(v.Micros / usPerDay)
			v.Micros %= usPerDay
			out.V[i] = v
		}
		return nil
	}, TInterval))
	def("isfinite", sig(TBool, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			out.B[i] = tsFinite(a[0].I[i])
		}
		return nil
	}, TTimestamptz), sig(TBool, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			out.B[i] = tsFinite(a[0].I[i])
		}
		return nil
	}, TTimestamp), sig(TBool, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			out.B[i] = dateFinite(a[0].I[i])
		}
		return nil
	}, TDate))
}

func extractInterval(u string, v Interval) (apd.Decimal, error) {
	var d apd.Decimal
	switch u {
	case "year":
		d.SetInt64(int64(v.Months / 12))
	case "month":
		d.SetInt64(int64(v.Months % 12))
	case "day":
		d.SetInt64(int64(v.Days))
	case "hour":
		d.SetInt64(v.Micros / 3600_000_000)
	case "minute":
		d.SetInt64(v.Micros / 60_000_000 % 60)
	case "second":
		d.SetFinite(v.Micros%60_000_000, -6)
	case "milliseconds":
		d.SetFinite(v.Micros%60_000_000, -3)
	case "microseconds":
		d.SetInt64(v.Micros % 60_000_000)
	case "epoch":
		total := (int64(v.Months/12)*365*86400+int64(v.Months/12*0)+int64(v.Months%12)*30*86400+int64(v.Days)*86400)*1_000_000 + v.Micros
		// PostgreSQL counts a year as 365.25 days here
		total += int64(v.Months/12) * 86400 * 1_000_000 / 4
		d.SetFinite(total, -6)
	case "quarter":
		d.SetInt64(int64(v.Months%12/3 + 1))
	case "decade":
		d.SetInt64(int64(v.Months / 12 / 10))
	case "century":
		d.SetInt64(int64(v.Months / 12 / 100))
	case "millennium":
		d.SetInt64(int64(v.Months / 12 / 1000))
	case "week", "dow", "doy", "isodow", "isoyear", "julian", "timezone", "timezone_hour", "timezone_minute":
		return d, errf(CodeFeatureNotSupported, "unit \"%s\" not supported for type interval", u)
	default:
		return d, unsupported("extract(%s from interval) is not supported", u)
	}
	return d, nil
}

// ageWall is age(a, b) on wall-clock values: symbolic years/months/days.
func ageWall(a, b int64) Interval {
	neg := a < b
	if neg {
		a, b = b, a
	}
	ta, fa := wallParts(a)
	tb, fb := wallParts(b)
	months := (ta.Year()-tb.Year())*12 + int(ta.Month()-tb.Month())
	days := ta.Day() - tb.Day()
	us := int64(ta.Hour()-tb.Hour())*3600_000_000 + int64(ta.Minute()-tb.Minute())*60_000_000 + int64(ta.Second()-tb.Second())*1_000_000 + fa - fb
	if us < 0 {
		us += usPerDay
		days--
	}
	if days < 0 {
		// borrow the length of b's month, as timestamp_age does
		prev := time.Date(tb.Year(), tb.Month()+1, 0, 0, 0, 0, 0, time.UTC).Day()
		days += prev
		months--
	}
	iv := Interval{Months: int32(months), Days: int32(days), Micros: us}
	if neg {
		iv = Interval{-iv.Months, -iv.Days, -iv.Micros}
	}
	return iv
}

func loadZone(name string) (*time.Location, error) {
	if strings.EqualFold(name, "utc") || strings.EqualFold(name, "gmt") || name == "Z" {
		return time.UTC, nil
	}
	if off, ok := parseOffset(name); ok && (name[0] == '+' || name[0] == '-') {
		// POSIX-style offsets are inverted in PostgreSQL; ISO offsets are not
		return time.FixedZone(name, -off), nil
	}
	if off, ok := tzAbbrevs[strings.ToUpper(name)]; ok {
		return time.FixedZone(strings.ToUpper(name), off), nil
	}
	l, err := time.LoadLocation(name)
	if err != nil {
		return nil, errf(CodeInvalidParameterValue, "time zone \"%s\" not recognized", name)
	}
	return l, nil
}

func init() {
	def("timezone", sig(TTimestamp, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			loc, err := loadZone(a[0].S[i])
			if err != nil {
				return err
			}
			out.I[i] = utcToLocal(a[1].I[i], loc)
		}
		return nil
	}, TText, TTimestamptz), sig(TTimestamptz, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			loc, err := loadZone(a[0].S[i])
			if err != nil {
				return err
			}
			out.I[i] = localToUTC(a[1].I[i], loc)
		}
		return nil
	}, TText, TTimestamp))
	defCustom("format", func(b *binder, args []Expr) (Expr, error) {
		if len(args) < 1 {
			return nil, noFunction("format", args)
		}
		for i := range args {
			if args[i].Type().OID == OIDUnknown {
				args[i], _ = b.coerce(args[i], TText, castImplicit, "")
			}
		}
		if args[0].Type().OID != OIDText {
			return nil, noFunction("format", args)
		}
		return &opExpr{name: "format", t: TText, args: args, k: func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				if a[0].IsNull(int(i)) {
					out.SetNull(int(i))
					continue
				}
				s, err := pgFormat(ec, a, int(i))
				if err != nil {
					return err
				}
				out.S[i] = s
			}
			return nil
		}}, nil
	})
}

// pgFormat implements format(): %[n$][-][width|*|*n$](s|I|L) and %%, as
// PostgreSQL's text_format (widths count characters; a negative width
// argument left-justifies; NULL is empty for %s and NULL for %L).
func pgFormat(ec *evalCtx, a []*Vec, i int) (string, error) {
	f := a[0].S[i]
	var sb strings.Builder
	arg := 0 // the last argument consumed (0 is the format string)
	unterminated := func() error {
		return &Error{Code: CodeInvalidParameterValue, Message: "unterminated format() type specifier", Hint: "For a single \"%\" use \"%%\"."}
	}
	digits := func(k int) (int, int, bool, error) {
		n, any := 0, false
		for k < len(f) && f[k] >= '0' && f[k] <= '9' {
			n = n*10 + int(f[k]-'0')
			if n > 1<<31-1 {
				return 0, k, false, errf(CodeNumericOutOfRange, "number is out of range")
			}
			any = true
			k++
		}
		return n, k, any, nil
	}
	for k := 0; k < len(f); k++ {
		if f[k] != '%' {
			sb.WriteByte(f[k])
			continue
		}
		k++
		if k >= len(f) {
			return "", unterminated()
		}
		if f[k] == '%' {
			sb.WriteByte('%')
			continue
		}
		argpos, widthpos, width, minus := 0, -1, 0, false
		n, nk, ok, err := digits(k)
		if err != nil {
			return "", err
		}
		if ok {
			if nk >= len(f) {
				return "", unterminated()
			}
			if f[nk] == '$' {
				if n == 0 {
					return "", errf(CodeInvalidParameterValue, "format specifies argument 0, but arguments are numbered from 1")
				}
				argpos = n
				k = nk + 1
			} else {
				width = n
				k = nk
				goto typ
			}
		}
		if k >= len(f) {
			return "", unterminated()
		}
		for k < len(f) && f[k] == '-' {
			minus = true
			k++
		}
		if k >= len(f) {
			return "", unterminated()
		}
		if f[k] == '*' {
			k++
			n, nk, ok, err := digits(k)
			if err != nil {
				return "", err
			}
			if ok {
				if nk >= len(f) {
					return "", unterminated()
				}
				if f[nk] != '$' {
					return "", errf(CodeInvalidParameterValue, "width argument position must be ended by \"$\"")
				}
				if n == 0 {
					return "", errf(CodeInvalidParameterValue, "format specifies argument 0, but arguments are numbered from 1")
				}
				widthpos = n
				k = nk + 1
			} else {
				widthpos = 0
			}
		} else {
			n, nk, ok, err := digits(k)
			if err != nil {
				return "", err
			}
			if ok {
				width = n
				k = nk
			}
		}
	typ:
		if k >= len(f) {
			return "", unterminated()
		}
		c := f[k]
		if c != 's' && c != 'I' && c != 'L' {
			_, size := utf8.DecodeRuneInString(f[k:])
			return "", &Error{Code: CodeInvalidParameterValue, Message: fmt.Sprintf("unrecognized format() type specifier \"%s\"", f[k:k+size]), Hint: "For a single \"%\" use \"%%\"."}
		}
		if widthpos >= 0 {
			if widthpos > 0 {
				arg = widthpos
			} else {
				arg++
			}
			if arg >= len(a) {
				return "", errf(CodeInvalidParameterValue, "too few arguments for format()")
			}
			wv := a[arg]
			if wv.IsNull(i) {
				width = 0
			} else {
				var w int64
				switch wv.T.Kind() {
				case KInt:
					w = wv.I[i]
				default:
					ws := strings.TrimSpace(formatValue(wv, i, ec.loc))
					pw, err := strconv.ParseInt(ws, 10, 32)
					if err != nil {
						return "", errf(CodeInvalidTextRepr, "invalid input syntax for type integer: \"%s\"", ws)
					}
					w = pw
				}
				if w < 0 {
					if w == -1<<31 {
						return "", errf(CodeNumericOutOfRange, "number is out of range")
					}
					minus, w = true, -w
				}
				width = int(w)
			}
		}
		if argpos > 0 {
			arg = argpos
		} else {
			arg++
		}
		if arg >= len(a) {
			return "", errf(CodeInvalidParameterValue, "too few arguments for format()")
		}
		v := a[arg]
		null := v.IsNull(i)
		var s string
		if !null {
			s = formatValue(v, i, ec.loc)
		}
		switch c {
		case 'I':
			if null {
				return "", errf(CodeNullValueNotAllowed, "null values cannot be formatted as an SQL identifier")
			}
			s = quoteIdent(s)
		case 'L':
			if null {
				s = "NULL"
			} else {
				s = quoteLiteral(s)
			}
		}
		if pad := width - utf8.RuneCountInString(s); pad > 0 {
			if minus {
				s += strings.Repeat(" ", pad)
			} else {
				s = strings.Repeat(" ", pad) + s
			}
		}
		sb.WriteString(s)
	}
	return sb.String(), nil
}
