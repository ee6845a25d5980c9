package exec

// Join output columns. A join materializes its output by gathering the
// matched rows' values of every column of both sides; a traversal reads
// few of them (a 3-hop count reads one column of its twelve), and the
// gathers of the others (each a new vector, NULL placeholders included)
// were most of a short traversal's allocations. markJoinNeeds records in
// each join, once per bound plan, which of its output columns the
// operators above read; probes gather those and leave NULL placeholders
// for the others, as parallel pipelines already did (parallel_pipe.go).
//
// The walk starts at the plan's root, whose columns are all read, and
// goes down only through operators whose reads it knows exactly:
// projections, filters, sorts, limits, aggregates and joins whose
// expressions are plain (plainExpr: column references, constants,
// parameters and immutable calls over them, no subqueries). Any other
// operator ends the walk, so joins below it keep gathering every column.
// A join reached twice (a subtree shared by two operators) keeps the
// union of what each reads.

// setNeed merges need (nil = all of the join's columns) into j's record.
func (j *joinNode) setNeed(need []bool) {
	switch {
	case !j.needSet:
		j.needSet = true
		if need != nil {
			j.need = append([]bool(nil), need...)
		}
	case j.need == nil:
	case need == nil:
		j.need = nil
	default:
		for i, n := range need {
			j.need[i] = j.need[i] || n
		}
	}
}

// markJoinNeeds walks p given the columns of its output read above
// (nil = all).
func markJoinNeeds(p plan, need []bool) {
	switch x := p.(type) {
	case *projectNode:
		if !allPlain(x.exprs) {
			markJoinNeeds(x.input, nil)
			return
		}
		below := make([]bool, len(x.input.columns()))
		for i, e := range x.exprs {
			if need == nil || need[i] {
				markCols(e, below)
			}
		}
		markJoinNeeds(x.input, below)
	case *filterNode:
		if !plainExpr(x.pred) || need == nil {
			markJoinNeeds(x.input, nil)
			return
		}
		markJoinNeeds(x.input, orCols(need, len(x.input.columns()), x.pred))
	case *limitNode:
		markJoinNeeds(x.input, need)
	case *sortNode:
		if need == nil {
			markJoinNeeds(x.input, nil)
			return
		}
		below := append([]bool(nil), need...)
		for _, k := range x.keys {
			below[k.col] = true
		}
		markJoinNeeds(x.input, below)
	case *aggNode:
		markJoinNeeds(x.input, aggReads(x))
	case *joinNode:
		x.setNeed(need)
		nl := len(x.left.columns())
		left, right := x.sideNeeds(nl)
		markJoinNeeds(x.left, left)
		markJoinNeeds(x.right, right)
	}
}

// aggReads is the input columns an aggregate reads; nil (all) when an
// expression is not plain.
func aggReads(a *aggNode) []bool {
	need := make([]bool, len(a.input.columns()))
	mark := func(es ...Expr) bool {
		for _, e := range es {
			if e == nil {
				continue
			}
			if !plainExpr(e) {
				return false
			}
			markCols(e, need)
		}
		return true
	}
	if !mark(a.groups...) {
		return nil
	}
	for _, c := range a.aggs {
		if !mark(c.args...) || !mark(c.filter) || !mark(c.order...) {
			return nil
		}
	}
	return need
}

// sideNeeds is what a join's inputs must supply: the output columns read
// above (its own record) plus the columns its keys and residual read;
// nil (all) where one of those is not plain.
func (j *joinNode) sideNeeds(nl int) (left, right []bool) {
	if j.need == nil || !allPlain(j.leftKeys) || !allPlain(j.rightKeys) || (j.residual != nil && !plainExpr(j.residual)) {
		return nil, nil
	}
	all := orCols(j.need, len(j.cols), j.residual)
	left = append([]bool(nil), all[:nl]...)
	right = append([]bool(nil), all[nl:]...)
	for _, k := range j.leftKeys {
		markCols(k, left)
	}
	for _, k := range j.rightKeys {
		markCols(k, right)
	}
	return left, right
}
