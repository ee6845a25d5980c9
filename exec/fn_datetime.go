package exec

import (
	"math"
	"time"

	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// Date and time constructors and adjustments: justify_interval,
// make_interval (also with named arguments), make_timestamp,
// make_timestamptz, make_time, date_bin.

func init() {
	def("justify_interval", sig(TInterval, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			out.V[i] = justifyInterval(a[0].V[i])
		}
		return nil
	}, TInterval))
	mk := func(tz bool) kernel {
		return func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				w, err := wallFromParts(a[0].I[i], a[1].I[i], a[2].I[i], a[3].I[i], a[4].I[i], a[5].F[i])
				if err != nil {
					return err
				}
				if !tz {
					out.I[i] = w
					continue
				}
				loc := ec.loc
				if len(a) == 7 {
					l, err := time.LoadLocation(a[6].S[i])
					if err != nil {
						return errf(CodeInvalidParameterValue, "time zone \"%s\" not recognized", a[6].S[i])
					}
					loc = l
				}
				if loc == nil {
					loc = time.UTC
				}
				out.I[i] = localToUTC(w, loc)
			}
			return nil
		}
	}
	def("make_timestamp", sig(TTimestamp, mk(false), TInt4, TInt4, TInt4, TInt4, TInt4, TFloat8))
	def("make_timestamptz", sig(TTimestamptz, mk(true), TInt4, TInt4, TInt4, TInt4, TInt4, TFloat8),
		sig(TTimestamptz, mk(true), TInt4, TInt4, TInt4, TInt4, TInt4, TFloat8, TText))
	def("make_time", sig(TTime, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			h, mi, sec := a[0].I[i], a[1].I[i], a[2].F[i]
			if h < 0 || h > 24 || mi < 0 || mi > 59 || sec < 0 || sec > 60 || math.IsNaN(sec) || (h == 24 && (mi > 0 || sec > 0)) {
				return errf(CodeDatetimeFieldOverflow, "time field value out of range: %d:%02d:%02g", h, mi, sec)
			}
			out.I[i] = h*3_600_000_000 + mi*60_000_000 + int64(math.Round(sec*1e6))
		}
		return nil
	}, TInt4, TInt4, TFloat8))
	bin := func(tz bool) kernel {
		return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				st := a[0].V[i]
				if st.Months != 0 {
					return unsupported("timestamps cannot be binned into intervals containing months or years")
				}
				stride := int64(st.Days)*usPerDay + st.Micros
				if stride <= 0 {
					return errf(CodeDatetimeFieldOverflow, "stride must be greater than zero")
				}
				src, origin := a[1].I[i], a[2].I[i]
				d := src - origin
				r := d % stride
				if r < 0 {
					r += stride
				}
				out.I[i] = src - r
			}
			return nil
		}
	}
	def("date_bin", sig(TTimestamp, bin(false), TInterval, TTimestamp, TTimestamp),
		sig(TTimestamptz, bin(true), TInterval, TTimestamptz, TTimestamptz))
}

// justifyInterval is PostgreSQL's justify_interval: 24-hour periods to
// days, 30-day periods to months, signs made consistent.
func justifyInterval(v Interval) Interval {
	const day = int64(86_400_000_000)
	m, d, t := int64(v.Months), int64(v.Days), v.Micros
	if (d > 0 && t > 0) || (d < 0 && t < 0) {
		w := t / day
		d += w
		t -= w * day
	}
	wm := d / 30
	d -= wm * 30
	m += wm
	if m > 0 && (d < 0 || (d == 0 && t < 0)) {
		d += 30
		m--
	} else if m < 0 && (d > 0 || (d == 0 && t > 0)) {
		d -= 30
		m++
	}
	w := t / day
	t -= w * day
	d += w
	if d > 0 && t < 0 {
		t += day
		d--
	} else if d < 0 && t > 0 {
		t -= day
		d++
	}
	return Interval{Months: int32(m), Days: int32(d), Micros: t}
}

// makeIntervalParams are make_interval's parameter names in order.
var makeIntervalParams = []string{"years", "months", "weeks", "days", "hours", "mins", "secs"}

// bindMakeInterval binds make_interval with positional and/or named
// arguments (name => value), missing ones 0.
func (b *binder) bindMakeInterval(fc *q.FuncCall, sc *scope) (Expr, error) {
	args := make([]Expr, len(makeIntervalParams))
	pos := 0
	for _, a := range fc.Args {
		if na := a.GetNamedArgExpr(); na != nil {
			k := -1
			for i, n := range makeIntervalParams {
				if n == na.Name {
					k = i
				}
			}
			if k < 0 {
				return nil, errf(CodeUndefinedFunction, "function make_interval(%s => unknown) does not exist", na.Name)
			}
			e, err := b.bindExpr(na.Arg, sc)
			if err != nil {
				return nil, err
			}
			args[k] = e
			continue
		}
		if pos >= len(args) {
			return nil, errf(CodeUndefinedFunction, "function make_interval with %d arguments does not exist", len(fc.Args))
		}
		e, err := b.bindExpr(a, sc)
		if err != nil {
			return nil, err
		}
		args[pos] = e
		pos++
	}
	for i := range args {
		want := TInt4
		if i == 6 {
			want = TFloat8
		}
		if args[i] == nil {
			v := NewVec(want, 1)
			args[i] = newConst(v)
			continue
		}
		var err error
		if args[i], err = b.coerce(args[i], want, castImplicit, ""); err != nil {
			return nil, err
		}
	}
	return &opExpr{name: "make_interval", t: TInterval, args: args, strict: true, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			secs := a[6].F[i]
			if math.IsNaN(secs) || math.IsInf(secs, 0) {
				return errf(CodeDatetimeFieldOverflow, "interval out of range")
			}
			months := a[0].I[i]*12 + a[1].I[i]
			days := a[2].I[i]*7 + a[3].I[i]
			micros := a[4].I[i]*3_600_000_000 + a[5].I[i]*60_000_000 + int64(math.Round(secs*1e6))
			if months > math.MaxInt32 || months < math.MinInt32 || days > math.MaxInt32 || days < math.MinInt32 {
				return errf(CodeDatetimeFieldOverflow, "interval out of range")
			}
			out.V[i] = Interval{Months: int32(months), Days: int32(days), Micros: micros}
		}
		return nil
	}}, nil
}

// wallFromParts builds wall-clock microseconds from make_timestamp's
// arguments, with PostgreSQL's range checks.
func wallFromParts(y, m, d, h, mi int64, sec float64) (int64, error) {
	if y == 0 || !validCivil(int(y), int(m), int(d)) && !(y < 0 && validCivil(int(y+1), int(m), int(d))) {
		return 0, errf(CodeDatetimeFieldOverflow, "date field value out of range: %d-%02d-%02d", y, m, d)
	}
	if h < 0 || h > 24 || mi < 0 || mi > 59 || sec < 0 || sec > 60 || math.IsNaN(sec) || (h == 24 && (mi > 0 || sec > 0)) {
		return 0, errf(CodeDatetimeFieldOverflow, "time field value out of range: %d:%02d:%02g", h, mi, sec)
	}
	if y < 0 {
		y++ // year -1 is 1 BC (proleptic year 0)
	}
	return daysFromCivil(int(y), time.Month(m), int(d))*usPerDay + h*3_600_000_000 + mi*60_000_000 + int64(math.Round(sec*1e6)), nil
}
