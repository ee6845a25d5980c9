package exec

// lateralNode joins each left row with the rows its LATERAL subquery
// returns for that row (the row is pushed on the outer stack, where the
// subquery's references to earlier FROM items read it). outer pads left
// rows without matches with NULLs (LEFT JOIN LATERAL ... ON true).
type lateralNode struct {
	left  plan
	sub   plan
	outer bool
	cols  []colInfo
}

func (l *lateralNode) columns() []colInfo { return l.cols }

func (l *lateralNode) run(ec *evalCtx, emit func(*Batch) error) error {
	subCols := l.sub.columns()
	return l.left.run(ec, func(b *Batch) error {
		var li []int32
		subBuf := newBuffer(typesOf(subCols))
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
			n := got.n
			if n == 0 && l.outer {
				pad := &Batch{N: 1, Cols: make([]*Vec, len(subCols))}
				for c, ci := range subCols {
					pad.Cols[c] = nullVec(ci.t, 1)
				}
				if firstErr = subBuf.add(ec.run, pad); firstErr != nil {
					return
				}
				n = 1
			} else if firstErr = subBuf.add(ec.run, got.batch()); firstErr != nil {
				return
			}
			got.free(ec.run)
			for k := 0; k < n; k++ {
				li = append(li, int32(i))
			}
		})
		defer subBuf.free(ec.run)
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
