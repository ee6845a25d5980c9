package exec

import (
	"math"

	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// corr, covar_pop, covar_samp and the regr_* aggregates over (Y, X) with
// PostgreSQL's float8_regr_accum: the Youngs-Cramer accumulation of N,
// Sx, Sxx, Sy, Syy, Sxy (rows where either argument is NULL are
// skipped), and the final functions of float.c, so results round as
// PostgreSQL's do.

type regrKind int

const (
	regrCount regrKind = iota
	regrSxx
	regrSyy
	regrSxy
	regrAvgX
	regrAvgY
	regrR2
	regrSlope
	regrIntercept
	regrCovarPop
	regrCovarSamp
	regrCorr
)

var regrAggregates = map[string]regrKind{
	"regr_count": regrCount, "regr_sxx": regrSxx, "regr_syy": regrSyy, "regr_sxy": regrSxy,
	"regr_avgx": regrAvgX, "regr_avgy": regrAvgY, "regr_r2": regrR2, "regr_slope": regrSlope,
	"regr_intercept": regrIntercept, "covar_pop": regrCovarPop, "covar_samp": regrCovarSamp, "corr": regrCorr,
}

// regrState is one group's transition state.
type regrState struct{ n, sx, sxx, sy, syy, sxy float64 }

type regrAcc struct {
	k  regrKind
	st []regrState
}

func (a *regrAcc) update(_ *evalCtx, args []*Vec, rows, gids []int32, ng int) error {
	a.st = growTo(a.st, ng)
	y, x := args[0], args[1]
	for k, r := range rows {
		if y.IsNull(int(r)) || x.IsNull(int(r)) {
			continue
		}
		if err := a.st[gids[k]].accum(y.F[r], x.F[r]); err != nil {
			return err
		}
	}
	return nil
}

// accum is float8_regr_accum.
func (s *regrState) accum(newY, newX float64) error {
	prev := *s
	n := s.n + 1
	sx := s.sx + newX
	sy := s.sy + newY
	sxx, syy, sxy := s.sxx, s.syy, s.sxy
	inf := func(v float64) bool { return math.IsInf(v, 0) }
	if prev.n > 0 {
		tmpX := newX*n - sx
		tmpY := newY*n - sy
		scale := 1.0 / (n * prev.n)
		sxx += tmpX * tmpX * scale
		syy += tmpY * tmpY * scale
		sxy += tmpX * tmpY * scale
		if inf(sx) || inf(sxx) || inf(sy) || inf(syy) || inf(sxy) {
			if ((inf(sx) || inf(sxx)) && !inf(prev.sx) && !inf(newX)) ||
				((inf(sy) || inf(syy)) && !inf(prev.sy) && !inf(newY)) ||
				(inf(sxy) && !inf(prev.sx) && !inf(newX) && !inf(prev.sy) && !inf(newY)) {
				return errf(CodeNumericOutOfRange, "value out of range: overflow")
			}
			if inf(sxx) {
				sxx = math.NaN()
			}
			if inf(syy) {
				syy = math.NaN()
			}
			if inf(sxy) {
				sxy = math.NaN()
			}
		}
	} else {
		if math.IsNaN(newX) || inf(newX) {
			sxx, sxy = math.NaN(), math.NaN()
		}
		if math.IsNaN(newY) || inf(newY) {
			syy, sxy = math.NaN(), math.NaN()
		}
	}
	*s = regrState{n: n, sx: sx, sxx: sxx, sy: sy, syy: syy, sxy: sxy}
	return nil
}

func (a *regrAcc) result(ng int) (*Vec, error) {
	a.st = growTo(a.st, ng)
	if a.k == regrCount {
		out := NewVec(TInt8, ng)
		for g := range ng {
			out.I[g] = int64(a.st[g].n)
		}
		return out, nil
	}
	out := NewVec(TFloat8, ng)
	for g := range ng {
		v, ok := a.st[g].final(a.k)
		if !ok {
			out.SetNull(g)
			continue
		}
		out.F[g] = v
	}
	return out, nil
}

// final is the aggregate's final function (ok false: NULL).
func (s regrState) final(k regrKind) (float64, bool) {
	if s.n < 1 {
		return 0, false
	}
	switch k {
	case regrSxx:
		return s.sxx, true
	case regrSyy:
		return s.syy, true
	case regrSxy:
		return s.sxy, true
	case regrAvgX:
		return s.sx / s.n, true
	case regrAvgY:
		return s.sy / s.n, true
	case regrCovarPop:
		return s.sxy / s.n, true
	case regrCovarSamp:
		if s.n < 2 {
			return 0, false
		}
		return s.sxy / (s.n - 1), true
	case regrCorr:
		if s.sxx == 0 || s.syy == 0 {
			return 0, false
		}
		return s.sxy / math.Sqrt(s.sxx*s.syy), true
	case regrR2:
		if s.sxx == 0 {
			return 0, false
		}
		if s.syy == 0 {
			return 1, true
		}
		return (s.sxy * s.sxy) / (s.sxx * s.syy), true
	case regrSlope:
		if s.sxx == 0 {
			return 0, false
		}
		return s.sxy / s.sxx, true
	case regrIntercept:
		if s.sxx == 0 {
			return 0, false
		}
		return (s.sy - s.sx*s.sxy/s.sxx) / s.n, true
	}
	return 0, false
}

func init() {
	for name, k := range regrAggregates {
		name, k := name, k
		aggregates[name] = func(b *binder, args []Expr) (Type, func() accum, []Expr, error) {
			if len(args) != 2 {
				return Type{}, nil, nil, noFunction(name, args)
			}
			for i := range args {
				var err error
				if args[i], err = b.coerce(args[i], TFloat8, castImplicit, ""); err != nil {
					return Type{}, nil, nil, noFunction(name, args)
				}
			}
			t := TFloat8
			if k == regrCount {
				t = TInt8
			}
			return t, func() accum { return &regrAcc{k: k} }, args, nil
		}
	}
}

// withinGroupOfPlainAggregate is PostgreSQL's answer to WITHIN GROUP on
// an aggregate that is not ordered-set: no function takes the direct
// and ordering arguments together (42883).
func (b *binder) withinGroupOfPlainAggregate(name string, fc *q.FuncCall, sc *scope) error {
	saved := b.agg
	b.agg = nil
	defer func() { b.agg = saved }()
	var args []Expr
	for _, a := range fc.Args {
		e, err := b.bindExpr(a, sc)
		if err != nil {
			return err
		}
		args = append(args, e)
	}
	for _, o := range fc.AggOrder {
		e, err := b.bindExpr(o.GetSortBy().Node, sc)
		if err != nil {
			return err
		}
		args = append(args, e)
	}
	return b.at(noFunction(name, args), fc.Location)
}
