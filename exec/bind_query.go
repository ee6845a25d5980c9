package exec

import (
	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// target is one select-list entry after binding.
type target struct {
	name string
	e    Expr
	src  *scopeCol // set when the entry is a plain column (RowDescription table/attnum)
}

// bindQuery binds a plain SELECT ... FROM ... WHERE ... GROUP BY ... in
// the order PostgreSQL reports errors in: FROM, WHERE, WINDOW, the select
// list, HAVING, ORDER BY, DISTINCT ON, GROUP BY; then plans aggregation,
// set-returning functions, windows, the projection, DISTINCT, the sort
// and LIMIT over the bound pieces.
func (b *binder) bindQuery(sel *q.SelectStmt, outer *scope) (*bound, error) {
	keepUnknown := b.keepUnknown
	b.keepUnknown = false
	sc := newScope(outer)
	var input plan = oneRowNode{}
	if len(sel.FromClause) > 0 {
		var err error
		input, err = b.bindFrom(sel.FromClause, sc)
		if err != nil {
			return nil, err
		}
	}
	// aggregates of this level are collected while binding its clauses
	savedAgg, savedWin := b.agg, b.win
	b.agg, b.win = nil, nil
	defer func() { b.agg, b.win = savedAgg, savedWin }()

	if sel.WhereClause != nil {
		var err error
		if input, err = b.bindWhere(sel.WhereClause, input, sc); err != nil {
			return nil, err
		}
	}

	b.agg = &aggCollector{}
	b.win = &winCollector{}
	savedWindows := b.windows
	defer func() { b.windows = savedWindows }()
	var err error
	if b.windows, err = windowDefs(sel.WindowClause); err != nil {
		return nil, err
	}
	savedSRF := b.srfs
	b.srfs = nil
	defer func() { b.srfs = savedSRF }()
	targets, err := b.bindTargets(sel.TargetList, sc, keepUnknown)
	if err != nil {
		return nil, err
	}
	having, err := b.bindHaving(sel.HavingClause, sc)
	if err != nil {
		return nil, err
	}
	outCols := make([]colInfo, len(targets))
	for i, t := range targets {
		outCols[i] = colInfo{name: t.name, t: t.e.Type()}
	}
	orders, err := b.bindOrderBy(sel.SortClause, targets, outCols, sc)
	if err != nil {
		return nil, err
	}
	distinct := len(sel.DistinctClause) > 0
	distinctOn, err := b.bindDistinctOn(sel.DistinctClause, targets, outCols, sc)
	if err != nil {
		return nil, err
	}
	g, err := b.bindGroupBy(sel.GroupClause, targets, sc)
	if err != nil {
		return nil, err
	}

	aggregated := len(g.groups) > 0 || len(b.agg.calls) > 0 || having != nil || g.empty
	p := input
	if aggregated {
		if p, err = b.planAggregate(p, g, targets, having, orders, distinctOn); err != nil {
			return nil, err
		}
	}
	if len(b.srfs) > 0 {
		if p, err = b.planProjectSet(p, g.groups, aggregated); err != nil {
			return nil, err
		}
	}
	if len(b.win.calls) > 0 {
		if p, err = b.planWindows(p, b.win.calls); err != nil {
			return nil, err
		}
	}

	// projection: targets, then hidden ORDER BY / DISTINCT ON columns
	proj, keys, err := b.projectWithSortKeys(targets, orders, distinct && distinctOn == nil)
	if err != nil {
		return nil, err
	}
	distinctKeys, err := proj.distinctOnKeys(distinctOn, keys)
	if err != nil {
		return nil, err
	}
	exprs, cols := proj.exprs, proj.cols
	p = &projectNode{input: p, exprs: exprs, cols: cols, alias: volatileSortAliases(exprs, keys)}
	if p, err = planDistinctAndSort(p, distinct, distinctOn != nil, distinctKeys, keys, cols[:len(targets)]); err != nil {
		return nil, err
	}
	p, err = b.bindLimit(p, sel, outer)
	if err != nil {
		return nil, err
	}
	out := cols[:len(targets)]
	if len(cols) > len(targets) {
		trim := make([]Expr, len(targets))
		for i := range trim {
			trim[i] = &colRef{idx: i, t: cols[i].t}
		}
		p = &projectNode{input: p, exprs: trim, cols: out}
	}
	return &bound{plan: p, cols: out}, nil
}

// planDistinctAndSort puts DISTINCT [ON] and ORDER BY over the
// projection p: DISTINCT ON keeps the first row of each group in ORDER BY
// order (the sort goes below it), plain DISTINCT compares every output
// column and the sort goes above it.
func planDistinctAndSort(p plan, distinct, distinctOn bool, distinctKeys []int, keys []sortKey, out []colInfo) (plan, error) {
	if distinct {
		if distinctOn {
			if len(keys) > 0 {
				p = &sortNode{input: p, keys: keys}
			}
			p = &distinctNode{input: p, keys: distinctKeys}
			keys = nil
		} else {
			dk := make([]int, len(out))
			for i := range dk {
				dk[i] = i
				if err := needEquality(out[i].t); err != nil {
					return nil, err
				}
			}
			p = &distinctNode{input: p, keys: dk}
		}
	}
	if len(keys) > 0 {
		p = &sortNode{input: p, keys: keys}
	}
	return p, nil
}

// bindWhere binds a WHERE clause over input: [NOT] EXISTS conjuncts
// correlated by equalities become hash semi/anti joins
// (bind_decorrelate.go), else one filter; with each table's conditions on
// its scan, inner joins written in a costly order are reordered
// (join_order_cost.go).
func (b *binder) bindWhere(where *q.Node, input plan, sc *scope) (plan, error) {
	pred, err := b.bindExprCtx(where, sc, "WHERE")
	if err != nil {
		return nil, err
	}
	if pred, err = b.coerceBool(pred, "WHERE"); err != nil {
		return nil, err
	}
	if dp, ok, err := b.bindWhereDecorrelated(where, input, sc); err != nil {
		return nil, err
	} else if ok {
		input = dp
	} else {
		input = b.pushFilter(input, pred)
	}
	return b.reorderInnerJoins(input), nil
}

// windowDefs collects the named windows of a WINDOW clause.
func windowDefs(clause []*q.Node) (map[string]*q.WindowDef, error) {
	windows := map[string]*q.WindowDef{}
	for _, wn := range clause {
		wd := wn.GetWindowDef()
		if _, dup := windows[wd.Name]; dup {
			return nil, errf(CodeWindowingError, "window \"%s\" is already defined", wd.Name)
		}
		windows[wd.Name] = wd
	}
	return windows, nil
}

// bindHaving binds a HAVING clause (nil without one).
func (b *binder) bindHaving(n *q.Node, sc *scope) (Expr, error) {
	if n == nil {
		return nil, nil
	}
	having, err := b.bindExprCtx(n, sc, "")
	if err != nil {
		return nil, err
	}
	return b.coerceBool(having, "HAVING")
}

// orderItem is one ORDER BY entry: an output column, or an expression
// over the input.
type orderItem struct {
	out  int // output column, or -1
	e    Expr
	sort *q.SortBy
}

// bindOrderBy binds ORDER BY: output names/ordinals first, then
// expressions over the input.
func (b *binder) bindOrderBy(clause []*q.Node, targets []target, outCols []colInfo, sc *scope) ([]orderItem, error) {
	var orders []orderItem
	for _, sn := range clause {
		sb := sn.GetSortBy()
		if len(sb.UseOp) > 0 {
			return nil, unsupported("ORDER BY ... USING is not supported")
		}
		idx, err := b.outputRefSame(sb.Node, outCols, func(i, j int) bool {
			ci, ok1 := targets[i].e.(*colRef)
			cj, ok2 := targets[j].e.(*colRef)
			return ok1 && ok2 && ci.idx == cj.idx && ci.t == cj.t
		})
		if err != nil {
			return nil, err
		}
		if idx >= 0 {
			orders = append(orders, orderItem{out: idx, sort: sb})
			continue
		}
		e, err := b.bindExprCtx(sb.Node, sc, "")
		if err != nil {
			return nil, err
		}
		orders = append(orders, orderItem{out: -1, e: e, sort: sb})
	}
	return orders, nil
}

// bindDistinctOn binds the expressions of DISTINCT ON (nil for a plain
// DISTINCT or none).
func (b *binder) bindDistinctOn(clause []*q.Node, targets []target, outCols []colInfo, sc *scope) ([]Expr, error) {
	if len(clause) == 0 || (len(clause) == 1 && clause[0].GetNode() == nil) {
		return nil, nil
	}
	var distinctOn []Expr
	for _, dn := range clause {
		idx, err := b.outputRef(dn, outCols)
		if err != nil {
			return nil, err
		}
		if idx >= 0 {
			distinctOn = append(distinctOn, targets[idx].e)
			continue
		}
		e, err := b.bindExprCtx(dn, sc, "")
		if err != nil {
			return nil, err
		}
		distinctOn = append(distinctOn, e)
	}
	return distinctOn, nil
}

// groupBy is a bound GROUP BY clause.
type groupBy struct {
	groups []Expr
	sets   [][]int // grouping sets as indexes into groups (grouping_sets.go), or nil
	ndet   int     // groups written in the clause (the rest are functionally dependent)
	empty  bool    // an empty grouping set () is among the groups
}

// bindGroupBy binds GROUP BY: output ordinals and output names that are
// not input columns name select-list entries, anything else is an
// expression over the input; grouping sets are expanded first.
func (b *binder) bindGroupBy(clause []*q.Node, targets []target, sc *scope) (groupBy, error) {
	var g groupBy
	groupItems := clause
	var setNodes [][]*q.Node // the grouping sets (grouping_sets.go)
	if hasGroupingSets(groupItems) {
		var err error
		if setNodes, err = expandGroupingSets(groupItems); err != nil {
			return g, err
		}
		groupItems = nil
		for _, s := range setNodes {
			groupItems = append(groupItems, s...)
		}
	}
	groupOf := map[*q.Node]int{} // item -> index in groups
	for _, gn := range groupItems {
		if gs := gn.GetGroupingSet(); gs != nil {
			if gs.Kind == q.GroupingSetKind_GROUPING_SET_EMPTY {
				g.empty = true
				continue
			}
			return g, unsupported("GROUPING SETS, ROLLUP and CUBE are not supported")
		}
		if _, done := groupOf[gn]; done {
			continue
		}
		groupOf[gn] = len(g.groups)
		idx, err := groupOutputRef(gn, targets, sc)
		if err != nil {
			return g, err
		}
		if idx >= 0 {
			if containsAgg(targets[idx].e) {
				return g, errf(CodeGroupingError, "aggregate functions are not allowed in GROUP BY")
			}
			g.groups = append(g.groups, targets[idx].e)
			continue
		}
		saved := b.agg
		b.agg = nil
		e, err := b.bindExprCtx(gn, sc, "GROUP BY")
		b.agg = saved
		if err != nil {
			return g, err
		}
		g.groups = append(g.groups, e)
	}

	for _, e := range g.groups {
		if err := needEquality(e.Type()); err != nil {
			return g, err
		}
	}
	if setNodes != nil {
		// equal expressions are one grouping expression
		g.groups, g.sets = groupingSetIndexes(g.groups, setNodes, groupOf)
		g.empty = true // the sets decide the groups, () included
	} else {
		g.ndet = len(g.groups)
		g.groups = addFunctionallyDependent(g.groups, sc)
	}
	if err := checkGroupingArgs(b.agg.grouping, g.groups); err != nil {
		return g, err
	}
	return g, nil
}

// groupOutputRef is the select-list entry a GROUP BY item names: a
// position, or a bare name that is no input column; -1 otherwise.
func groupOutputRef(gn *q.Node, targets []target, sc *scope) (int, error) {
	if c := gn.GetAConst(); c != nil {
		if iv, ok := c.Val.(*q.A_Const_Ival); ok {
			k := int(iv.Ival.Ival)
			if k < 1 || k > len(targets) {
				return -1, errf(CodeInvalidColumnReference, "GROUP BY position %d is not in select list", k)
			}
			return k - 1, nil
		}
	} else if cr := gn.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
		name := cr.Fields[0].GetString_().Sval
		if c, _ := sc.lookup("", name); c == nil {
			for i, t := range targets {
				if t.name == name {
					return i, nil
				}
			}
		}
	}
	return -1, nil
}

// planAggregate puts the aggregation (or grouping sets) node over p and
// rewrites everything evaluated above it — targets, HAVING, ORDER BY,
// DISTINCT ON, window arguments — to read its output; HAVING becomes a
// filter over it.
func (b *binder) planAggregate(p plan, g groupBy, targets []target, having Expr, orders []orderItem, distinctOn []Expr) (plan, error) {
	cols := make([]colInfo, 0, len(g.groups)+len(b.agg.calls))
	keys := make([]string, len(g.groups))
	for i, e := range g.groups {
		cols = append(cols, colInfo{name: "group", t: e.Type()})
		keys[i] = e.String()
	}
	for _, c := range b.agg.calls {
		cols = append(cols, colInfo{name: c.name, t: c.t})
	}
	if g.sets != nil || len(b.agg.grouping) > 0 {
		p = newGroupingSetsNode(p, g.groups, g.sets, b.agg.calls, b.agg.grouping, cols)
	} else {
		p = &aggNode{input: p, groups: g.groups, ndet: g.ndet, aggs: b.agg.calls, cols: cols}
	}
	rw := &postAgg{groupKeys: keys, ngroups: len(g.groups), groups: g.groups}
	var err error
	for i := range targets {
		if targets[i].e, err = rw.rewrite(targets[i].e); err != nil {
			return nil, err
		}
		targets[i].src = nil
	}
	if having != nil {
		if having, err = rw.rewrite(having); err != nil {
			return nil, err
		}
		p = &filterNode{input: p, pred: having}
	}
	for i := range orders {
		if orders[i].e != nil {
			if orders[i].e, err = rw.rewrite(orders[i].e); err != nil {
				return nil, err
			}
		}
	}
	for i := range distinctOn {
		if distinctOn[i], err = rw.rewrite(distinctOn[i]); err != nil {
			return nil, err
		}
	}
	for _, w := range b.win.calls {
		if err := rw.rewriteAll(w.args, w.partition, w.order); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// rewriteAll rewrites every expression of each list in place.
func (rw *postAgg) rewriteAll(lists ...[]Expr) error {
	for _, list := range lists {
		for k := range list {
			var err error
			if list[k], err = rw.rewrite(list[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

// planProjectSet runs the select list's set-returning functions over p
// (after aggregation and HAVING when the query is aggregated).
func (b *binder) planProjectSet(p plan, groups []Expr, aggregated bool) (plan, error) {
	if len(b.win.calls) > 0 {
		return nil, unsupported("set-returning functions in the select list of a windowed query are not supported")
	}
	if aggregated {
		// the functions run over the aggregated rows (after HAVING)
		rw := &postAgg{groupKeys: make([]string, len(groups)), ngroups: len(groups), groups: groups}
		for i, g := range groups {
			rw.groupKeys[i] = g.String()
		}
		for _, s := range b.srfs {
			if err := rw.rewriteAll(s.args); err != nil {
				return nil, err
			}
		}
	}
	cols := append([]colInfo{}, p.columns()...)
	for _, s := range b.srfs {
		s.col = len(cols)
		cols = append(cols, colInfo{name: s.name, t: s.t})
	}
	return &projectSetNode{input: p, srfs: b.srfs, cols: cols}, nil
}

// projection is the final projection's expressions and columns: the
// targets, then hidden ORDER BY / DISTINCT ON columns.
type projection struct {
	exprs []Expr
	cols  []colInfo
}

// add appends a hidden column and returns its index.
func (pr *projection) add(e Expr, name string) int {
	pr.exprs = append(pr.exprs, e)
	pr.cols = append(pr.cols, colInfo{name: name, t: e.Type()})
	return len(pr.exprs) - 1
}

// projectWithSortKeys builds the projection of the targets and the sort
// keys of ORDER BY, adding a hidden column for each ORDER BY expression
// not in the select list (an error under plain DISTINCT) and for each
// enum's sort key.
func (b *binder) projectWithSortKeys(targets []target, orders []orderItem, plainDistinct bool) (*projection, []sortKey, error) {
	pr := &projection{
		exprs: make([]Expr, 0, len(targets)+len(orders)),
		cols:  make([]colInfo, 0, len(targets)+len(orders)),
	}
	for _, t := range targets {
		pr.exprs = append(pr.exprs, t.e)
		ci := colInfo{name: t.name, t: t.e.Type()}
		if t.src != nil {
			ci.tableOID, ci.attnum = t.src.tableOID, t.src.attnum
		}
		ci.arrayOf = domainArrayType(t.e, t.src) // domains.go
		pr.cols = append(pr.cols, ci)
	}
	var keys []sortKey
	for _, o := range orders {
		idx := o.out
		if idx < 0 {
			key := o.e.String()
			for i, t := range targets {
				if t.e.String() == key {
					idx = i
					break
				}
			}
		}
		if idx < 0 {
			if plainDistinct {
				return nil, nil, errf(CodeInvalidColumnReference, "for SELECT DISTINCT, ORDER BY expressions must appear in select list")
			}
			idx = pr.add(o.e, "?sort?")
		}
		if pr.cols[idx].t.OID == OIDJSON {
			return nil, nil, errf(CodeUndefinedFunction, "could not identify an ordering operator for type json")
		}
		if sk := b.enumSortKeyOf(pr.exprs[idx]); sk != nil { // enums sort by declaration (enums.go)
			idx = pr.add(sk, "?sort?")
		}
		keys = append(keys, makeSortKey(o.sort, idx))
	}
	return pr, keys, nil
}

// distinctOnKeys is the projection column of each DISTINCT ON expression
// (added hidden when not projected); the first ones must be the initial
// ORDER BY keys.
func (pr *projection) distinctOnKeys(distinctOn []Expr, keys []sortKey) ([]int, error) {
	var distinctKeys []int
	for k, e := range distinctOn {
		key := e.String()
		idx := -1
		for i, x := range pr.exprs {
			if x.String() == key {
				idx = i
				break
			}
		}
		if idx < 0 {
			idx = pr.add(e, "?distinct?")
		}
		if k < len(keys) {
			if sk, ok := pr.exprs[keys[k].col].(*enumSortKey); ok && sk.arg.String() == key {
				idx = keys[k].col // ORDER BY an enum sorts on its sort key (enums.go)
			}
		}
		if k < len(keys) && keys[k].col != idx {
			return nil, errf(CodeInvalidColumnReference, "SELECT DISTINCT ON expressions must match initial ORDER BY expressions")
		}
		distinctKeys = append(distinctKeys, idx)
	}
	return distinctKeys, nil
}

// pushFilter attaches a predicate; over a plain scan it also derives scan
// hints and key lookups.
func (b *binder) pushFilter(input plan, pred Expr) plan {
	if s, ok := input.(*scanNode); ok {
		b.deriveScanHints(s, pred)
		if s.keyConj != nil {
			var rest []Expr
			for _, c := range splitAnd(pred) {
				if c != s.keyConj {
					rest = append(rest, c)
				}
			}
			if pred = conjunction(rest); pred == nil {
				return s
			}
		}
	}
	if pn, ok := input.(*projectNode); ok && pn.view {
		if p, ok := b.pushIntoView(pn, pred); ok {
			return p
		}
	}
	if ps, ok := input.(*projectSetNode); ok {
		// conditions on the rows a lateral function expands are applied
		// before it runs (PostgreSQL evaluates them below the function)
		below, rest := splitBySide(pred, len(ps.input.columns()))
		if below != nil {
			ps.input = b.pushFilter(ps.input, below)
		}
		if rest == nil {
			return ps
		}
		return &filterNode{input: ps, pred: rest}
	}
	if ln, ok := input.(*lateralNode); ok {
		// conditions on the left rows of a lateral join run before the
		// lateral item is evaluated for them, as in PostgreSQL
		below, rest := splitBySide(pred, len(ln.left.columns()))
		if below != nil {
			ln.left = b.pushFilter(ln.left, below)
		}
		if rest == nil {
			return ln
		}
		return &filterNode{input: ln, pred: rest}
	}
	if j, ok := input.(*joinNode); ok && isCrossJoin(j) {
		// comma joins: WHERE conjuncts that relate the inputs become join
		// conditions (hash keys where they are equalities), in an order
		// that joins related items first (join_order.go)
		conds := splitAnd(pred)
		var restore []Expr
		cols := j.columns()
		if nj, nconds, proj, ok := reorderCrossJoins(j, conds); ok {
			j, conds, restore = nj, nconds, proj
		}
		rest := pushJoinConds(j, conds)
		input = buildSmaller(j)
		if pred = conjunction(rest); pred != nil {
			input = &filterNode{input: input, pred: pred}
		}
		if restore != nil {
			input = &projectNode{input: input, exprs: restore, cols: cols}
		}
		return input
	}
	if p, rest, ok := b.pushBelowJoin(input, pred); ok {
		if rest == nil {
			return p
		}
		return &filterNode{input: p, pred: rest}
	}
	return &filterNode{input: input, pred: pred}
}

// conjunction is the AND of exprs: nil for none, the one for one.
func conjunction(exprs []Expr) Expr {
	switch len(exprs) {
	case 0:
		return nil
	case 1:
		return exprs[0]
	}
	return &boolExpr{op: "AND", args: exprs}
}

// splitBySide splits pred's conjuncts into those reading only the first
// nin columns (side 1) and the rest, each as a conjunction (nil: none).
func splitBySide(pred Expr, nin int) (below, rest Expr) {
	var b, r []Expr
	for _, c := range splitAnd(pred) {
		if sideOf(c, nin) == 1 {
			b = append(b, c)
		} else {
			r = append(r, c)
		}
	}
	return conjunction(b), conjunction(r)
}

func isCrossJoin(j *joinNode) bool {
	return j.kind == joinInner && len(j.leftKeys) == 0 && j.residual == nil
}

// pushJoinConds moves conjuncts into a left-deep chain of cross joins
// (a child's columns keep their indexes in the parent) and returns the
// conjuncts that stay in the filter.
func pushJoinConds(j *joinNode, conds []Expr) []Expr {
	nl := len(j.left.columns())
	var mine, rest []Expr
	var down []Expr
	lj, leftIsCross := j.left.(*joinNode)
	leftIsCross = leftIsCross && isCrossJoin(lj)
	for _, c := range conds {
		switch sideOf(c, nl) {
		case 3:
			mine = append(mine, c)
		case 1:
			if leftIsCross {
				down = append(down, c)
			} else {
				rest = append(rest, c)
			}
		default:
			rest = append(rest, c)
		}
	}
	if len(down) > 0 {
		rest = append(rest, pushJoinConds(lj, down)...)
		if len(lj.leftKeys) > 0 {
			j.left = buildSmaller(lj)
		}
	}
	if len(mine) > 0 {
		j.setCond(nil, mine, nl)
	}
	return rest
}

// bindTargets expands * and binds each select-list entry.
func (b *binder) bindTargets(list []*q.Node, sc *scope, keepUnknown bool) ([]target, error) {
	var out []target
	for _, n := range list {
		rt := n.GetResTarget()
		if cr := rt.Val.GetColumnRef(); cr != nil && isStar(cr) {
			tbl := ""
			if len(cr.Fields) == 2 {
				tbl = cr.Fields[0].GetString_().Sval
			} else if len(cr.Fields) > 2 {
				return nil, unsupported("cross-database references are not implemented")
			}
			found := false
			if b.trace != nil {
				b.trace.starBegin(cr)
			}
			if tbl != "" && !sc.aliases[tbl] {
				return nil, errf(CodeUndefinedTable, "missing FROM-clause entry for table \"%s\"", tbl)
			}
			for i := range sc.cols {
				c := &sc.cols[i]
				if c.hidden || c.noStar && tbl == "" || (tbl != "" && c.table != tbl) || c.name == "" {
					continue
				}
				if tbl != "" && c.noStar && !c.noUnqual {
					continue
				}
				found = true
				c.markUsed()
				out = append(out, target{name: c.name, e: &colRef{idx: c.idx, t: c.t, name: c.name}, src: c})
				if b.trace != nil {
					b.trace.star(cr, c, sc)
				}
			}
			if !found && tbl == "" && len(sc.cols) == 0 && len(sc.aliases) == 0 {
				return nil, errf(CodeSyntaxError, "SELECT * with no tables specified is not valid")
			}
			continue
		}
		var e Expr
		var err error
		if fc := rt.Val.GetFuncCall(); fc != nil && fc.Over == nil {
			if name, ferr := funcName(fc.Funcname); ferr == nil && name == "string_to_table" {
				// string_to_table(s, d [, n]) = unnest(string_to_array(s, d [, n]))
				args, err := b.bindList(fc.Args, sc)
				if err != nil {
					return nil, err
				}
				arr, err := b.funcByName("string_to_array", args)
				if err != nil {
					return nil, noFunction(name, args)
				}
				t, args, err := b.bindSRF("unnest", []Expr{arr})
				if err != nil {
					return nil, err
				}
				call := &srfCall{name: "unnest", args: args, t: t}
				b.srfs = append(b.srfs, call)
				e = &srfRef{call: call}
			}
		}
		if e == nil {
			if e, err = b.bindTargetSRF(rt.Val, sc); err != nil {
				return nil, err
			}
		}
		if e == nil {
			if e, err = b.bindExprCtx(rt.Val, sc, ""); err != nil {
				return nil, err
			}
		}
		if err := checkRecordOutput(e); err != nil {
			return nil, err
		}
		if e.Type().OID == OIDUnknown && !keepUnknown {
			if e, err = b.coerce(e, TText, castImplicit, ""); err != nil {
				return nil, err
			}
		}
		name := rt.Name
		if name == "" {
			name = figureColname(rt.Val)
		}
		if b.trace != nil {
			b.trace.names[rt] = name
		}
		t := target{name: name, e: e}
		if cr, ok := e.(*colRef); ok {
			for i := range sc.cols {
				if sc.cols[i].idx == cr.idx {
					t.src = &sc.cols[i]
					break
				}
			}
		}
		out = append(out, t)
	}
	return out, nil
}

func isStar(cr *q.ColumnRef) bool {
	return len(cr.Fields) > 0 && cr.Fields[len(cr.Fields)-1].GetAStar() != nil
}

// postAgg rewrites expressions bound over the aggregate's input into
// expressions over its output (group keys, then aggregate results).
type postAgg struct {
	groupKeys []string
	groups    []Expr
	ngroups   int
}

func (r *postAgg) rewrite(e Expr) (Expr, error) {
	key := e.String()
	for i, k := range r.groupKeys {
		if k == key {
			return &colRef{idx: i, t: e.Type()}, nil
		}
	}
	switch x := e.(type) {
	case *aggRef:
		return &colRef{idx: r.ngroups + x.idx, t: x.call.t}, nil
	case *groupingRef:
		if x.col < 0 {
			return x, nil
		}
		return &colRef{idx: x.col, t: TInt4}, nil
	case *colRef:
		name := x.name
		if name == "" {
			name = "?"
		}
		return nil, errf(CodeGroupingError, "column \"%s\" must appear in the GROUP BY clause or be used in an aggregate function", name)
	case *subqueryExpr:
		if x.correlated {
			return nil, unsupported("correlated subqueries in an aggregated select list are not supported")
		}
		if x.test != nil || x.rowTests != nil {
			return mapChildren(x, r.rewrite)
		}
		return x, nil
	case *winRef:
		return x, nil
	}
	return mapChildren(e, r.rewrite)
}

func containsAgg(e Expr) bool {
	found := false
	walkExpr(e, func(x Expr) {
		if _, ok := x.(*aggRef); ok {
			found = true
		}
	})
	return found
}

// addFunctionallyDependent appends every column of a table instance whose
// primary key is fully grouped (PostgreSQL allows selecting them).
func addFunctionallyDependent(groups []Expr, sc *scope) []Expr {
	grouped := map[int]bool{}
	for _, g := range groups {
		if c, ok := g.(*colRef); ok {
			grouped[c.idx] = true
		}
	}
	if len(grouped) == 0 {
		return groups
	}
	type inst struct {
		alias string
		td    *TableDef
	}
	byInst := map[inst][]scopeCol{}
	for _, c := range sc.cols {
		if c.table_ != nil {
			k := inst{c.table, c.table_}
			byInst[k] = append(byInst[k], c)
		}
	}
	for k, cols := range byInst {
		if len(k.td.PrimaryKey) == 0 {
			continue
		}
		all := true
		for _, pk := range k.td.PrimaryKey {
			found := false
			for _, c := range cols {
				if int(c.attnum) == pk+1 && grouped[c.idx] {
					found = true
				}
			}
			all = all && found
		}
		if !all {
			continue
		}
		for _, c := range cols {
			if !grouped[c.idx] {
				c.markUsed()
				grouped[c.idx] = true
				groups = append(groups, &colRef{idx: c.idx, t: c.t, name: c.name})
			}
		}
	}
	return groups
}
