package exec

import (
	"math"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// numeric follows PostgreSQL's display-scale rules on top of apd: the
// result scale of +,- is the larger input scale, of * the sum, of / the
// scale chosen by select_div_scale (at least 16 significant digits).

const (
	numericMinSigDigits   = 16
	numericMaxDisplay     = 1000
	numericMaxResultScale = 2000
)

var numCtx = func() *apd.Context {
	c := apd.BaseContext.WithPrecision(2000)
	c.Rounding = apd.RoundHalfUp
	return c
}()

func dscale(d *apd.Decimal) int32 {
	if d.Exponent < 0 {
		return -d.Exponent
	}
	return 0
}

func formatNumeric(d *apd.Decimal) string {
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return "NaN"
	case apd.Infinite:
		if d.Negative {
			return "-Infinity"
		}
		return "Infinity"
	}
	s := d.Text('f')
	if d.Negative && d.IsZero() {
		s = strings.TrimPrefix(s, "-")
	}
	return s
}

// weightAndFirst returns PostgreSQL's base-10000 weight and leading digit.
func weightAndFirst(d *apd.Decimal) (int64, int64) {
	if d.IsZero() {
		return 0, 0
	}
	c := d.Coeff.String()
	e10 := int64(len(c)) - 1 + int64(d.Exponent)
	w := floorDiv(e10, 4)
	n := int(e10 - 4*w + 1)
	for len(c) < n {
		c += "0"
	}
	var first int64
	for i := 0; i < n; i++ {
		first = first*10 + int64(c[i]-'0')
	}
	return w, first
}

func divScale(a, b *apd.Decimal) int32 {
	w1, f1 := weightAndFirst(a)
	w2, f2 := weightAndFirst(b)
	q := w1 - w2
	if f1 <= f2 {
		q--
	}
	r := int64(numericMinSigDigits) - q*4
	r = max(r, int64(dscale(a)), int64(dscale(b)), 0)
	return int32(min(r, numericMaxDisplay))
}

// roundTo rounds d in place to scale s (half away from zero).
func roundTo(d *apd.Decimal, s int32) error {
	c := numCtx
	if need := int64(d.NumDigits()) + int64(d.Exponent) + int64(s) + 2; need > int64(c.Precision) {
		// results with more than 2000 digits (exp(5000)) keep their scale
		c = numCtx.WithPrecision(uint32(min(need, 200000)))
	}
	_, err := c.Quantize(d, d, -s)
	return err
}

func numAdd(out, a, b *apd.Decimal) error {
	if ok, err := numSpecialArith('+', out, a, b); ok {
		return err
	}
	_, err := numCtx.Add(out, a, b)
	return numErr(err)
}

func numSub(out, a, b *apd.Decimal) error {
	if ok, err := numSpecialArith('-', out, a, b); ok {
		return err
	}
	_, err := numCtx.Sub(out, a, b)
	return numErr(err)
}

func numMul(out, a, b *apd.Decimal) error {
	if ok, err := numSpecialArith('*', out, a, b); ok {
		return err
	}
	_, err := numCtx.Mul(out, a, b)
	return numErr(err)
}

func numDiv(out, a, b *apd.Decimal) error {
	if ok, err := numSpecialArith('/', out, a, b); ok {
		return err
	}
	if b.IsZero() {
		return errDivZero()
	}
	s := divScale(a, b)
	_, err := numCtx.Quo(out, a, b)
	if err != nil {
		return numErr(err)
	}
	return numErr(roundTo(out, s))
}

// numDivTrunc is integer division of numerics (div()).
func numDivTrunc(out, a, b *apd.Decimal) error {
	if b.IsZero() {
		return errDivZero()
	}
	_, err := numCtx.QuoInteger(out, a, b)
	return numErr(err)
}

func numMod(out, a, b *apd.Decimal) error {
	if ok, err := numSpecialArith('%', out, a, b); ok {
		return err
	}
	if b.IsZero() {
		return errDivZero()
	}
	_, err := numCtx.Rem(out, a, b)
	if err != nil {
		return numErr(err)
	}
	s := max(dscale(a), dscale(b))
	return numErr(roundTo(out, s))
}

func numErr(err error) error {
	if err == nil {
		return nil
	}
	return errf(CodeNumericOutOfRange, "value overflows numeric format")
}

// parseNumeric reads numeric text input.
func parseNumeric(s string) (apd.Decimal, error) {
	t := strings.TrimSpace(s)
	var d apd.Decimal
	switch strings.ToLower(t) {
	case "nan":
		d.Form = apd.NaN
		return d, nil
	case "infinity", "+infinity", "inf", "+inf":
		d.Form = apd.Infinite
		return d, nil
	case "-infinity", "-inf":
		d.Form = apd.Infinite
		d.Negative = true
		return d, nil
	}
	if t == "" || strings.ContainsAny(t, "_ ") || strings.HasPrefix(strings.ToLower(t), "0x") {
		return d, errf(CodeInvalidTextRepr, "invalid input syntax for type numeric: \"%s\"", s)
	}
	if _, _, err := d.SetString(t); err != nil {
		return d, errf(CodeInvalidTextRepr, "invalid input syntax for type numeric: \"%s\"", s)
	}
	if d.Exponent > 0 {
		// PostgreSQL keeps no positive exponent: 1e2 is 100 with scale 0.
		_, _ = numCtx.Quantize(&d, &d, 0)
	}
	return d, nil
}

// applyNumericTypmod enforces numeric(p,s): round to s, then check the
// integer digits fit p-s (22003 otherwise).
func applyNumericTypmod(d *apd.Decimal, mod int32) error {
	if mod < 4 || isNaN(d) {
		return nil
	}
	m := mod - 4
	p, s := int32(m>>16)&0xffff, int32(m&0xffff)
	if isInf(d) {
		return &Error{Code: CodeNumericOutOfRange, Message: "numeric field overflow",
			Detail: "A field with precision " + itoa(int64(p)) + ", scale " + itoa(int64(s)) + " cannot hold an infinite value."}
	}
	if err := roundTo(d, s); err != nil {
		return numErr(err)
	}
	if d.IsZero() {
		return nil
	}
	intDigits := int32(d.NumDigits()) + d.Exponent
	if intDigits > p-s {
		return &Error{Code: CodeNumericOutOfRange, Message: "numeric field overflow",
			Detail: numericOverflowDetail(p, s)}
	}
	return nil
}

func numericOverflowDetail(p, s int32) string {
	if s == 0 {
		return "A field with precision " + itoa(int64(p)) + ", scale 0 must round to an absolute value less than 10^" + itoa(int64(p)) + "."
	}
	return "A field with precision " + itoa(int64(p)) + ", scale " + itoa(int64(s)) + " must round to an absolute value less than 10^" + itoa(int64(p-s)) + "."
}

// numPow is numeric ^ numeric with power_var's result scale: at least 16
// significant digits, never less than either input's scale.
func numPow(out, base, exp *apd.Decimal) error {
	if ok, err := numSpecialPow(out, base, exp); ok {
		return err
	}
	var ip apd.Decimal
	integral := false
	if _, err := numCtx.RoundToIntegralExact(&ip, exp); err == nil && ip.Cmp(exp) == 0 {
		integral = true
	}
	if base.IsZero() && exp.Negative {
		return errf(CodeInvalidArgumentPower, "zero raised to a negative power is undefined")
	}
	if base.Negative && !integral {
		return errf(CodeInvalidArgumentPower, "a negative number raised to a non-integer power yields a complex result")
	}
	f := 0.0
	if !base.IsZero() {
		bf, _ := base.Float64()
		ef, _ := exp.Float64()
		f = ef * math.Log10(math.Abs(bf))
	}
	if f > 1e6 || f < -1e6 {
		return errf(CodeNumericOutOfRange, "value overflows numeric format")
	}
	r := int64(numericMinSigDigits) - int64(f)
	r = max(r, int64(dscale(base)), int64(dscale(exp)), 0)
	if integral {
		r = max(int64(numericMinSigDigits), int64(dscale(base)))
	}
	r = min(r, numericMaxDisplay)
	c := apd.BaseContext.WithPrecision(uint32(max(int64(f), 0) + r + 20))
	c.Rounding = apd.RoundHalfUp
	if integral {
		e, err := ip.Int64()
		if err != nil || e > 100000 || e < -100000 {
			return errf(CodeNumericOutOfRange, "value overflows numeric format")
		}
		if _, err := c.Pow(out, base, &ip); err != nil {
			return numErr(err)
		}
	} else if _, err := c.Pow(out, base, exp); err != nil {
		return numErr(err)
	}
	return numErr(roundTo(out, int32(r)))
}
