package exec

// Conditions move below joins as in PostgreSQL's planner: a WHERE
// conjunct that reads the columns of one join input only is applied to
// that input (both inputs of an inner join, the preserved side of a left,
// semi or anti join), so a condition such as e1.src = 1 reaches e1's
// scan, becomes a key lookup there, and the join above sees a small
// input (ops_indexjoin.go). Conjuncts with subqueries or volatile calls
// stay where they were written.

// pushBelowJoin pushes the single-input conjuncts of pred into input
// when it is a join (or a column-renaming projection over one, as
// buildSmaller and USING joins make); rest is what stays above (nil:
// nothing). ok is false when input is no such node or nothing moved.
func (b *binder) pushBelowJoin(input plan, pred Expr) (out plan, rest Expr, ok bool) {
	switch x := input.(type) {
	case *projectNode:
		if x.view || x.alias != nil {
			return nil, nil, false
		}
		if _, isJoin := x.input.(*joinNode); !isJoin {
			return nil, nil, false
		}
		var down, stay []Expr
		for _, c := range splitAnd(pred) {
			if m, ok := mapThroughColumns(c, x.exprs); ok && pushable(c) {
				down = append(down, m)
			} else {
				stay = append(stay, c)
			}
		}
		if len(down) == 0 {
			return nil, nil, false
		}
		x.input = b.pushFilter(x.input, conjunction(down))
		return x, conjunction(stay), true
	case *joinNode:
		nl := len(x.left.columns())
		var left, right, stay []Expr
		for _, c := range splitAnd(pred) {
			if !pushable(c) {
				stay = append(stay, c)
				continue
			}
			switch side := sideOf(c, nl); {
			case side == 1 && x.kind != joinRight && x.kind != joinFull:
				left = append(left, c)
			case side == 2 && x.kind == joinInner:
				right = append(right, shiftCols(c, -nl))
			default:
				stay = append(stay, c)
			}
		}
		if len(left) == 0 && len(right) == 0 {
			return nil, nil, false
		}
		if len(left) > 0 {
			x.left = b.pushFilter(x.left, conjunction(left))
		}
		if len(right) > 0 {
			x.right = b.pushFilter(x.right, conjunction(right))
		}
		return x, conjunction(stay), true
	}
	return nil, nil, false
}

// pushable reports whether a conjunct may be evaluated below where it
// was written: no subqueries (their plans are bound to the row shape
// above) and no volatile calls (their number of calls is observable).
func pushable(c Expr) bool {
	if volatileCalls(c) > 0 {
		return false
	}
	ok := true
	walkExpr(c, func(x Expr) {
		if _, sub := x.(*subqueryExpr); sub {
			ok = false
		}
	})
	return ok
}

// mapThroughColumns rewrites e over a projection's output into e over its
// input when every column e reads is a plain column of the input.
func mapThroughColumns(e Expr, exprs []Expr) (Expr, bool) {
	ok := true
	out, _ := rewriteCols(e, func(c *colRef) Expr {
		if c.idx < 0 || c.idx >= len(exprs) {
			ok = false
			return c
		}
		src, isCol := exprs[c.idx].(*colRef)
		if !isCol || src.t.OID != c.t.OID || src.t.Mod != c.t.Mod {
			ok = false
			return c
		}
		return &colRef{idx: src.idx, t: src.t, name: c.name}
	})
	return out, ok
}
