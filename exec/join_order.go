package exec

// Comma joins (FROM a, b, c WHERE …) are bound left-deep in FROM order
// and their WHERE conjuncts become join conditions (pushFilter). When the
// FROM order puts an item before anything it is related to — catalog
// queries of drivers list FROM pg_namespace pkn, pg_class pkc,
// pg_attribute pka, pg_namespace fkn, pg_class fkc, … — that order joins
// unrelated items as a cross product first (every attribute of every
// class times every namespace) before the conditions that relate them
// can apply. reorderCrossJoins joins instead, greedily, the first item
// in FROM order that a conjunct relates to the items already joined,
// and puts the columns back in FROM order with a projection, so the
// result is the same relation (inner joins commute) without the cross
// products.

// reorderCrossJoins reorders the left-deep chain of cross joins j for
// conds (WHERE conjuncts over j's columns). It returns the new chain, the
// conjuncts rewritten for its column order and the projection that
// restores j's column order; ok is false when the FROM order is kept.
func reorderCrossJoins(j *joinNode, conds []Expr) (*joinNode, []Expr, []Expr, bool) {
	var leaves []plan
	var n plan = j
	for {
		jn, ok := n.(*joinNode)
		if !ok || !isCrossJoin(jn) {
			break
		}
		leaves = append(leaves, jn.right)
		n = jn.left
	}
	leaves = append(leaves, n)
	if len(leaves) < 3 {
		return nil, nil, nil, false
	}
	for a, b := 0, len(leaves)-1; a < b; a, b = a+1, b-1 {
		leaves[a], leaves[b] = leaves[b], leaves[a]
	}
	off := make([]int, len(leaves)+1)
	for i, l := range leaves {
		off[i+1] = off[i] + len(l.columns())
	}
	leafOf := func(idx int) int {
		for i := range leaves {
			if idx < off[i+1] {
				return i
			}
		}
		return len(leaves) - 1
	}
	// the leaves each conjunct reads
	sets := make([]uint64, len(conds))
	if len(leaves) > 64 {
		return nil, nil, nil, false
	}
	for k, c := range conds {
		bad := false
		walkExpr(c, func(x Expr) {
			switch r := x.(type) {
			case *colRef:
				sets[k] |= 1 << leafOf(r.idx)
			case *subqueryExpr:
				bad = true
			}
		})
		if bad {
			return nil, nil, nil, false // a subquery may read the columns by position
		}
	}
	order := []int{0}
	placed := uint64(1)
	changed := false
	for len(order) < len(leaves) {
		next := -1
		for i := range leaves {
			bit := uint64(1) << i
			if placed&bit != 0 {
				continue
			}
			for _, s := range sets {
				if s&bit != 0 && s&placed != 0 && s&^(placed|bit) == 0 {
					next = i
					break
				}
			}
			if next >= 0 {
				break
			}
		}
		if next < 0 { // nothing relates: the first remaining item
			for i := range leaves {
				if placed&(uint64(1)<<i) == 0 {
					next = i
					break
				}
			}
		}
		if next != len(order) {
			changed = true
		}
		order = append(order, next)
		placed |= 1 << next
	}
	if !changed {
		return nil, nil, nil, false
	}
	newOff := make([]int, len(leaves))
	var chain plan
	at := 0
	for _, i := range order {
		newOff[i] = at
		at += len(leaves[i].columns())
		if chain == nil {
			chain = leaves[i]
			continue
		}
		chain = &joinNode{left: chain, right: leaves[i], kind: joinInner,
			cols: append(append([]colInfo{}, chain.columns()...), leaves[i].columns()...)}
	}
	remap := func(idx int) int {
		l := leafOf(idx)
		return newOff[l] + idx - off[l]
	}
	out := make([]Expr, len(conds))
	for k, c := range conds {
		out[k], _ = rewriteCols(c, func(r *colRef) Expr { return &colRef{idx: remap(r.idx), t: r.t, name: r.name} })
	}
	restore := make([]Expr, 0, off[len(leaves)])
	for idx, c := range j.columns() {
		restore = append(restore, &colRef{idx: remap(idx), t: c.t, name: c.name})
	}
	return chain.(*joinNode), out, restore, true
}
