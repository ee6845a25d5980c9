package exec

import (
	"regexp"
	"strings"

	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// Interval field qualifiers and precision: INTERVAL '1' DAY,
// x::interval hour to minute, interval(3). The typmod is PostgreSQL's
// (range mask << 16 | precision); a bare number in the literal counts in
// the qualifier's last field, 'm:s' is minutes and seconds for MINUTE TO
// SECOND, and the value is truncated to the fields the qualifier keeps
// (AdjustIntervalForTypmod's rules), then seconds rounded to the
// precision. Only casts take qualifiers; interval columns with typmods
// stay unsupported (the write path would not truncate).

const (
	imMonth  = 1 << 1
	imYear   = 1 << 2
	imDay    = 1 << 3
	imHour   = 1 << 10
	imMinute = 1 << 11
	imSecond = 1 << 12
	imFull   = 0x7FFF
	ipFull   = 0xFFFF
)

// isIntervalTypmodCast reports whether a cast's type is interval with
// modifiers.
func isIntervalTypmodCast(tn *q.TypeName) bool {
	if len(tn.Typmods) == 0 || len(tn.ArrayBounds) > 0 || len(tn.Names) == 0 {
		return false
	}
	n := tn.Names[len(tn.Names)-1].GetString_().GetSval()
	return n == "interval"
}

func (b *binder) bindIntervalTypmodCast(tc *q.TypeCast, sc *scope) (Expr, error) {
	var mods []int64
	for _, m := range tc.TypeName.Typmods {
		c := m.GetAConst()
		iv, ok := c.GetVal().(*q.A_Const_Ival)
		if c == nil || !ok {
			return nil, errf(CodeSyntaxError, "type modifiers must be simple constants or identifiers")
		}
		mods = append(mods, int64(iv.Ival.Ival))
	}
	rng, prec := mods[0], int64(ipFull)
	if len(mods) > 1 {
		prec = mods[1]
	}
	if len(mods) > 2 {
		return nil, errf(CodeSyntaxError, "invalid INTERVAL type modifier")
	}
	switch rng {
	case imYear, imMonth, imDay, imHour, imMinute, imSecond, imYear | imMonth, imDay | imHour, imDay | imHour | imMinute,
		imDay | imHour | imMinute | imSecond, imHour | imMinute, imHour | imMinute | imSecond, imMinute | imSecond, imFull:
	default:
		return nil, errf(CodeSyntaxError, "invalid INTERVAL type modifier")
	}
	if prec != ipFull {
		if prec < 0 {
			return nil, errf(CodeInvalidParameterValue, "INTERVAL(%d) precision must not be negative", prec)
		}
		prec = min(prec, 6)
	}
	t := Type{OID: OIDInterval, Mod: int32(rng<<16 | prec)}
	arg, err := b.bindExpr(tc.Arg, sc)
	if err != nil {
		return nil, err
	}
	if c, ok := arg.(*constExpr); ok && c.t.OID == OIDUnknown && !c.isNull() {
		if v, ok := intervalFieldLiteral(c.val.S[0], rng); ok {
			arg = newConst(v)
		}
	}
	if arg, err = b.coerce(arg, TInterval, castExplicit, ""); err != nil {
		return nil, err
	}
	return &opExpr{name: "interval_typmod", t: t, args: []Expr{arg}, strict: true, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			out.V[i] = adjustInterval(a[0].V[i], rng, prec)
		}
		return nil
	}}, nil
}

var (
	bareNumber  = regexp.MustCompile(`^\s*[-+]?(\d+(\.\d*)?|\.\d+)\s*$`)
	minutesSecs = regexp.MustCompile(`^\s*([-+]?)(\d+):(\d+(\.\d*)?)\s*$`)
)

// intervalFieldLiteral reads the literal forms whose meaning depends on
// the qualifier: a bare number (in the last field) and m:s for MINUTE TO
// SECOND.
func intervalFieldLiteral(s string, rng int64) (*Vec, bool) {
	unit := "second"
	switch rng {
	case imYear:
		unit = "year"
	case imMonth, imYear | imMonth:
		unit = "month"
	case imDay:
		unit = "day"
	case imHour, imDay | imHour:
		unit = "hour"
	case imMinute, imHour | imMinute, imDay | imHour | imMinute:
		unit = "minute"
	}
	text := ""
	switch {
	case bareNumber.MatchString(s):
		text = strings.TrimSpace(s) + " " + unit
	case rng == imMinute|imSecond && minutesSecs.MatchString(s):
		m := minutesSecs.FindStringSubmatch(s)
		text = m[1] + m[2] + " minutes " + m[1] + m[3] + " seconds"
	default:
		return nil, false
	}
	v := NewVec(TInterval, 1)
	if err := parseText(v, 0, text, nil); err != nil {
		return nil, false
	}
	return v, true
}

// adjustInterval truncates to the qualifier's fields and rounds seconds
// to the precision.
func adjustInterval(v Interval, rng, prec int64) Interval {
	const hour, minute = 3_600_000_000, 60_000_000
	switch rng {
	case imYear:
		v.Months = v.Months / 12 * 12
		v.Days, v.Micros = 0, 0
	case imMonth, imYear | imMonth:
		v.Days, v.Micros = 0, 0
	case imDay:
		v.Micros = 0
	case imHour, imDay | imHour:
		v.Micros = v.Micros / hour * hour
	case imMinute, imDay | imHour | imMinute, imHour | imMinute:
		v.Micros = v.Micros / minute * minute
	}
	if prec != ipFull && prec < 6 {
		scale := int64(1)
		for k := prec; k < 6; k++ {
			scale *= 10
		}
		if v.Micros >= 0 {
			v.Micros = (v.Micros + scale/2) / scale * scale
		} else {
			v.Micros = -((-v.Micros + scale/2) / scale * scale)
		}
	}
	return v
}
