package exec

import (
	"github.com/cockroachdb/apd/v3"
	"github.com/pggraph/pggraph/pgerr"
)

// Numeric helpers: trim_scale, min_scale, scale, width_bucket (numeric
// and float8), lcm, factorial.

func init() {
	def("trim_scale", sig(TNumeric, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			d := &a[0].D[i]
			var r apd.Decimal
			r.Set(d)
			if r.Form == apd.Finite && r.Exponent < 0 {
				r.Reduce(&r)
				if r.Exponent > 0 {
					// keep integer digits as digits, not an exponent
					_, _ = numCtx.Quantize(&r, &r, 0)
				}
			}
			out.D[i].Set(&r)
		}
		return nil
	}, TNumeric))
	def("min_scale", sig(TInt4, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			d := &a[0].D[i]
			if d.Form != apd.Finite {
				out.SetNull(int(i))
				continue
			}
			var r apd.Decimal
			r.Reduce(d)
			out.I[i] = int64(max(-r.Exponent, 0))
		}
		return nil
	}, TNumeric))
	def("width_bucket",
		sig(TInt4, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				n, err := widthBucketFloat(a[0].F[i], a[1].F[i], a[2].F[i], a[3].I[i])
				if err != nil {
					return err
				}
				out.I[i] = n
			}
			return nil
		}, TFloat8, TFloat8, TFloat8, TInt4),
		sig(TInt4, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				x, lo, hi := numToFloat(&a[0].D[i]), numToFloat(&a[1].D[i]), numToFloat(&a[2].D[i])
				n, err := widthBucketFloat(x, lo, hi, a[3].I[i])
				if err != nil {
					return err
				}
				out.I[i] = n
			}
			return nil
		}, TNumeric, TNumeric, TNumeric, TInt4))
	lcm := func(t Type) kernel {
		lo, hi, msg := intBounds(t)
		return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				x, y := a[0].I[i], a[1].I[i]
				if x == 0 || y == 0 {
					out.I[i] = 0
					continue
				}
				g, u := x, y
				for u != 0 {
					g, u = u, g%u
				}
				q := x / g
				r := q * y
				if r/y != q || r < lo || r > hi || r == lo {
					return errf(CodeNumericOutOfRange, "%s", msg)
				}
				if r < 0 {
					r = -r
				}
				out.I[i] = r
			}
			return nil
		}
	}
	def("lcm", sig(TInt4, lcm(TInt4), TInt4, TInt4), sig(TInt8, lcm(TInt8), TInt8, TInt8))
	def("factorial", sig(TNumeric, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			n := a[0].I[i]
			if n < 0 {
				return errf(CodeNumericOutOfRange, "factorial of a negative number is undefined")
			}
			if n > 32177 {
				return errf(CodeNumericOutOfRange, "value overflows numeric format")
			}
			r := &out.D[i]
			r.SetInt64(1)
			var k apd.Decimal
			for j := int64(2); j <= n; j++ {
				k.SetInt64(j)
				if err := numMul(r, r, &k); err != nil {
					return err
				}
			}
		}
		return nil
	}, TInt8))
	def("scale", sig(TInt4, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			if a[0].D[i].Form != apd.Finite {
				out.SetNull(int(i))
				continue
			}
			out.I[i] = int64(dscale(&a[0].D[i]))
		}
		return nil
	}, TNumeric))
}

func numToFloat(d *apd.Decimal) float64 {
	f, _ := d.Float64()
	return f
}

// widthBucketFloat is width_bucket(x, lo, hi, count): the 1-based bucket
// of count equal-width buckets over [lo, hi) (or (hi, lo] when lo > hi),
// 0 below and count+1 above.
func widthBucketFloat(x, lo, hi float64, count int64) (int64, error) {
	if count <= 0 {
		return 0, errf(pgerr.InvalidArgumentForWidthBucketFunction, "count must be greater than zero")
	}
	if lo == hi {
		return 0, errf(pgerr.InvalidArgumentForWidthBucketFunction, "lower bound cannot equal upper bound")
	}
	if lo < hi {
		switch {
		case x < lo:
			return 0, nil
		case x >= hi:
			return count + 1, nil
		}
		return int64(float64(count)*(x-lo)/(hi-lo)) + 1, nil
	}
	switch {
	case x > lo:
		return 0, nil
	case x <= hi:
		return count + 1, nil
	}
	return int64(float64(count)*(lo-x)/(lo-hi)) + 1, nil
}
