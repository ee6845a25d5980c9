package exec

// Hash tables kept across the iterations of a recursive step. The step
// of WITH RECURSIVE runs once per iteration; a join in it whose build
// side reads the same rows every time (the edge table of a traversal)
// would hash that table again per iteration once the frontier is too
// large for index lookups. As PostgreSQL's hash join keeps its hash
// table on a rescan whose inner side has no changed parameters, the
// first build is kept while the recursion runs and later iterations
// only probe it (recursiveNode.run owns and frees the tables).

// invariantInput reports whether p yields the same rows every time it
// runs within one statement: a whole-table scan under filters and
// projections made only of columns, constants, parameters and plain
// operators (plainExpr: no subqueries, outer references or volatile
// calls).
func invariantInput(p plan) bool {
	switch x := bare(p).(type) {
	case *scanNode:
		return x.keyVals == nil
	case *filterNode:
		return plainExpr(x.pred) && invariantInput(x.input)
	case *projectNode:
		for _, e := range x.exprs {
			if !plainExpr(e) {
				return false
			}
		}
		return invariantInput(x.input)
	}
	return false
}

// keptBuild returns the hash table kept for j by an earlier iteration.
func (rc *runCtx) keptBuild(j *joinNode) *joinTable {
	if rc.reuse == nil {
		return nil
	}
	return rc.reuse[j]
}

// keepBuild keeps jt, j's freshly built table, for later iterations
// when a recursive step is running and j's build side is invariant; it
// reports whether it did (the recursion then frees jt).
func (rc *runCtx) keepBuild(j *joinNode, jt *joinTable) bool {
	if rc.reuse == nil || !invariantInput(j.right) {
		return false
	}
	rc.reuse[j] = jt
	return true
}

// runKept probes j's kept table with its left input.
func (j *joinNode) runKept(ec *evalCtx, jt *joinTable, emit func(*Batch) error) error {
	recordMethod(ec, j, "hash")
	hr := j.hashRunOf(jt)
	if err := j.left.run(ec, func(lb *Batch) error { return hr.probe(ec, lb, emit) }); err != nil {
		return err
	}
	return hr.finish(ec, emit)
}

// withKeptBuilds runs fn (a recursion's iterations) with a fresh set of
// kept tables and frees them afterwards. fn's rows go to operators
// outside the recursion, whose joins must not keep their tables here
// (they outlive it): fn passes each row batch through outside, which
// runs its emit with the enclosing set.
func (rc *runCtx) withKeptBuilds(fn func(outside func(emit func(*Batch) error, b *Batch) error) error) error {
	saved := rc.reuse
	mine := map[*joinNode]*joinTable{}
	rc.reuse = mine
	defer func() {
		for _, jt := range mine {
			jt.free(rc)
		}
		rc.reuse = saved
	}()
	return fn(func(emit func(*Batch) error, b *Batch) error {
		rc.reuse = saved
		defer func() { rc.reuse = mine }()
		return emit(b)
	})
}
