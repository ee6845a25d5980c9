package exec

import (
	"math"

	"github.com/cockroachdb/apd/v3"
)

// Variance and standard deviation aggregates with PostgreSQL's
// arithmetic: float inputs use the Youngs-Cramer accumulation
// (float8_accum), integer and numeric inputs exact numeric sums with
// numeric_stddev_internal's result scale.

type statKind struct {
	sample bool // N-1 denominator
	stddev bool // square root of the variance
}

// floatStatAcc accumulates N, Sx, Sxx per group.
type floatStatAcc struct {
	k          statKind
	n, sx, sxx []float64
}

func (s *floatStatAcc) update(_ *evalCtx, args []*Vec, rows, gids []int32, ng int) error {
	s.n, s.sx, s.sxx = growTo(s.n, ng), growTo(s.sx, ng), growTo(s.sxx, ng)
	x := args[0]
	for k, r := range rows {
		if x.IsNull(int(r)) {
			continue
		}
		g, v := gids[k], x.F[r]
		prevN := s.n[g]
		n := prevN + 1
		sx := s.sx[g] + v
		if prevN > 0 {
			tmp := v*n - sx
			s.sxx[g] += tmp * tmp / (n * prevN)
			if math.IsInf(sx, 0) || math.IsInf(s.sxx[g], 0) {
				if !math.IsInf(s.sx[g], 0) && !math.IsInf(v, 0) {
					return errf(CodeNumericOutOfRange, "value out of range: overflow")
				}
				s.sxx[g] = math.NaN()
			}
		} else if math.IsNaN(v) || math.IsInf(v, 0) {
			s.sxx[g] = math.NaN()
		}
		s.n[g], s.sx[g] = n, sx
	}
	return nil
}

func (s *floatStatAcc) result(ng int) (*Vec, error) {
	s.n, s.sx, s.sxx = growTo(s.n, ng), growTo(s.sx, ng), growTo(s.sxx, ng)
	out := NewVec(TFloat8, ng)
	for g := 0; g < ng; g++ {
		n := s.n[g]
		if n == 0 || (s.k.sample && n <= 1) {
			out.SetNull(g)
			continue
		}
		d := n
		if s.k.sample {
			d = n - 1
		}
		v := s.sxx[g] / d
		if s.k.stddev {
			v = math.Sqrt(v)
		}
		out.F[g] = v
	}
	return out, nil
}

// numStatAcc accumulates N, sum(x), sum(x*x) exactly.
type numStatAcc struct {
	k       statKind
	n       []int64
	sx, sxx []apd.Decimal
}

func (s *numStatAcc) update(_ *evalCtx, args []*Vec, rows, gids []int32, ng int) error {
	s.n, s.sx, s.sxx = growTo(s.n, ng), growTo(s.sx, ng), growTo(s.sxx, ng)
	x := args[0]
	var v, sq apd.Decimal
	for k, r := range rows {
		if x.IsNull(int(r)) {
			continue
		}
		g := gids[k]
		if x.T.Kind() == KInt {
			v.SetInt64(x.I[r])
		} else {
			v.Set(&x.D[r])
		}
		if err := numMul(&sq, &v, &v); err != nil {
			return err
		}
		if err := numAdd(&s.sx[g], &s.sx[g], &v); err != nil {
			return err
		}
		if err := numAdd(&s.sxx[g], &s.sxx[g], &sq); err != nil {
			return err
		}
		s.n[g]++
	}
	return nil
}

func (s *numStatAcc) result(ng int) (*Vec, error) {
	s.n, s.sx, s.sxx = growTo(s.n, ng), growTo(s.sx, ng), growTo(s.sxx, ng)
	out := NewVec(TNumeric, ng)
	for g := 0; g < ng; g++ {
		n := s.n[g]
		if n == 0 || (s.k.sample && n <= 1) {
			out.SetNull(g)
			continue
		}
		var vn, sumSq, num, den apd.Decimal
		vn.SetInt64(n)
		// N*sum(x^2) - sum(x)^2
		if err := numMul(&sumSq, &s.sx[g], &s.sx[g]); err != nil {
			return nil, err
		}
		if err := numMul(&num, &vn, &s.sxx[g]); err != nil {
			return nil, err
		}
		if err := numSub(&num, &num, &sumSq); err != nil {
			return nil, err
		}
		if num.Sign() <= 0 {
			out.D[g].SetInt64(0)
			continue
		}
		if s.k.sample {
			den.SetInt64(n * (n - 1))
		} else {
			den.SetInt64(n * n)
		}
		rscale := divScale(&num, &den)
		var q apd.Decimal
		if _, err := numCtx.Quo(&q, &num, &den); err != nil {
			return nil, numErr(err)
		}
		if s.k.stddev {
			c := apd.BaseContext.WithPrecision(uint32(rscale) + 40)
			if _, err := c.Sqrt(&q, &q); err != nil {
				return nil, numErr(err)
			}
		}
		if err := roundTo(&q, rscale); err != nil {
			return nil, numErr(err)
		}
		out.D[g] = q
	}
	return out, nil
}

func init() {
	for name, k := range map[string]statKind{
		"stddev": {true, true}, "stddev_samp": {true, true}, "stddev_pop": {false, true},
		"variance": {true, false}, "var_samp": {true, false}, "var_pop": {false, false},
	} {
		name, k := name, k
		aggregates[name] = func(b *binder, args []Expr) (Type, func() accum, []Expr, error) {
			if len(args) != 1 {
				return Type{}, nil, nil, noFunction(name, args)
			}
			t := args[0].Type()
			switch {
			case t.OID == OIDUnknown || t.Kind() == KFloat:
				var err error
				if args[0], err = b.coerce(args[0], TFloat8, castImplicit, ""); err != nil {
					return Type{}, nil, nil, err
				}
				return TFloat8, func() accum { return &floatStatAcc{k: k} }, args, nil
			case t.isInt() || t.OID == OIDNumeric:
				return TNumeric, func() accum { return &numStatAcc{k: k} }, args, nil
			}
			return Type{}, nil, nil, noFunction(name, args)
		}
	}
}
