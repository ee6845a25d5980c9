package exec

import (
	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// DefaultRecursionLimit caps WITH RECURSIVE iterations; exceeding it fails
// the query (54000) instead of silently truncating the result.
const DefaultRecursionLimit = 10000

// recursiveRef reads the current working table of a recursive CTE.
type recursiveRef struct {
	id   int
	cols []colInfo
}

func (r *recursiveRef) columns() []colInfo { return r.cols }
func (r *recursiveRef) run(ec *evalCtx, emit func(*Batch) error) error {
	w := ec.run.working[r.id]
	if w == nil {
		return nil
	}
	return emitChunks(w, emit)
}

// recursiveNode evaluates base UNION [ALL] step to a fixpoint.
type recursiveNode struct {
	name     string
	base     plan
	step     plan
	ref      *recursiveRef
	unionAll bool
	cols     []colInfo
}

func (r *recursiveNode) columns() []colInfo { return r.cols }

func (r *recursiveNode) run(ec *evalCtx, emit func(*Batch) error) error {
	if ec.run.working == nil {
		ec.run.working = map[int]*Batch{}
	}
	seen := map[string]struct{}{}
	var kb []byte
	// dedup keeps rows not seen before (UNION); UNION ALL keeps all
	dedup := func(b *Batch) *Batch {
		if r.unionAll {
			return b
		}
		keep := []int32{}
		forEach(b.N, b.Sel, func(i int) {
			kb, _ = rowKey(kb[:0], b.Cols, i)
			if _, ok := seen[string(kb)]; !ok {
				seen[string(kb)] = struct{}{}
				keep = append(keep, int32(i))
			}
		})
		return &Batch{Cols: b.Cols, N: b.N, Sel: keep}
	}
	types := typesOf(r.cols)
	work := newBuffer(types)
	err := r.base.run(ec, func(b *Batch) error {
		d := dedup(b)
		if err := work.add(ec.run, d); err != nil {
			return err
		}
		return emit(d)
	})
	if err != nil {
		return err
	}
	err = ec.run.withKeptBuilds(func(outside func(func(*Batch) error, *Batch) error) error {
		return r.iterate(ec, work, dedup, func(b *Batch) error { return outside(emit, b) })
	})
	delete(ec.run.working, r.ref.id)
	return err
}

// iterate runs the recursive step until it yields no new rows.
func (r *recursiveNode) iterate(ec *evalCtx, work *buffer, dedup func(*Batch) *Batch, emit func(*Batch) error) error {
	types := typesOf(r.cols)
	limit := ec.run.recursion
	if limit <= 0 {
		limit = DefaultRecursionLimit
	}
	for iter := 0; work.n > 0; iter++ {
		if iter >= limit {
			return &Error{Code: CodeProgramLimitExceeded, Message: "WITH RECURSIVE query \"" + r.name + "\" exceeded " + itoa(int64(limit)) + " iterations",
				Hint: "The recursion may not terminate; add a stopping condition or raise the recursion limit."}
		}
		if err := checkCancel(ec.run.ctx); err != nil {
			return err
		}
		ec.run.working[r.ref.id] = work.batch()
		next := newBuffer(types)
		err := r.step.run(ec, func(b *Batch) error {
			d := dedup(b)
			if d.Live() == 0 {
				return nil
			}
			if err := next.add(ec.run, d); err != nil {
				return err
			}
			return emit(d)
		})
		work.free(ec.run)
		if err != nil {
			return err
		}
		work = next
	}
	return nil
}

func (b *binder) bindRecursive(d *cteDef, sel *q.SelectStmt, aliases []string, outer *scope, level map[string]*cteDef) error {
	if sel.Op != q.SetOperation_SETOP_UNION {
		return errf(CodeInvalidRecursion, "recursive query \"%s\" does not have the form non-recursive-term UNION [ALL] recursive-term", d.name)
	}
	if len(sel.SortClause) > 0 || sel.LimitCount != nil || sel.LimitOffset != nil {
		return unsupported("ORDER BY/LIMIT in a recursive query is not implemented")
	}
	if selfReferences(sel.Larg, d.name) {
		return errf(CodeInvalidRecursion, "recursive reference to query \"%s\" must not appear within its non-recursive term", d.name)
	}
	if selfReferenceCount(sel.Rarg, d.name) > 1 {
		return errf(CodeInvalidRecursion, "recursive reference to query \"%s\" must not appear more than once", d.name)
	}
	base, err := b.bindSelect(sel.Larg, outer)
	if err != nil {
		return err
	}
	cols := append([]colInfo{}, base.cols...)
	if len(aliases) > len(cols) {
		return errf(CodeInvalidColumnReference, "WITH query \"%s\" has %d columns available but %d columns specified", d.name, len(cols), len(aliases))
	}
	for i, a := range aliases {
		cols[i].name = a
	}
	for i := range cols {
		if cols[i].t.OID == OIDUnknown {
			cols[i].t = TText
		}
	}
	ref := &recursiveRef{id: d.id, cols: cols}
	d.cols, d.recursive = cols, ref
	level[d.name] = d
	step, err := b.bindSelect(sel.Rarg, outer)
	d.recursive = nil
	if err != nil {
		return err
	}
	if len(step.cols) != len(cols) {
		return errf(CodeSyntaxError, "each UNION query must have the same number of columns")
	}
	var fix []Expr
	needFix := false
	for i, c := range step.cols {
		if c.t.OID != cols[i].t.OID {
			if base.cols[i].t.OID == OIDUnknown || !canCast(c.t, cols[i].t, castImplicit) {
				return errf(CodeDatatypeMismatch, "recursive query \"%s\" column %d has type %s in non-recursive term but type %s overall", d.name, i+1, cols[i].t, c.t)
			}
			return errf(CodeDatatypeMismatch, "recursive query \"%s\" column %d has type %s in non-recursive term but type %s overall", d.name, i+1, cols[i].t, promoteNumeric(cols[i].t, c.t))
		}
		fix = append(fix, &colRef{idx: i, t: c.t})
	}
	basePlan := base.plan
	for i, c := range base.cols {
		if c.t.OID == OIDUnknown {
			needFix = true
			_ = i
		}
	}
	if needFix {
		ex := make([]Expr, len(cols))
		for i, c := range base.cols {
			ex[i] = &colRef{idx: i, t: c.t}
			if c.t.OID == OIDUnknown {
				ex[i] = &castExpr{arg: ex[i], t: TText}
			}
		}
		basePlan = &projectNode{input: basePlan, exprs: ex, cols: cols}
	}
	_ = fix
	d.plan = &recursiveNode{name: d.name, base: basePlan, step: step.plan, ref: ref, unionAll: sel.All, cols: cols}
	return nil
}
