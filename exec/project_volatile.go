package exec

// Volatile calls in a select list are drawn in PostgreSQL's order: row by
// row, and within a row left to right across the target list, so
// SELECT nextval('s'), nextval('s') FROM generate_series(1, 2) gives
// (1, 2), (3, 4). Vectorized evaluation computes one column for every row
// before the next column, which would give (1, 3), (2, 4). A projection
// with at most one volatile call keeps the vectorized path (one call per
// row in row order is already PostgreSQL's order); otherwise the
// expressions holding volatile calls are evaluated one row at a time over
// single-row views of the input, and the others stay vectorized (they
// have no side effects, so their evaluation order is not observable).

// volatileCalls counts the volatile function calls in e (not inside
// subquery plans).
func volatileCalls(e Expr) int {
	n := 0
	walkExpr(e, func(x Expr) {
		if op, ok := x.(*opExpr); ok && op.isVolatile() {
			n++
		}
	})
	return n
}

// volatileSortAliases models PostgreSQL's sort input: a volatile ORDER BY
// key is computed once below the sort, and every select-list entry equal
// to it reads that value (SELECT nextval('s'), nextval('s') ... ORDER BY 1
// gives two equal columns; with ORDER BY id it gives two calls). The
// result maps each column to the column it repeats, or -1; nil if none.
func volatileSortAliases(exprs []Expr, keys []sortKey) []int {
	var alias []int
	for _, k := range keys {
		e := exprs[k.col]
		if volatileCalls(e) == 0 {
			continue
		}
		key := e.String()
		for i, x := range exprs {
			if i == k.col || x.String() != key {
				continue
			}
			if alias == nil {
				alias = make([]int, len(exprs))
				for j := range alias {
					alias[j] = -1
				}
			}
			if alias[k.col] < 0 && alias[i] < 0 {
				alias[i] = k.col
			}
		}
	}
	return alias
}

// rowMajorExprs returns which of exprs must be evaluated row by row, or
// nil when vectorized evaluation keeps PostgreSQL's call order. Columns
// aliased to another (alias[i] >= 0) are not evaluated.
func rowMajorExprs(exprs []Expr, alias []int) []bool {
	total := 0
	counts := make([]int, len(exprs))
	for i, e := range exprs {
		if alias != nil && alias[i] >= 0 {
			continue
		}
		counts[i] = volatileCalls(e)
		total += counts[i]
	}
	if total <= 1 && alias == nil {
		return nil
	}
	out := make([]bool, len(exprs))
	for i, c := range counts {
		out[i] = c > 0
	}
	return out
}

// projectBatchOrdered is projectBatch with the expressions marked in
// rowMajor evaluated row by row (see above); rowMajor nil is projectBatch.
func projectBatchOrdered(ec *evalCtx, exprs []Expr, rowMajor []bool, alias []int, b *Batch) (*Batch, error) {
	if rowMajor == nil {
		return projectBatch(ec, exprs, b)
	}
	live := b.Live()
	out := &Batch{N: live, Cols: make([]*Vec, len(exprs))}
	defer func() {
		for i, a := range alias {
			if a >= 0 {
				out.Cols[i] = out.Cols[a] // Vecs are immutable: sharing is safe
			}
		}
	}()
	for i, e := range exprs {
		if alias != nil && alias[i] >= 0 {
			continue
		}
		if rowMajor[i] {
			out.Cols[i] = NewVec(e.Type(), live)
			continue
		}
		v, err := e.Eval(ec, b, b.Sel)
		if err != nil {
			return nil, err
		}
		if b.Sel != nil {
			v = v.Gather(b.Sel)
		}
		out.Cols[i] = v
	}
	one := &Batch{N: 1, Cols: make([]*Vec, len(b.Cols))}
	for k := 0; k < live; k++ {
		r := k
		if b.Sel != nil {
			r = int(b.Sel[k])
		}
		for c, v := range b.Cols {
			one.Cols[c] = rowView(v, r)
		}
		for i, e := range exprs {
			if !rowMajor[i] || (alias != nil && alias[i] >= 0) {
				continue
			}
			v, err := e.Eval(ec, one, nil)
			if err != nil {
				return nil, err
			}
			out.Cols[i].copyRow(k, v, 0)
		}
	}
	return out, nil
}

// rowView is a one-row vector sharing row r of v (never written: Vecs are
// immutable once emitted).
func rowView(v *Vec, r int) *Vec {
	if v == nil {
		return nil
	}
	w := &Vec{T: v.T, N: 1}
	if v.Nulls != nil {
		w.Nulls = v.Nulls[r : r+1]
	}
	switch v.T.Kind() {
	case KInt:
		w.I = v.I[r : r+1]
	case KFloat:
		w.F = v.F[r : r+1]
	case KBool:
		w.B = v.B[r : r+1]
	case KStr:
		w.S = v.S[r : r+1]
	case KNum:
		w.D = v.D[r : r+1]
	case KInterval:
		w.V = v.V[r : r+1]
	case KArray:
		w.A = v.A[r : r+1]
	}
	return w
}
