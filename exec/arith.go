package exec

import (
	"math"
	"time"
)

// kernel computes an operator on the live non-NULL rows (sel) into out.
type kernel func(ec *evalCtx, args []*Vec, out *Vec, sel []int32) error

// opExpr is an operator or function application with a typed kernel.
// Strict: a NULL argument gives NULL without calling the kernel.
type opExpr struct {
	name   string
	t      Type
	args   []Expr
	k      kernel
	strict bool
	// volatile: a user function declared VOLATILE (volatileFuncs names
	// the built-in ones)
	volatile bool
}

// isVolatile reports a call whose value may differ per call.
func (e *opExpr) isVolatile() bool { return e.volatile || volatileFuncs[e.name] }

func (e *opExpr) Type() Type { return e.t }
func (e *opExpr) String() string {
	s := e.name + "("
	for i, a := range e.args {
		if i > 0 {
			s += ", "
		}
		s += a.String()
	}
	return s + ")"
}

func (e *opExpr) Eval(ec *evalCtx, b *Batch, sel []int32) (*Vec, error) {
	args := make([]*Vec, len(e.args))
	for i, a := range e.args {
		v, err := a.Eval(ec, b, sel)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	out := NewVec(e.t, b.N)
	live := sel
	if e.strict {
		live = nonNull(b.N, sel, out, args...)
	} else if live == nil {
		live = allRows(b.N)
	}
	if len(live) == 0 {
		return out, nil
	}
	if err := e.k(ec, args, out, live); err != nil {
		return nil, err
	}
	return out, nil
}

func cmpKernel(op cmpOp) kernel {
	return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		compareVecs(op, a[0], a[1], out, sel)
		return nil
	}
}

// intBounds returns the range of an integer result type.
func intBounds(t Type) (int64, int64, string) {
	switch t.OID {
	case OIDInt2:
		return math.MinInt16, math.MaxInt16, "smallint out of range"
	case OIDInt4:
		return math.MinInt32, math.MaxInt32, "integer out of range"
	}
	return math.MinInt64, math.MaxInt64, "bigint out of range"
}

func intArith(op string, t Type) kernel {
	lo, hi, msg := intBounds(t)
	over := func() error { return errf(CodeNumericOutOfRange, "%s", msg) }
	return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		x, y, r := a[0].I, a[1].I, out.I
		switch op {
		case "+":
			for _, i := range sel {
				v := x[i] + y[i]
				if (x[i]^v)&(y[i]^v) < 0 || v < lo || v > hi {
					return over()
				}
				r[i] = v
			}
		case "-":
			for _, i := range sel {
				v := x[i] - y[i]
				if (x[i]^y[i])&(x[i]^v) < 0 || v < lo || v > hi {
					return over()
				}
				r[i] = v
			}
		case "*":
			for _, i := range sel {
				v := x[i] * y[i]
				if x[i] != 0 && (v/x[i] != y[i] || (x[i] == -1 && y[i] == math.MinInt64)) || v < lo || v > hi {
					return over()
				}
				r[i] = v
			}
		case "/":
			for _, i := range sel {
				if y[i] == 0 {
					return errDivZero()
				}
				if y[i] == -1 {
					if x[i] == lo {
						return over()
					}
					r[i] = -x[i]
					continue
				}
				r[i] = x[i] / y[i]
			}
		case "%":
			for _, i := range sel {
				if y[i] == 0 {
					return errDivZero()
				}
				if y[i] == -1 {
					r[i] = 0
					continue
				}
				r[i] = x[i] % y[i]
			}
		case "&":
			for _, i := range sel {
				r[i] = x[i] & y[i]
			}
		case "|":
			for _, i := range sel {
				r[i] = x[i] | y[i]
			}
		case "#":
			for _, i := range sel {
				r[i] = x[i] ^ y[i]
			}
		case "<<", ">>":
			w := uint(64)
			switch t.OID {
			case OIDInt2:
				w = 16
			case OIDInt4:
				w = 32
			}
			for _, i := range sel {
				s := uint(y[i]) % w
				var v int64
				if op == "<<" {
					v = x[i] << s
				} else {
					v = x[i] >> s
				}
				switch w {
				case 16:
					v = int64(int16(v))
				case 32:
					v = int64(int32(v))
				}
				r[i] = v
			}
		}
		return nil
	}
}

func floatArith(op string, t Type) kernel {
	f32 := t.OID == OIDFloat4
	return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		x, y, r := a[0].F, a[1].F, out.F
		for _, i := range sel {
			var v float64
			switch op {
			case "+":
				v = x[i] + y[i]
			case "-":
				v = x[i] - y[i]
			case "*":
				v = x[i] * y[i]
			case "/":
				if y[i] == 0 && !math.IsNaN(x[i]) {
					return errDivZero() // NaN / 0 is NaN
				}
				v = x[i] / y[i]
			case "^":
				if x[i] == 0 && y[i] < 0 {
					return errf(CodeInvalidArgumentPower, "zero raised to a negative power is undefined")
				}
				if x[i] < 0 && y[i] != math.Trunc(y[i]) {
					return errf(CodeInvalidArgumentPower, "a negative number raised to a non-integer power yields a complex result")
				}
				v = math.Pow(x[i], y[i])
			}
			if f32 {
				v = float64(float32(v))
			}
			if math.IsInf(v, 0) && !math.IsInf(x[i], 0) && !math.IsInf(y[i], 0) {
				return errf(CodeNumericOutOfRange, "value out of range: overflow")
			}
			// a zero factor gives zero, not an underflow (float8mul checks both)
			if v == 0 && op != "+" && op != "-" && x[i] != 0 && !(op == "*" && y[i] == 0) && !(op == "^" && math.IsInf(y[i], -1)) && !math.IsInf(y[i], 0) {
				return errf(CodeNumericOutOfRange, "value out of range: underflow")
			}
			r[i] = v
		}
		return nil
	}
}

func numArith(op string) kernel {
	return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			x, y, r := &a[0].D[i], &a[1].D[i], &out.D[i]
			var err error
			switch op {
			case "+":
				err = numAdd(r, x, y)
			case "-":
				err = numSub(r, x, y)
			case "*":
				err = numMul(r, x, y)
			case "/":
				err = numDiv(r, x, y)
			case "%":
				err = numMod(r, x, y)
			case "^":
				err = numPow(r, x, y)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
}

// negate is unary minus.
func negKernel(t Type) kernel {
	lo, _, msg := intBounds(t)
	return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		x := a[0]
		for _, i := range sel {
			switch t.Kind() {
			case KInt:
				if x.I[i] == lo {
					return errf(CodeNumericOutOfRange, "%s", msg)
				}
				out.I[i] = -x.I[i]
			case KFloat:
				out.F[i] = -x.F[i]
			case KNum:
				out.D[i].Neg(&x.D[i])
			case KInterval:
				v := x.V[i]
				out.V[i] = Interval{-v.Months, -v.Days, -v.Micros}
			}
		}
		return nil
	}
}

// addMonths adds months to a wall-clock µs value, clamping the day to the
// end of the target month as PostgreSQL does.
func addMonths(us int64, months int32) int64 {
	if months == 0 {
		return us
	}
	days := floorDiv(us, usPerDay)
	clock := us - days*usPerDay
	y, m, d := civil(days)
	total := int(m) - 1 + int(months)
	ny := y + floorDivInt(total, 12)
	nm := time.Month(total - floorDivInt(total, 12)*12 + 1)
	last := time.Date(ny, nm+1, 0, 0, 0, 0, 0, time.UTC).Day()
	if d > last {
		d = last
	}
	return daysFromCivil(ny, nm, d)*usPerDay + clock
}

func floorDivInt(a, b int) int { return int(floorDiv(int64(a), int64(b))) }

// addInterval adds iv to a timestamp; for timestamptz the month and day
// parts are applied in loc's wall clock (DST-aware), like PostgreSQL.
func addInterval(us int64, iv Interval, tz bool, loc *time.Location) int64 {
	if iv.Months == 0 && iv.Days == 0 {
		return us + iv.Micros
	}
	if !tz {
		return addMonths(us, iv.Months) + int64(iv.Days)*usPerDay + iv.Micros
	}
	secs := floorDiv(us, 1_000_000)
	frac := us - secs*1_000_000
	t := time.Unix(secs, 0).In(loc)
	_, off := t.Zone()
	wall := (secs+int64(off))*1_000_000 + frac
	wall = addMonths(wall, iv.Months) + int64(iv.Days)*usPerDay
	return localToUTC(wall, loc) + iv.Micros
}

func subTimestamps(a, b int64) Interval {
	d := a - b
	days := d / usPerDay
	return Interval{Days: int32(days), Micros: d - days*usPerDay}
}
