package exec

import q "github.com/pggraph/pggraph/internal/sqlparse"

// mode() WITHIN GROUP (ORDER BY x): the most frequent non-NULL x; among
// equally frequent values the first in the ORDER BY order wins. The rows
// reach the accumulator sorted by x (as for percentile_disc), so equal
// values arrive as runs.

type modeAcc struct {
	t     Type
	best  []*Vec // per group: the best value so far (one row)
	count []int  // its run length
	cur   []*Vec // the current run's value
	run   []int
}

func (m *modeAcc) update(_ *evalCtx, args []*Vec, rows, gids []int32, ng int) error {
	m.best, m.count, m.cur, m.run = growTo(m.best, ng), growTo(m.count, ng), growTo(m.cur, ng), growTo(m.run, ng)
	x := args[0]
	for k, r := range rows {
		if x.IsNull(int(r)) {
			continue
		}
		g := gids[k]
		if m.cur[g] != nil && cmpRows(m.cur[g], 0, x, int(r)) == 0 {
			m.run[g]++
		} else {
			m.cur[g] = x.Gather([]int32{r})
			m.run[g] = 1
		}
		if m.run[g] > m.count[g] {
			m.best[g], m.count[g] = m.cur[g], m.run[g]
		}
	}
	return nil
}

func (m *modeAcc) result(ng int) (*Vec, error) {
	m.best = growTo(m.best, ng)
	out := NewVec(m.t, ng)
	for g := 0; g < ng; g++ {
		if m.best[g] == nil {
			out.SetNull(g)
			continue
		}
		out.copyRow(g, m.best[g], 0)
	}
	return out, nil
}

// bindModeAgg binds mode() WITHIN GROUP (ORDER BY x) [FILTER (...)].
func (b *binder) bindModeAgg(fc *q.FuncCall, sc *scope) (Expr, error) {
	if b.agg == nil || b.aggLevel != "" {
		where := b.aggLevel
		if where == "" {
			where = "this context"
		}
		return nil, errf(CodeGroupingError, "aggregate functions are not allowed in %s", where)
	}
	if len(fc.Args) != 0 || len(fc.AggOrder) != 1 {
		return nil, errf(CodeUndefinedFunction, "function mode() does not exist")
	}
	saved := b.agg
	b.agg = nil
	defer func() { b.agg = saved }()
	sb := fc.AggOrder[0].GetSortBy()
	x, err := b.bindExpr(sb.Node, sc)
	if err != nil {
		return nil, err
	}
	if x.Type().OID == OIDUnknown {
		return nil, errf(CodeDatatypeMismatch, "could not determine polymorphic type because input has type unknown")
	}
	t := x.Type()
	t.Mod = -1
	call := &aggCall{name: "mode", args: []Expr{x}, order: []Expr{x}, orderKey: []sortKey{makeSortKey(sb, 0)}, t: t,
		newAcc: func() accum { return &modeAcc{t: t} }}
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
