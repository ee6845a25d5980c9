package exec

import (
	"math"

	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// percentile_cont / percentile_disc (fraction) WITHIN GROUP (ORDER BY x):
// the rows reach the accumulator sorted by x (sortedAcc), NULL x ignored.

type percentileAcc struct {
	cont bool
	t    Type
	vals []*Vec // per group, sorted
	frac []float64
	has  []bool
}

func (p *percentileAcc) update(_ *evalCtx, args []*Vec, rows, gids []int32, ng int) error {
	p.vals, p.frac, p.has = growTo(p.vals, ng), growTo(p.frac, ng), growTo(p.has, ng)
	x, f := args[0], args[1]
	for k, r := range rows {
		g := gids[k]
		if !p.has[g] {
			if f.IsNull(int(r)) {
				continue
			}
			fr := f.F[r]
			if fr < 0 || fr > 1 || math.IsNaN(fr) {
				return errf(CodeNumericOutOfRange, "percentile value %s is not between 0 and 1", formatFloat(fr, 64))
			}
			p.has[g], p.frac[g] = true, fr
		}
		if x.IsNull(int(r)) {
			continue
		}
		if p.vals[g] == nil {
			p.vals[g] = NewVec(x.T, 0)
		}
		p.vals[g].appendVec(x, []int32{r})
	}
	return nil
}

func (p *percentileAcc) result(ng int) (*Vec, error) {
	p.vals, p.frac, p.has = growTo(p.vals, ng), growTo(p.frac, ng), growTo(p.has, ng)
	out := NewVec(p.t, ng)
	for g := 0; g < ng; g++ {
		v := p.vals[g]
		if v == nil || v.N == 0 || !p.has[g] {
			out.SetNull(g)
			continue
		}
		n := v.N
		if !p.cont {
			i := int(math.Ceil(p.frac[g]*float64(n))) - 1
			i = max(i, 0)
			out.copyRow(g, v, i)
			continue
		}
		pos := p.frac[g] * float64(n-1)
		lo, hi := int(math.Floor(pos)), int(math.Ceil(pos))
		a, b := v.F[lo], v.F[hi]
		if lo == hi {
			out.F[g] = a
		} else {
			out.F[g] = a + (pos-float64(lo))*(b-a)
		}
	}
	return out, nil
}

// bindOrderedSetAgg binds percentile_cont / percentile_disc.
func (b *binder) bindOrderedSetAgg(name string, fc *q.FuncCall, sc *scope) (Expr, error) {
	if b.agg == nil || b.aggLevel != "" {
		where := b.aggLevel
		if where == "" {
			where = "this context"
		}
		return nil, errf(CodeGroupingError, "aggregate functions are not allowed in %s", where)
	}
	if len(fc.Args) != 1 || len(fc.AggOrder) != 1 {
		return nil, unsupported("%s with these arguments is not supported", name)
	}
	saved := b.agg
	b.agg = nil
	defer func() { b.agg = saved }()
	frac, err := b.bindExpr(fc.Args[0], sc)
	if err != nil {
		return nil, err
	}
	if frac.Type().IsArray() {
		return nil, unsupported("%s with an array of fractions is not supported", name)
	}
	if frac, err = b.coerce(frac, TFloat8, castImplicit, ""); err != nil {
		return nil, err
	}
	sb := fc.AggOrder[0].GetSortBy()
	x, err := b.bindExpr(sb.Node, sc)
	if err != nil {
		return nil, err
	}
	t := x.Type()
	cont := name == "percentile_cont"
	if cont {
		if t.OID == OIDInterval {
			return nil, unsupported("percentile_cont over interval is not supported")
		}
		if x, err = b.coerce(x, TFloat8, castImplicit, ""); err != nil {
			return nil, err
		}
		t = TFloat8
	} else if t.OID == OIDUnknown {
		x, _ = b.coerce(x, TText, castImplicit, "")
		t = TText
	}
	t.Mod = -1
	call := &aggCall{name: name, args: []Expr{x, frac}, order: []Expr{x}, orderKey: []sortKey{makeSortKey(sb, 0)}, t: t,
		newAcc: func() accum { return &percentileAcc{cont: cont, t: t} }}
	if fc.AggFilter != nil {
		f, err := b.bindExpr(fc.AggFilter, sc)
		if err != nil {
			return nil, err
		}
		if call.filter, err = b.coerceBool(f, "FILTER"); err != nil {
			return nil, err
		}
	}
	saved.calls = append(saved.calls, call)
	return &aggRef{idx: len(saved.calls) - 1, call: call}, nil
}
