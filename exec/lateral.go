package exec

// lateralNode joins each left row with the rows its LATERAL subquery
// returns for that row (the row is pushed on the outer stack, where the
// subquery's references to earlier FROM items read it). cond is a JOIN
// LATERAL ... ON condition over the combined row (left columns, then the
// subquery's); outer pads left rows without a matching row with NULLs
// (LEFT JOIN LATERAL).
type lateralNode struct {
	left  plan
	sub   plan
	cond  Expr
	outer bool
	cols  []colInfo
}

func (l *lateralNode) columns() []colInfo { return l.cols }

func (l *lateralNode) run(ec *evalCtx, emit func(*Batch) error) error {
	subCols := l.sub.columns()
	return l.left.run(ec, func(b *Batch) error {
		var li []int32
		subBuf := newBuffer(typesOf(subCols))
		defer subBuf.free(ec.run)
		var firstErr error
		forEach(b.N, b.Sel, func(i int) {
			if firstErr != nil {
				return
			}
			if err := checkCancel(ec.run.ctx); err != nil {
				firstErr = err
				return
			}
			inner := *ec
			inner.outer = append(append([]outerRow{}, ec.outer...), outerRow{b: b, row: i})
			got, err := collect(&inner, l.sub)
			if err != nil {
				firstErr = err
				return
			}
			defer got.free(ec.run)
			sb := got.batch()
			if l.cond != nil && sb.N > 0 {
				if sb, err = l.matching(ec, b, i, sb); err != nil {
					firstErr = err
					return
				}
			}
			n := sb.Live()
			if n == 0 && l.outer {
				sb = &Batch{N: 1, Cols: make([]*Vec, len(subCols))}
				for c, ci := range subCols {
					sb.Cols[c] = nullVec(ci.t, 1)
				}
				n = 1
			}
			if n == 0 {
				return
			}
			if firstErr = subBuf.add(ec.run, sb); firstErr != nil {
				return
			}
			for k := 0; k < n; k++ {
				li = append(li, int32(i))
			}
		})
		if firstErr != nil {
			return firstErr
		}
		if len(li) == 0 {
			return nil
		}
		out := &Batch{N: len(li), Cols: make([]*Vec, 0, len(b.Cols)+len(subCols))}
		for _, c := range b.Cols {
			out.Cols = append(out.Cols, c.Gather(li))
		}
		out.Cols = append(out.Cols, subBuf.batch().Cols...)
		return emit(out)
	})
}

// matching narrows the subquery rows for left row i to those satisfying
// the ON condition.
func (l *lateralNode) matching(ec *evalCtx, left *Batch, i int, sub *Batch) (*Batch, error) {
	rep := make([]int32, sub.N)
	for k := range rep {
		rep[k] = int32(i)
	}
	comb := &Batch{N: sub.N, Cols: make([]*Vec, 0, len(left.Cols)+len(sub.Cols))}
	for _, c := range left.Cols {
		comb.Cols = append(comb.Cols, c.Gather(rep))
	}
	comb.Cols = append(comb.Cols, sub.Cols...)
	v, err := l.cond.Eval(ec, comb, nil)
	if err != nil {
		return nil, err
	}
	sel := selectTrue(v, comb.N, nil)
	if len(sel) == sub.N {
		return sub, nil
	}
	out := &Batch{N: len(sel), Cols: make([]*Vec, len(sub.Cols))}
	for c, col := range sub.Cols {
		out.Cols[c] = col.Gather(sel)
	}
	return out, nil
}
