package exec

import (
	"math"
	"math/bits"
)

// Cost-based order of inner joins. Once WHERE has been pushed down (each
// table's own conditions sit on its scan), a tree of inner joins — JOIN …
// ON, comma joins, and the swaps buildSmaller made — is one set of items
// and one set of conditions: inner joins commute and associate, and an
// ON condition of an inner join is a WHERE conjunct. reorderInnerJoins
// estimates each item's rows (the table's rows, key lookups and ranges
// as estimateRows has them, times a selectivity per filter conjunct:
// 1/distinct values for col = constant, else PostgreSQL's default
// 0.005 for equality and 1/3 otherwise), each join's output (the
// product times 1/max(distinct keys) per equi-key, ANALYZE statistics
// where there are some, a primary key's distinct count is its rows),
// and a left-deep order's cost: the rows each step produces plus what
// it reads — the new item's rows for a hash join, the rows coming in
// when the new item can be read through an index on its join key (a
// lookup join). Dynamic programming over subsets finds the cheapest
// order for up to maxReorderItems items. The written order is kept
// unless it is estimated at least reorderGain times as costly, so that
// queries written in a sensible order keep their plans; the columns are
// put back in the written order by a projection.

const (
	maxReorderItems = 10
	reorderGain     = 2.0
)

// joinCond is one condition of a flattened join tree over the combined
// columns of its items: l = r when r is set (an equi-join key), else the
// predicate l. set marks the items it reads.
type joinCond struct {
	l, r Expr
	set  uint64
}

// joinItems is a flattened inner-join tree: the items in column order
// and its conditions.
type joinItems struct {
	items []plan
	conds []joinCond
}

// flattenInner flattens p into items when it is a tree of at least one
// inner join; ok is false when it is not one or holds a subquery.
func flattenInner(p plan) (*joinItems, bool) {
	switch x := p.(type) {
	case *joinNode:
		if x.kind != joinInner {
			return nil, false
		}
		l := flattenOrLeaf(x.left)
		r := flattenOrLeaf(x.right)
		nl := len(x.left.columns())
		out := &joinItems{items: append(append([]plan{}, l.items...), r.items...)}
		out.conds = append(out.conds, l.conds...)
		for _, c := range r.conds {
			c.l = shiftCols(c.l, nl)
			if c.r != nil {
				c.r = shiftCols(c.r, nl)
			}
			out.conds = append(out.conds, c)
		}
		for i := range x.leftKeys {
			out.conds = append(out.conds, joinCond{l: x.leftKeys[i], r: shiftCols(x.rightKeys[i], nl)})
		}
		for _, c := range splitAnd(x.residual) {
			if c == nil {
				continue
			}
			out.conds = append(out.conds, joinCond{l: c})
		}
		return out, true
	case *projectNode:
		// buildSmaller's swap: whole items permuted back
		if x.view || x.alias != nil {
			return nil, false
		}
		if _, isJoin := x.input.(*joinNode); !isJoin {
			return nil, false
		}
		in, ok := flattenInner(x.input)
		if !ok {
			return nil, false
		}
		return in.permuted(x.exprs)
	}
	return nil, false
}

// flattenOrLeaf is flattenInner's items, or p as one item.
func flattenOrLeaf(p plan) *joinItems {
	if ji, ok := flattenInner(p); ok {
		return ji
	}
	return &joinItems{items: []plan{p}}
}

// offsets are the items' first columns (and the total at the end).
func (ji *joinItems) offsets() []int {
	off := make([]int, len(ji.items)+1)
	for i, it := range ji.items {
		off[i+1] = off[i] + len(it.columns())
	}
	return off
}

// permuted is ji seen through a projection of plain column references
// that lists whole items in another order; ok is false otherwise.
func (ji *joinItems) permuted(exprs []Expr) (*joinItems, bool) {
	off := ji.offsets()
	if len(exprs) != off[len(ji.items)] {
		return nil, false
	}
	newPos := make([]int, len(exprs)) // input column -> output column
	var order []int
	for k := 0; k < len(exprs); {
		c, ok := exprs[k].(*colRef)
		if !ok {
			return nil, false
		}
		item := -1
		for i := range ji.items {
			if c.idx == off[i] && off[i+1] > off[i] {
				item = i
			}
		}
		if item < 0 {
			return nil, false
		}
		for a := off[item]; a < off[item+1]; a++ {
			cc, ok := exprs[k].(*colRef)
			if !ok || cc.idx != a {
				return nil, false
			}
			newPos[a] = k
			k++
		}
		order = append(order, item)
	}
	if len(order) != len(ji.items) {
		return nil, false
	}
	out := &joinItems{}
	for _, i := range order {
		out.items = append(out.items, ji.items[i])
	}
	remap := func(e Expr) Expr {
		r, _ := rewriteCols(e, func(c *colRef) Expr { return &colRef{idx: newPos[c.idx], t: c.t, name: c.name} })
		return r
	}
	for _, c := range ji.conds {
		nc := joinCond{l: remap(c.l)}
		if c.r != nil {
			nc.r = remap(c.r)
		}
		out.conds = append(out.conds, nc)
	}
	return out, true
}

// reorderInnerJoins returns p with its inner joins in the cheapest
// estimated order (see above), or p when the written order is kept.
func (b *binder) reorderInnerJoins(p plan) plan {
	if h, ok := b.hoistLeftJoins(p); ok {
		return h // its inner tree is ordered there (join_order_outer.go)
	}
	var above []Expr // a filter's conjuncts that stay above
	in := p
	if f, ok := p.(*filterNode); ok {
		in = f.input
	}
	ji, ok := flattenInner(in)
	if !ok || len(ji.items) < 3 || len(ji.items) > maxReorderItems {
		return p
	}
	if f, ok := p.(*filterNode); ok {
		// the conditions left above the joins (comma joins leave one
		// table's conditions there) join the others
		for _, c := range splitAnd(f.pred) {
			if pushable(c) {
				ji.conds = append(ji.conds, joinCond{l: c})
			} else {
				above = append(above, c)
			}
		}
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
	setOf := func(e Expr) (uint64, bool) {
		var s uint64
		bad := false
		walkExpr(e, func(x Expr) {
			switch r := x.(type) {
			case *colRef:
				if r.idx < 0 || r.idx >= off[len(ji.items)] {
					bad = true
					return
				}
				s |= 1 << itemOf(r.idx)
			case *subqueryExpr:
				bad = true // a subquery may read the columns by position
			}
		})
		return s, !bad
	}
	for k := range ji.conds {
		c := &ji.conds[k]
		c.set = 0
		s, ok := setOf(c.l)
		if !ok {
			return p
		}
		if c.r != nil {
			rs, ok := setOf(c.r)
			if !ok {
				return p
			}
			// an equi-key that does not relate exactly two items, one
			// on each side, keeps the written order
			if s == 0 || rs == 0 || s&(s-1) != 0 || rs&(rs-1) != 0 || s == rs {
				return p
			}
			s |= rs
		}
		c.set = s
	}
	// an item's own conditions filter it (pushed into its scan)
	var conds []joinCond
	own := make([][]Expr, len(ji.items))
	for _, c := range ji.conds {
		if c.r == nil && c.set != 0 && c.set&(c.set-1) == 0 {
			i := bits.TrailingZeros64(c.set)
			own[i] = append(own[i], shiftCols(c.l, -off[i]))
			continue
		}
		conds = append(conds, c)
	}
	ji = &joinItems{items: ji.items, conds: conds}
	m := newJoinCostModel(ji, off, itemOf)
	for i, cs := range own {
		s := itemScan(ji.items[i])
		for _, c := range cs {
			m.rows[i] = max(m.rows[i]*conjunctSelectivity(s, c), 1)
		}
	}
	written := make([]int, len(ji.items))
	for i := range written {
		written[i] = i
	}
	best, bestCost := m.bestOrder()
	if best == nil || bestCost*reorderGain > m.cost(written) {
		return p
	}
	for i, cs := range own {
		if len(cs) > 0 {
			ji.items[i] = b.pushFilter(ji.items[i], conjunction(cs))
		}
	}
	out := ji.build(best, off, itemOf, in.columns())
	if len(above) > 0 {
		return &filterNode{input: out, pred: conjunction(above)}
	}
	return out
}

// joinCostModel holds the estimates of one flattened join tree.
type joinCostModel struct {
	ji    *joinItems
	rows  []float64 // per item, after its own filters
	ndv   map[Expr]float64
	off   []int
	items func(int) int
}

func newJoinCostModel(ji *joinItems, off []int, itemOf func(int) int) *joinCostModel {
	m := &joinCostModel{ji: ji, off: off, items: itemOf, ndv: map[Expr]float64{}}
	for _, it := range ji.items {
		m.rows = append(m.rows, itemRows(it))
	}
	return m
}

// itemRows estimates an item's rows.
func itemRows(p plan) float64 {
	sel := 1.0
	for {
		f, ok := bare(p).(*filterNode)
		if !ok {
			break
		}
		s, _ := bare(f.input).(*scanNode)
		for _, c := range splitAnd(f.pred) {
			sel *= conjunctSelectivity(s, c)
		}
		p = f.input
	}
	n := estimateRows(p)
	if n < 0 {
		n = 1000
	}
	return max(float64(n)*sel, 1)
}

// conjunctSelectivity estimates the fraction of rows of scan s (nil:
// not a scan) a filter conjunct keeps.
func conjunctSelectivity(s *scanNode, c Expr) float64 {
	op, ok := c.(*opExpr)
	if !ok || len(op.args) != 2 {
		return 1.0 / 3
	}
	if op.name != "=" {
		return 1.0 / 3
	}
	for k := 0; k < 2; k++ {
		col, ok := op.args[k].(*colRef)
		if !ok || sideOf(op.args[1-k], 0) != 0 {
			continue
		}
		if nd := scanColumnDistinct(s, col.idx); nd > 0 {
			return 1 / nd
		}
	}
	return 0.005
}

// scanColumnDistinct is the distinct count of output column idx of scan
// s: ANALYZE statistics, else the rows of a one-column primary key or
// unique key; 0 when unknown.
func scanColumnDistinct(s *scanNode, idx int) float64 {
	if s == nil || idx < 0 || idx >= len(s.colIdx) {
		return 0
	}
	tc := s.colIdx[idx]
	rows := float64(s.table.Source.RowCount())
	if rpk, ok := rowsPerKey(s.table, tc); ok {
		return max(rows/rpk, 1)
	}
	if len(s.table.PrimaryKey) == 1 && s.table.PrimaryKey[0] == tc {
		return max(rows, 1)
	}
	return 0
}

// distinct estimates the distinct values of a key expression over the
// combined columns: its item's column's when it is a plain column of a
// scan, else the item's rows (keys taken as nearly unique).
func (m *joinCostModel) distinct(e Expr) float64 {
	if nd, ok := m.ndv[e]; ok {
		return nd
	}
	nd := 0.0
	if c, ok := e.(*colRef); ok {
		i := m.items(c.idx)
		s := itemScan(m.ji.items[i])
		nd = scanColumnDistinct(s, c.idx-m.off[i])
		nd = min(nd, m.rows[i])
		if nd <= 0 {
			nd = m.rows[i]
		}
	} else {
		var s uint64
		walkExpr(e, func(x Expr) {
			if r, ok := x.(*colRef); ok {
				s |= 1 << m.items(r.idx)
			}
		})
		nd = 1
		for i := range m.rows {
			if s&(1<<i) != 0 {
				nd = max(nd, m.rows[i])
			}
		}
	}
	m.ndv[e] = nd
	return nd
}

// itemScan is the scan under an item's filters, or nil.
func itemScan(p plan) *scanNode {
	for {
		switch x := bare(p).(type) {
		case *filterNode:
			p = x.input
		case *scanNode:
			return x
		default:
			return nil
		}
	}
}

// card estimates the rows of joining the items of set s.
func (m *joinCostModel) card(s uint64) float64 {
	n := 1.0
	for i, r := range m.rows {
		if s&(1<<i) != 0 {
			n *= r
		}
	}
	for _, c := range m.ji.conds {
		if c.set&^s != 0 || c.set&(c.set-1) == 0 {
			continue // not inside s, or one item's own condition
		}
		if c.r != nil {
			n /= max(m.distinct(c.l), m.distinct(c.r), 1)
		} else {
			n /= 3
		}
	}
	return max(n, 1)
}

// stepCost is the cost of joining item i to the items of s.
func (m *joinCostModel) stepCost(s uint64, i int) float64 {
	in := m.card(s)
	out := m.card(s | 1<<i)
	cost := out + in + m.rows[i] // hash join: build i, probe the rows in
	if m.indexed(s, i) {
		cost = min(cost, out+in*2) // lookups by the incoming keys
	}
	return cost
}

// indexed reports whether item i can be read by lookups on a key column
// an equi-key joins to the items of s.
func (m *joinCostModel) indexed(s uint64, i int) bool {
	sc := itemScan(m.ji.items[i])
	if sc == nil || sc.keyVals != nil {
		return false
	}
	kl, ok := sc.table.Source.(KeyLookupSource)
	if !ok {
		return false
	}
	bit := uint64(1) << i
	for _, c := range m.ji.conds {
		if c.r == nil || c.set&bit == 0 || c.set&^(s|bit) != 0 {
			continue
		}
		for _, side := range []Expr{c.l, c.r} {
			col, ok := side.(*colRef)
			if !ok || m.items(col.idx) != i {
				continue
			}
			tc := sc.colIdx[col.idx-m.off[i]]
			for _, kc := range kl.KeyColumns() {
				if kc == tc {
					return true
				}
			}
		}
	}
	return false
}

// cost is a left-deep order's cost.
func (m *joinCostModel) cost(order []int) float64 {
	s := uint64(1) << order[0]
	total := m.rows[order[0]]
	for _, i := range order[1:] {
		total += m.stepCost(s, i)
		s |= 1 << i
	}
	return total
}

// bestOrder is the cheapest left-deep order (dynamic programming over
// the subsets of items).
func (m *joinCostModel) bestOrder() ([]int, float64) {
	n := len(m.rows)
	full := uint64(1)<<n - 1
	cost := make([]float64, full+1)
	last := make([]int8, full+1)
	for s := range cost {
		cost[s] = math.Inf(1)
	}
	for i := 0; i < n; i++ {
		cost[1<<i] = m.rows[i]
		last[1<<i] = int8(i)
	}
	for s := uint64(1); s <= full; s++ {
		if math.IsInf(cost[s], 1) {
			continue
		}
		for i := 0; i < n; i++ {
			if s&(1<<i) != 0 {
				continue
			}
			t := s | 1<<i
			if c := cost[s] + m.stepCost(s, i); c < cost[t] {
				cost[t] = c
				last[t] = int8(i)
			}
		}
	}
	order := make([]int, n)
	for s, k := full, n-1; k >= 0; k-- {
		order[k] = int(last[s])
		s &^= 1 << last[s]
	}
	return order, cost[full]
}

// build makes the left-deep chain of order with the conditions placed
// at the first join that has their items, topped by a projection that
// restores the written column order cols.
func (ji *joinItems) build(order []int, off []int, itemOf func(int) int, cols []colInfo) plan {
	newOff := make([]int, len(ji.items))
	at := 0
	for _, i := range order {
		newOff[i] = at
		at += len(ji.items[i].columns())
	}
	remap := func(e Expr, base int) Expr {
		r, _ := rewriteCols(e, func(c *colRef) Expr {
			i := itemOf(c.idx)
			return &colRef{idx: newOff[i] + c.idx - off[i] - base, t: c.t, name: c.name}
		})
		return r
	}
	used := make([]bool, len(ji.conds))
	var chain plan
	placed := uint64(0)
	for _, i := range order {
		bit := uint64(1) << i
		leaf := ji.items[i]
		if chain == nil {
			chain, placed = leaf, bit
			var own []Expr
			for k, c := range ji.conds {
				if !used[k] && c.set&^bit == 0 {
					used[k] = true
					own = append(own, remap(c.l, 0))
				}
			}
			if len(own) > 0 {
				chain = &filterNode{input: chain, pred: conjunction(own)}
			}
			continue
		}
		nl := newOff[i]
		j := &joinNode{left: chain, right: leaf, kind: joinInner,
			cols: append(append([]colInfo{}, chain.columns()...), leaf.columns()...)}
		var residual []Expr
		for k, c := range ji.conds {
			if used[k] || c.set&^(placed|bit) != 0 {
				continue
			}
			used[k] = true
			if c.r != nil {
				if ls := condSet(c.l, itemOf); ls == bit {
					j.leftKeys = append(j.leftKeys, remap(c.r, 0))
					j.rightKeys = append(j.rightKeys, remap(c.l, nl))
				} else {
					j.leftKeys = append(j.leftKeys, remap(c.l, 0))
					j.rightKeys = append(j.rightKeys, remap(c.r, nl))
				}
				continue
			}
			residual = append(residual, remap(c.l, 0))
		}
		j.residual = conjunction(residual)
		chain, placed = j, placed|bit
	}
	restore := make([]Expr, 0, len(cols))
	for idx, c := range cols {
		i := itemOf(idx)
		restore = append(restore, &colRef{idx: newOff[i] + idx - off[i], t: c.t, name: c.name})
	}
	return &projectNode{input: chain, exprs: restore, cols: cols}
}

// condSet is the items e reads.
func condSet(e Expr, itemOf func(int) int) uint64 {
	var s uint64
	walkExpr(e, func(x Expr) {
		if r, ok := x.(*colRef); ok {
			s |= 1 << itemOf(r.idx)
		}
	})
	return s
}
