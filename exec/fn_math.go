package exec

import (
	"math"

	"github.com/cockroachdb/apd/v3"
	"github.com/pggraph/pggraph/pgerr"
)

// Mathematical functions: abs, rounding, sign, roots, exponentials and
// logarithms, power, mod, div, trigonometry, gcd, random.

func init() {
	absK := func(t Type) kernel {
		lo, _, msg := intBounds(t)
		return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				switch t.Kind() {
				case KInt:
					x := a[0].I[i]
					if x == lo {
						return errf(CodeNumericOutOfRange, "%s", msg)
					}
					if x < 0 {
						x = -x
					}
					out.I[i] = x
				case KFloat:
					out.F[i] = math.Abs(a[0].F[i])
				case KNum:
					out.D[i].Abs(&a[0].D[i])
				}
			}
			return nil
		}
	}
	def("abs", sig(TInt2, absK(TInt2), TInt2), sig(TInt4, absK(TInt4), TInt4), sig(TInt8, absK(TInt8), TInt8),
		sig(TFloat4, absK(TFloat4), TFloat4), sig(TFloat8, absK(TFloat8), TFloat8), sig(TNumeric, absK(TNumeric), TNumeric))
	fl := func(f func(float64) float64) kernel {
		return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				out.F[i] = f(a[0].F[i])
			}
			return nil
		}
	}
	numRound := func(mode apd.Rounder, withScale bool) kernel {
		return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			c := *numCtx
			c.Rounding = mode
			for _, i := range sel {
				s := int64(0)
				if withScale {
					s = a[1].I[i]
				}
				d := &a[0].D[i]
				if d.Form != apd.Finite {
					out.D[i].Set(d)
					continue
				}
				if _, err := c.Quantize(&out.D[i], d, int32(-s)); err != nil {
					return numErr(err)
				}
				if s < 0 {
					// keep scale 0 in the display: 1234 rounded to -2 is 1200
					_, _ = c.Quantize(&out.D[i], &out.D[i], 0)
				}
			}
			return nil
		}
	}
	def("round", sig(TFloat8, fl(math.RoundToEven), TFloat8), sig(TNumeric, numRound(apd.RoundHalfUp, false), TNumeric),
		sig(TNumeric, numRound(apd.RoundHalfUp, true), TNumeric, TInt4))
	def("trunc", sig(TFloat8, fl(math.Trunc), TFloat8), sig(TNumeric, numRound(apd.RoundDown, false), TNumeric),
		sig(TNumeric, numRound(apd.RoundDown, true), TNumeric, TInt4))
	def("ceil", sig(TFloat8, fl(math.Ceil), TFloat8), sig(TNumeric, numRound(apd.RoundCeiling, false), TNumeric))
	funcs["ceiling"] = funcs["ceil"]
	def("floor", sig(TFloat8, fl(math.Floor), TFloat8), sig(TNumeric, numRound(apd.RoundFloor, false), TNumeric))
	def("sign", sig(TFloat8, fl(func(x float64) float64 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return 0
	}), TFloat8), sig(TNumeric, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			if isNaN(&a[0].D[i]) {
				setNaN(&out.D[i])
				continue
			}
			out.D[i].SetInt64(int64(numSign(&a[0].D[i])))
		}
		return nil
	}, TNumeric))
	checked := func(name string, f func(float64) float64, domain func(float64) error) kernel {
		return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				if domain != nil {
					if err := domain(a[0].F[i]); err != nil {
						return err
					}
				}
				out.F[i] = f(a[0].F[i])
			}
			return nil
		}
	}
	def("sqrt", sig(TFloat8, checked("sqrt", math.Sqrt, func(x float64) error {
		if x < 0 {
			return errf(CodeInvalidArgumentFunction, "cannot take square root of a negative number")
		}
		return nil
	}), TFloat8))
	def("cbrt", sig(TFloat8, fl(math.Cbrt), TFloat8))
	def("exp", sig(TFloat8, checked("exp", math.Exp, nil), TFloat8))
	logDomain := func(x float64) error {
		if x == 0 {
			return errf(CodeInvalidArgumentForLog, "cannot take logarithm of zero")
		}
		if x < 0 {
			return errf(CodeInvalidArgumentForLog, "cannot take logarithm of a negative number")
		}
		return nil
	}
	def("ln", sig(TFloat8, checked("ln", math.Log, logDomain), TFloat8))
	def("log", sig(TFloat8, checked("log", math.Log10, logDomain), TFloat8))
	def("log10", sig(TFloat8, checked("log10", math.Log10, logDomain), TFloat8))
	def("power", sig(TFloat8, floatArith("^", TFloat8), TFloat8, TFloat8), sig(TNumeric, numArith("^"), TNumeric, TNumeric))
	funcs["pow"] = funcs["power"]
	def("mod", sig(TInt2, intArith("%", TInt2), TInt2, TInt2), sig(TInt4, intArith("%", TInt4), TInt4, TInt4),
		sig(TInt8, intArith("%", TInt8), TInt8, TInt8), sig(TNumeric, numArith("%"), TNumeric, TNumeric))
	def("div", sig(TNumeric, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			if err := numDivTrunc(&out.D[i], &a[0].D[i], &a[1].D[i]); err != nil {
				return err
			}
		}
		return nil
	}, TNumeric, TNumeric))
	def("pi", sig(TFloat8, func(_ *evalCtx, _ []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			out.F[i] = math.Pi
		}
		return nil
	}))
	def("degrees", sig(TFloat8, fl(func(x float64) float64 { return x * 180 / math.Pi }), TFloat8))
	def("radians", sig(TFloat8, fl(func(x float64) float64 { return x * math.Pi / 180 }), TFloat8))
	for name, f := range map[string]func(float64) float64{"sin": math.Sin, "cos": math.Cos, "tan": math.Tan, "asin": math.Asin, "acos": math.Acos, "atan": math.Atan} {
		def(name, sig(TFloat8, fl(f), TFloat8))
	}
	def("atan2", sig(TFloat8, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			out.F[i] = math.Atan2(a[0].F[i], a[1].F[i])
		}
		return nil
	}, TFloat8, TFloat8))
	gcd := func(x, y int64) int64 {
		for y != 0 {
			x, y = y, x%y
		}
		if x < 0 {
			x = -x
		}
		return x
	}
	def("gcd", sig(TInt4, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			out.I[i] = gcd(a[0].I[i], a[1].I[i])
		}
		return nil
	}, TInt4, TInt4), sig(TInt8, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			out.I[i] = gcd(a[0].I[i], a[1].I[i])
		}
		return nil
	}, TInt8, TInt8))
	def("random", sig(TFloat8, func(_ *evalCtx, _ []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			out.F[i] = randFloat()
		}
		return nil
	}))
}

// CodeInvalidArgumentFunction is 2201F's sibling for sqrt (22023 in PG is
// invalid_parameter_value; sqrt uses 2201F).
const CodeInvalidArgumentFunction = pgerr.InvalidArgumentForPowerFunction
