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
	// arr: the fractions are an array (fracs; NULL elements give NULL
	// results), the result an array of one value per fraction
	arr   bool
	fracs []*Vec
}

func (p *percentileAcc) update(_ *evalCtx, args []*Vec, rows, gids []int32, ng int) error {
	p.vals, p.frac, p.has = growTo(p.vals, ng), growTo(p.frac, ng), growTo(p.has, ng)
	x, f := args[0], args[1]
	for k, r := range rows {
		g := gids[k]
		if !p.has[g] && p.arr {
			if f.IsNull(int(r)) {
				continue
			}
			items := f.A[r].Items
			for i := range items.N {
				if fr := items.F[i]; !items.IsNull(i) && (fr < 0 || fr > 1 || math.IsNaN(fr)) {
					return errf(CodeNumericOutOfRange, "percentile value %s is not between 0 and 1", formatFloat(fr, 64))
				}
			}
			p.fracs = growTo(p.fracs, ng)
			p.has[g], p.fracs[g] = true, items
		} else if !p.has[g] {
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
		if !p.arr {
			p.pick(out, g, v, p.frac[g])
			continue
		}
		fr := p.fracs[g]
		items := NewVec(p.t.Elem(), fr.N)
		for i := range fr.N {
			if fr.IsNull(i) {
				items.SetNull(i)
				continue
			}
			p.pick(items, i, v, fr.F[i])
		}
		out.A[g] = &Array{Elem: items.T, Items: items}
	}
	return out, nil
}

// pick sets row i of out to the fraction's percentile of the sorted v.
func (p *percentileAcc) pick(out *Vec, i int, v *Vec, frac float64) {
	n := v.N
	if !p.cont {
		k := int(math.Ceil(frac*float64(n))) - 1
		k = max(k, 0)
		out.copyRow(i, v, k)
		return
	}
	pos := frac * float64(n-1)
	lo, hi := int(math.Floor(pos)), int(math.Ceil(pos))
	a, b := v.F[lo], v.F[hi]
	if lo == hi {
		out.F[i] = a
	} else {
		out.F[i] = a + (pos-float64(lo))*(b-a)
	}
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
	arr := frac.Type().IsArray()
	fracType := TFloat8
	if arr {
		fracType, _ = ArrayOf(TFloat8)
	}
	if frac, err = b.coerce(frac, fracType, castImplicit, ""); err != nil {
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
	if arr {
		at, ok := ArrayOf(t)
		if !ok {
			return nil, unsupported("%s over type %s with an array of fractions is not supported", name, t)
		}
		t = at
	}
	call := &aggCall{name: name, args: []Expr{x, frac}, order: []Expr{x}, orderKey: []sortKey{makeSortKey(sb, 0)}, t: t,
		newAcc: func() accum { return &percentileAcc{cont: cont, t: t, arr: arr} }}
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
