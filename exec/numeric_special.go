package exec

import (
	"math"

	"github.com/cockroachdb/apd/v3"
)

// numeric NaN and ±Infinity (PostgreSQL 14+) in arithmetic: apd signals
// InvalidOperation where PostgreSQL answers NaN (Infinity - Infinity,
// Infinity * 0), so the special values are decided here before apd sees
// them. The rules are PostgreSQL's: NaN in, NaN out (except NaN ^ 0 and
// 1 ^ NaN, which are 1); x / 0 is an error unless x is NaN.

func isSpecial(d *apd.Decimal) bool { return d.Form != apd.Finite }
func isNaN(d *apd.Decimal) bool     { return d.Form == apd.NaN || d.Form == apd.NaNSignaling }
func isInf(d *apd.Decimal) bool     { return d.Form == apd.Infinite }

func setNaN(d *apd.Decimal) { d.Set(&apd.Decimal{Form: apd.NaN}) }
func setInf(d *apd.Decimal, neg bool) {
	d.Set(&apd.Decimal{Form: apd.Infinite, Negative: neg})
}

// numSign is -1, 0 or 1 (NaN counts as 0; callers test NaN first).
func numSign(d *apd.Decimal) int {
	if isNaN(d) {
		return 0
	}
	if isInf(d) {
		if d.Negative {
			return -1
		}
		return 1
	}
	return d.Sign()
}

// numSpecialArith computes op for operands of which at least one is NaN or
// infinite. ok is false when neither is special.
func numSpecialArith(op byte, out, a, b *apd.Decimal) (bool, error) {
	if !isSpecial(a) && !isSpecial(b) {
		return false, nil
	}
	if isNaN(a) || isNaN(b) {
		setNaN(out)
		return true, nil
	}
	sa, sb := numSign(a), numSign(b)
	switch op {
	case '+', '-':
		if op == '-' {
			sb = -sb
		}
		switch {
		case isInf(a) && isInf(b):
			if sa != sb {
				setNaN(out)
			} else {
				setInf(out, sa < 0)
			}
		case isInf(a):
			setInf(out, sa < 0)
		default:
			setInf(out, sb < 0)
		}
	case '*':
		if sa == 0 || sb == 0 {
			setNaN(out) // Infinity * 0
		} else {
			setInf(out, sa*sb < 0)
		}
	case '/':
		switch {
		case sb == 0:
			return true, errDivZero()
		case isInf(a) && isInf(b):
			setNaN(out)
		case isInf(a):
			setInf(out, sa*sb < 0)
		default: // finite / ±Infinity
			out.SetInt64(0)
		}
	case '%':
		switch {
		case isInf(a):
			if sb == 0 {
				return true, errDivZero()
			}
			setNaN(out)
		default: // finite % ±Infinity is the dividend
			out.Set(a)
		}
	}
	return true, nil
}

// numSpecialPow is ^ when an operand is NaN or infinite.
func numSpecialPow(out, base, exp *apd.Decimal) (bool, error) {
	if !isSpecial(base) && !isSpecial(exp) {
		return false, nil
	}
	one := apd.New(1, 0)
	if isNaN(base) || isNaN(exp) {
		if (!isNaN(base) && base.Cmp(one) == 0) || (!isNaN(exp) && numSign(exp) == 0) {
			out.SetInt64(1)
		} else {
			setNaN(out)
		}
		return true, nil
	}
	if numSign(exp) == 0 {
		out.SetInt64(1)
		return true, nil
	}
	if isInf(exp) {
		var ab apd.Decimal
		ab.Abs(base)
		c := 1
		if !isInf(base) {
			c = ab.Cmp(one)
		}
		switch {
		case numSign(base) == 0 && exp.Negative:
			return true, errf(CodeInvalidArgumentPower, "zero raised to a negative power is undefined")
		case c == 0:
			out.SetInt64(1)
		case (c < 0) == !exp.Negative:
			out.SetInt64(0)
		default:
			setInf(out, false)
		}
		return true, nil
	}
	// base is ±Infinity, exp finite and non-zero
	if exp.Negative {
		out.SetInt64(0)
		return true, nil
	}
	neg := false
	if base.Negative {
		var ip apd.Decimal
		if _, err := numCtx.RoundToIntegralExact(&ip, exp); err != nil || ip.Cmp(exp) != 0 {
			return true, errf(CodeInvalidArgumentPower, "a negative number raised to a non-integer power yields a complex result")
		}
		var two, rem apd.Decimal
		two.SetInt64(2)
		_, _ = numCtx.Rem(&rem, &ip, &two)
		neg = !rem.IsZero()
	}
	setInf(out, neg)
	return true, nil
}

// lnDecimalWeight estimates the decimal weight of ln(x) (x > 0) the way
// PostgreSQL chooses the result scale of ln and log: near 1 from x - 1,
// elsewhere from the leading digits and the decimal exponent.
func lnDecimalWeight(x *apd.Decimal) int64 {
	lo, hi := apd.New(9, -1), apd.New(11, -1)
	if x.Cmp(lo) >= 0 && x.Cmp(hi) <= 0 {
		var d apd.Decimal
		_, _ = numCtx.Sub(&d, x, apd.New(1, 0))
		if d.IsZero() {
			return 0
		}
		return int64(d.NumDigits()) + int64(d.Exponent) - 1 // decimal weight of x - 1
	}
	w, first := weightAndFirst(x)
	// use up to two base-10000 digits of x
	c := x.Coeff.String()
	e10 := int64(len(c)) - 1 + int64(x.Exponent)
	lead := float64(first)
	n := int(e10 - 4*w + 1)
	if n < len(c) {
		next := c[n:]
		if len(next) > 4 {
			next = next[:4]
		}
		for len(next) < 4 {
			next += "0"
		}
		v := 0
		for _, ch := range next {
			v = v*10 + int(ch-'0')
		}
		lead += float64(v) / 10000
	}
	lnv := math.Log(lead) + float64(w*4)*math.Ln10
	if lnv == 0 {
		return 0
	}
	return int64(math.Log10(math.Abs(lnv)))
}

// numRoundScale clamps a result scale to PostgreSQL's display limits.
func numRoundScale(r int64, inputs ...*apd.Decimal) int32 {
	for _, d := range inputs {
		r = max(r, int64(dscale(d)))
	}
	return int32(min(max(r, 0), numericMaxDisplay))
}

// numContext returns a context precise enough for a result of about
// 10^weight with scale digits after the point, plus guard digits.
func numContext(weight int64, scale int32) *apd.Context {
	p := max(weight, 0) + int64(scale) + 24
	c := apd.BaseContext.WithPrecision(uint32(min(p, 4000)))
	c.Rounding = apd.RoundHalfUp
	return c
}

// numSqrt is sqrt(numeric): scale at least 16 significant digits.
func numSqrt(out, x *apd.Decimal) error {
	if isNaN(x) {
		setNaN(out)
		return nil
	}
	if x.Negative && !x.IsZero() {
		return errf(CodeInvalidArgumentFunction, "cannot take square root of a negative number")
	}
	if isInf(x) {
		setInf(out, false)
		return nil
	}
	w, _ := weightAndFirst(x)
	sweight := (w+1)*4/2 - 1
	rs := numRoundScale(int64(numericMinSigDigits)-sweight, x)
	if _, err := numContext(sweight, rs).Sqrt(out, x); err != nil {
		return numErr(err)
	}
	return numErr(roundTo(out, rs))
}

// numExp is exp(numeric).
func numExp(out, x *apd.Decimal) error {
	if isNaN(x) {
		setNaN(out)
		return nil
	}
	if isInf(x) {
		if x.Negative {
			out.SetInt64(0)
		} else {
			setInf(out, false)
		}
		return nil
	}
	f, _ := x.Float64()
	if f > 6000 {
		return errf(CodeNumericOutOfRange, "value overflows numeric format")
	}
	v := f * math.Log10E
	v = math.Max(math.Min(v, numericMaxResultScale), -numericMaxResultScale)
	rs := numRoundScale(int64(numericMinSigDigits)-int64(v), x)
	if _, err := numContext(int64(v), rs).Exp(out, x); err != nil {
		return numErr(err)
	}
	return numErr(roundTo(out, rs))
}

func lnDomain(x *apd.Decimal) error {
	if x.IsZero() {
		return errf(CodeInvalidArgumentForLog, "cannot take logarithm of zero")
	}
	if x.Negative {
		return errf(CodeInvalidArgumentForLog, "cannot take logarithm of a negative number")
	}
	return nil
}

// numLn is ln(numeric).
func numLn(out, x *apd.Decimal) error {
	if isNaN(x) {
		setNaN(out)
		return nil
	}
	if isInf(x) {
		if x.Negative {
			return errf(CodeInvalidArgumentForLog, "cannot take logarithm of a negative number")
		}
		setInf(out, false)
		return nil
	}
	if err := lnDomain(x); err != nil {
		return err
	}
	rs := numRoundScale(int64(numericMinSigDigits)-lnDecimalWeight(x), x)
	if _, err := numContext(4, rs).Ln(out, x); err != nil {
		return numErr(err)
	}
	return numErr(roundTo(out, rs))
}

// numLog is log(base, x) for numerics (log(x) is log(10, x)).
func numLog(out, base, x *apd.Decimal) error {
	if isNaN(base) || isNaN(x) {
		setNaN(out)
		return nil
	}
	if isInf(base) || isInf(x) {
		if (isInf(base) && base.Negative) || (isInf(x) && x.Negative) {
			return errf(CodeInvalidArgumentForLog, "cannot take logarithm of a negative number")
		}
		if err := lnDomain(base); !isInf(base) && err != nil {
			return err
		}
		if err := lnDomain(x); !isInf(x) && err != nil {
			return err
		}
		switch {
		case isInf(base) && isInf(x):
			setNaN(out)
		case isInf(base):
			out.SetInt64(0)
		default:
			// log(b, Infinity): +/-Infinity by the sign of ln(b)
			if base.Cmp(apd.New(1, 0)) == 0 {
				return errDivZero()
			}
			setInf(out, base.Cmp(apd.New(1, 0)) < 0)
		}
		return nil
	}
	if err := lnDomain(base); err != nil {
		return err
	}
	if err := lnDomain(x); err != nil {
		return err
	}
	if base.Cmp(apd.New(1, 0)) == 0 {
		return errDivZero()
	}
	dw := lnDecimalWeight(x) - lnDecimalWeight(base)
	rs := numRoundScale(int64(numericMinSigDigits)-dw, base, x)
	c := numContext(max(dw, 0)+4, rs+8)
	var lb, lx apd.Decimal
	if _, err := c.Ln(&lb, base); err != nil {
		return numErr(err)
	}
	if _, err := c.Ln(&lx, x); err != nil {
		return numErr(err)
	}
	if _, err := c.Quo(out, &lx, &lb); err != nil {
		return numErr(err)
	}
	return numErr(roundTo(out, rs))
}

// numGCD is gcd(numeric, numeric): PostgreSQL's numeric gcd accepts any
// finite values and answers with the larger input scale
// (gcd(1.5, 0.25) = 0.25).
func numGCD(out, a, b *apd.Decimal) error {
	if isNaN(a) || isNaN(b) || isInf(a) || isInf(b) {
		setNaN(out)
		return nil
	}
	s := max(dscale(a), dscale(b))
	var x, y apd.Decimal
	x.Abs(a)
	y.Abs(b)
	for !y.IsZero() {
		var r apd.Decimal
		if _, err := numCtx.Rem(&r, &x, &y); err != nil {
			return numErr(err)
		}
		x.Set(&y)
		y.Set(&r)
	}
	out.Set(&x)
	return numErr(roundTo(out, s))
}

// numLCM is lcm(numeric, numeric).
func numLCM(out, a, b *apd.Decimal) error {
	if isNaN(a) || isNaN(b) || isInf(a) || isInf(b) {
		setNaN(out)
		return nil
	}
	s := max(dscale(a), dscale(b))
	if a.IsZero() || b.IsZero() {
		out.SetInt64(0)
		return numErr(roundTo(out, s))
	}
	var g, p apd.Decimal
	if err := numGCD(&g, a, b); err != nil {
		return err
	}
	if _, err := numCtx.Mul(&p, a, b); err != nil {
		return numErr(err)
	}
	p.Abs(&p)
	if _, err := numCtx.Quo(out, &p, &g); err != nil {
		return numErr(err)
	}
	return numErr(roundTo(out, s))
}

func numKernel1(f func(out, x *apd.Decimal) error) kernel {
	return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			if err := f(&out.D[i], &a[0].D[i]); err != nil {
				return err
			}
		}
		return nil
	}
}

func numKernel2(f func(out, x, y *apd.Decimal) error) kernel {
	return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			if err := f(&out.D[i], &a[0].D[i], &a[1].D[i]); err != nil {
				return err
			}
		}
		return nil
	}
}

func init() {
	// numeric overloads next to the double precision ones (fn_math.go);
	// a numeric argument picks these, as in PostgreSQL
	def("sqrt", sig(TNumeric, numKernel1(numSqrt), TNumeric))
	def("exp", sig(TNumeric, numKernel1(numExp), TNumeric))
	def("ln", sig(TNumeric, numKernel1(numLn), TNumeric))
	log10 := func(out, x *apd.Decimal) error { return numLog(out, apd.New(10, 0), x) }
	def("log", sig(TNumeric, numKernel1(log10), TNumeric), sig(TNumeric, numKernel2(numLog), TNumeric, TNumeric))
	def("log10", sig(TNumeric, numKernel1(log10), TNumeric))
	def("gcd", sig(TNumeric, numKernel2(numGCD), TNumeric, TNumeric))
	def("lcm", sig(TNumeric, numKernel2(numLCM), TNumeric, TNumeric))
}
