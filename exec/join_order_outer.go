package exec

import "math/bits"

// Left joins under inner joins. FROM big b LEFT JOIN x ON x.id = b.xid
// JOIN person p ON p.id = b.pid WHERE p.id = 1 is written so that the
// left join reads all of b before the selective inner join can apply.
// PostgreSQL's outer-join identity
//
//	(A ⟕ B on Pab) ⋈ C on Pac  =  (A ⋈ C on Pac) ⟕ B on Pab
//
// (sound when Pac reads no column of B) lets the inner joins run first:
// hoistLeftJoins lifts the left joins of an inner-join tree's items —
// each item's stack A ⟕ B1 ⟕ B2 … whose right sides no inner condition
// and no condition kept below reads — above the inner joins of the A
// parts, applied in their written nesting order (so Bk's condition still
// sees A and B1…Bk-1), and the inner tree is then ordered by cost as any
// other (join_order_cost.go). The WHERE conjuncts that read no hoisted
// right side move into the inner tree; the others stay above. A
// projection puts the columns back in the written order. It is done only
// when the inner joins are estimated to keep at most 1/reorderGain of the
// rows of every A they are joined to (the left joins then see fewer
// rows, and each can be a lookup join into B), and only for right sides
// that are table scans (under filters): nothing else is moved.

// leftStack is one inner-join item's left joins peeled off its base A.
type leftStack struct {
	base  plan        // A
	joins []*joinNode // innermost first: joins[0].left is base
	width int         // A's columns
}

// peelLeftJoins splits item p into its base and the left joins over it
// whose right sides are table scans; unread(lo, hi) reports whether the
// item's columns [lo, hi) (item-local) are read by no condition kept in
// the inner tree.
func peelLeftJoins(p plan, unread func(lo, hi int) bool) leftStack {
	var outer []*joinNode // outermost first
	cur := p
	for {
		j, ok := cur.(*joinNode)
		if !ok || j.kind != joinLeft || itemScan(j.right) == nil {
			break
		}
		nl := len(j.left.columns())
		if !unread(nl, nl+len(j.right.columns())) {
			break
		}
		outer = append(outer, j)
		cur = j.left
	}
	st := leftStack{base: cur, width: len(cur.columns())}
	for k := len(outer) - 1; k >= 0; k-- {
		st.joins = append(st.joins, outer[k])
	}
	// a right side read by a condition stops the peel at its join: the
	// joins below it stay (they are under a kept join)
	return st
}

// hoistLeftJoins rewrites p (a filter over, or, a tree of inner joins)
// as described above; ok is false when nothing is hoisted.
func (b *binder) hoistLeftJoins(p plan) (plan, bool) {
	var where []Expr
	in := p
	if f, ok := p.(*filterNode); ok {
		in, where = f.input, splitAnd(f.pred)
	}
	ji, ok := flattenInner(in)
	if !ok || len(ji.items) > maxReorderItems {
		return p, false
	}
	off := ji.offsets()
	total := off[len(ji.items)]
	// read marks the columns a condition that must stay in the inner
	// tree reads: the join conditions and the pushable WHERE conjuncts
	read := make([]bool, total)
	mark := func(e Expr) bool {
		bad := false
		walkExpr(e, func(x Expr) {
			switch r := x.(type) {
			case *colRef:
				if r.idx < 0 || r.idx >= total {
					bad = true
					return
				}
				read[r.idx] = true
			case *subqueryExpr:
				bad = true // a subquery may read the columns by position
			}
		})
		return !bad
	}
	for _, c := range ji.conds {
		if !mark(c.l) || (c.r != nil && !mark(c.r)) {
			return p, false
		}
	}
	stacks := make([]leftStack, len(ji.items))
	found := false
	for i, it := range ji.items {
		stacks[i] = peelLeftJoins(it, func(lo, hi int) bool {
			for k := off[i] + lo; k < off[i]+hi; k++ {
				if read[k] {
					return false
				}
			}
			return true
		})
		found = found || len(stacks[i].joins) > 0
	}
	if !found {
		return p, false
	}
	// hoisted[k]: column k of the written layout belongs to a hoisted
	// right side
	hoisted := make([]bool, total)
	for i, st := range stacks {
		for k := off[i] + st.width; k < off[i+1]; k++ {
			hoisted[k] = true
		}
	}
	var pushed, above []Expr
	for _, c := range where {
		readsHoisted, bad := false, false
		walkExpr(c, func(x Expr) {
			switch r := x.(type) {
			case *colRef:
				if r.idx < 0 || r.idx >= total {
					bad = true
				} else if hoisted[r.idx] {
					readsHoisted = true
				}
			case *subqueryExpr:
				bad = true
			}
		})
		if pushable(c) && !readsHoisted && !bad {
			pushed = append(pushed, c)
		} else {
			above = append(above, c)
		}
	}
	// the new layout: the bases (inner tree), then the right sides in
	// the order they are applied
	newPos := make([]int, total)
	innerOff := make([]int, len(ji.items)+1)
	for i, st := range stacks {
		innerOff[i+1] = innerOff[i] + st.width
		for k := 0; k < st.width; k++ {
			newPos[off[i]+k] = innerOff[i] + k
		}
	}
	at := innerOff[len(ji.items)]
	for i, st := range stacks {
		k := off[i] + st.width
		for _, j := range st.joins {
			for n := range j.right.columns() {
				newPos[k+n] = at + n
			}
			k += len(j.right.columns())
			at += len(j.right.columns())
		}
	}
	remap := func(e Expr) Expr {
		r, _ := rewriteCols(e, func(c *colRef) Expr { return &colRef{idx: newPos[c.idx], t: c.t, name: c.name} })
		return r
	}
	inner := &joinItems{}
	var innerCols []colInfo
	for _, st := range stacks {
		inner.items = append(inner.items, st.base)
		innerCols = append(innerCols, st.base.columns()...)
	}
	itemOf := func(idx int) int {
		for i := range inner.items {
			if idx < innerOff[i+1] {
				return i
			}
		}
		return len(inner.items) - 1
	}
	for _, c := range ji.conds {
		nc := joinCond{l: remap(c.l)}
		nc.set = condSet(nc.l, itemOf)
		if c.r != nil {
			nc.r = remap(c.r)
			nc.set |= condSet(nc.r, itemOf)
		}
		inner.conds = append(inner.conds, nc)
	}
	written := make([]int, len(inner.items))
	for i := range written {
		written[i] = i
	}
	var tree plan = inner.build(written, innerOff, itemOf, innerCols)
	if len(pushed) > 0 {
		var ps []Expr
		for _, c := range pushed {
			ps = append(ps, remap(c))
		}
		tree = b.pushFilter(tree, conjunction(ps))
	}
	// worth it only when the inner joins shrink every hoisted base
	rows := innerJoinRows(tree)
	for _, st := range stacks {
		if len(st.joins) > 0 && rows*reorderGain > itemRows(st.base) {
			return p, false
		}
	}
	tree = b.reorderInnerJoins(tree)
	for i, st := range stacks {
		for _, j := range st.joins {
			tree = relinkLeftJoin(tree, j, func(local int) int { return newPos[off[i]+local] })
		}
	}
	restore := make([]Expr, total)
	for k, c := range in.columns() {
		restore[k] = &colRef{idx: newPos[k], t: c.t, name: c.name}
	}
	var out plan = &projectNode{input: tree, exprs: restore, cols: in.columns()}
	if len(above) > 0 {
		out = &filterNode{input: out, pred: conjunction(above)}
	}
	return out, true
}

// relinkLeftJoin is left join j applied to left instead of its own left
// input, whose column k is column pos(k) of left.
func relinkLeftJoin(left plan, j *joinNode, pos func(int) int) *joinNode {
	nl, nw := len(j.left.columns()), len(left.columns())
	lk := make([]Expr, len(j.leftKeys))
	for k, e := range j.leftKeys {
		lk[k], _ = rewriteCols(e, func(c *colRef) Expr { return &colRef{idx: pos(c.idx), t: c.t, name: c.name} })
	}
	var res Expr
	if j.residual != nil {
		res, _ = rewriteCols(j.residual, func(c *colRef) Expr {
			if c.idx < nl {
				return &colRef{idx: pos(c.idx), t: c.t, name: c.name}
			}
			return &colRef{idx: nw + c.idx - nl, t: c.t, name: c.name}
		})
	}
	return &joinNode{left: left, right: j.right, kind: joinLeft, leftKeys: lk, rightKeys: j.rightKeys, residual: res,
		cols: append(append([]colInfo{}, left.columns()...), j.right.columns()...)}
}

// innerJoinRows estimates the rows of p, a tree of inner joins (under
// filters) or one item, as the join order's cost model does.
func innerJoinRows(p plan) float64 {
	in := p
	var extra []Expr
	if f, ok := p.(*filterNode); ok {
		in, extra = f.input, splitAnd(f.pred)
	}
	ji, ok := flattenInner(in)
	if !ok {
		return itemRows(p)
	}
	off := ji.offsets()
	itemOf := func(idx int) int {
		for i := range ji.items {
			if idx < off[i+1] {
				return i
			}
		}
		return len(ji.items) - 1
	}
	for _, c := range extra {
		ji.conds = append(ji.conds, joinCond{l: c})
	}
	var conds []joinCond
	own := make([][]Expr, len(ji.items))
	for _, c := range ji.conds {
		c.set = condSet(c.l, itemOf)
		if c.r != nil {
			c.set |= condSet(c.r, itemOf)
		}
		if c.r == nil && c.set != 0 && c.set&(c.set-1) == 0 {
			i := bits.TrailingZeros64(c.set)
			own[i] = append(own[i], shiftCols(c.l, -off[i]))
			continue
		}
		conds = append(conds, c)
	}
	m := newJoinCostModel(&joinItems{items: ji.items, conds: conds}, off, itemOf)
	for i, cs := range own {
		s := itemScan(ji.items[i])
		for _, c := range cs {
			m.rows[i] = max(m.rows[i]*conjunctSelectivity(s, c), 1)
		}
	}
	return m.card(uint64(1)<<len(ji.items) - 1)
}
