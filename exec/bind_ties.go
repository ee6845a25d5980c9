package exec

// tiesLimitNode is OFFSET / FETCH FIRST n ROWS WITH TIES over a sort: after
// the n-th row it keeps emitting rows that sort equal to it.
type tiesLimitNode struct {
	input         plan
	limit, offset Expr
	keys          []sortKey
}

func (l *tiesLimitNode) columns() []colInfo { return l.input.columns() }

func (l *tiesLimitNode) run(ec *evalCtx, emit func(*Batch) error) error {
	lim, off := int64(-1), int64(0)
	if l.limit != nil {
		v, err := evalConst(ec, l.limit)
		if err != nil {
			return err
		}
		if v.IsNull(0) {
			return errf(CodeInvalidRowCountLimit, "row count cannot be null in FETCH FIRST ... WITH TIES clause")
		}
		if lim = v.I[0]; lim < 0 {
			return errf(CodeInvalidRowCountLimit, "LIMIT must not be negative")
		}
	}
	if l.offset != nil {
		v, err := evalConst(ec, l.offset)
		if err != nil {
			return err
		}
		if !v.IsNull(0) {
			if off = v.I[0]; off < 0 {
				return errf(CodeInvalidRowCountOffset, "OFFSET must not be negative")
			}
		}
	}
	if lim == 0 {
		return nil
	}
	var seen, sent int64
	var last []*Vec // the batch holding the n-th row (batches are immutable)
	lastRow := 0
	err := l.input.run(ec, func(b *Batch) error {
		sel := b.Sel
		if sel == nil {
			sel = allRows(b.N)
		}
		var keep []int32
		done := false
		for _, i := range sel {
			seen++
			if seen <= off {
				continue
			}
			if lim >= 0 && sent >= lim {
				if cmpKeysAcross(last, lastRow, b.Cols, int(i), l.keys) != 0 {
					done = true
					break
				}
			}
			keep = append(keep, i)
			sent++
			if sent == lim {
				last, lastRow = b.Cols, int(i)
			}
		}
		if len(keep) > 0 {
			if err := emit(&Batch{Cols: b.Cols, N: b.N, Sel: keep}); err != nil {
				return err
			}
		}
		if done {
			return errStop
		}
		return nil
	})
	if err == errStop {
		return nil
	}
	return err
}
