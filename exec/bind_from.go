package exec

import (
	"strings"

	"google.golang.org/protobuf/proto"

	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// bindFrom binds the FROM list into one plan (comma = cross join) and
// fills sc with the visible columns.
func (b *binder) bindFrom(items []*q.Node, sc *scope) (plan, error) {
	var p plan
	for _, it := range items {
		it = normalizeFromFunction(it)
		if rf := it.GetRangeFunction(); rf != nil && rf.Lateral && p != nil {
			np, err := b.bindLateralFromFunction(p, rf, sc)
			if err != nil {
				return nil, err
			}
			p = np
			continue
		}
		if rs := it.GetRangeSubselect(); rs != nil && rs.Lateral && p != nil {
			np, err := b.bindLateral(p, rs, sc, false)
			if err != nil {
				return nil, err
			}
			p = np
			continue
		}
		ip, cols, err := b.bindFromItem(it, sc)
		if rf := it.GetRangeFunction(); err != nil && rf != nil && p != nil && !rf.Lateral &&
			(Code(err) == CodeUndefinedColumn || Code(err) == CodeUndefinedTable) {
			// functions in FROM are implicitly LATERAL: when the arguments
			// read earlier items, expand each of their rows
			np, lerr := b.bindLateralFromFunction(p, rf, sc)
			if lerr != nil {
				return nil, lerr
			}
			p = np
			continue
		}
		if err != nil {
			return nil, err
		}
		if p == nil {
			p = ip
			sc.cols = cols
			continue
		}
		nl := len(p.columns())
		for _, c := range cols {
			c.idx += nl
			sc.cols = append(sc.cols, c)
		}
		p = &joinNode{left: p, right: ip, kind: joinInner, cols: append(append([]colInfo{}, p.columns()...), ip.columns()...)}
	}
	return p, nil
}

func (b *binder) addAlias(sc *scope, name string) error {
	if name == "" {
		return nil
	}
	if sc.aliases[name] {
		return errf(CodeDuplicateAlias, "table name \"%s\" specified more than once", name)
	}
	sc.aliases[name] = true
	return nil
}

// applyAlias renames columns per an alias column list.
func applyAlias(cols []scopeCol, a *q.Alias, table string) ([]scopeCol, error) {
	for i := range cols {
		cols[i].table = table
	}
	if a == nil {
		return cols, nil
	}
	if len(a.Colnames) > len(cols) {
		return nil, errf(CodeInvalidColumnReference, "table \"%s\" has %d columns available but %d columns specified", table, len(cols), len(a.Colnames))
	}
	for i, n := range a.Colnames {
		cols[i].name = n.GetString_().Sval
	}
	return cols, nil
}

func (b *binder) bindFromItem(n *q.Node, sc *scope) (plan, []scopeCol, error) {
	switch x := n.GetNode().(type) {
	case *q.Node_RangeVar:
		p, cols, err := b.bindRangeVar(x.RangeVar, sc)
		return p, cols, b.at(err, x.RangeVar.Location)
	case *q.Node_RangeSubselect:
		if x.RangeSubselect.Lateral {
			return nil, nil, unsupported("LATERAL subqueries are only supported after earlier FROM items, as comma or CROSS JOIN items")
		}
		inner := newScope(sc.parent)
		bd, err := b.bindSelect(x.RangeSubselect.Subquery.GetSelectStmt(), inner.parent)
		if err != nil {
			return nil, nil, err
		}
		alias := ""
		if x.RangeSubselect.Alias != nil {
			alias = x.RangeSubselect.Alias.Aliasname
		}
		if err := b.addAlias(sc, alias); err != nil {
			return nil, nil, err
		}
		cols := make([]scopeCol, len(bd.cols))
		for i, c := range bd.cols {
			cols[i] = scopeCol{name: c.name, t: c.t, idx: i}
		}
		cols, err = applyAlias(cols, x.RangeSubselect.Alias, alias)
		if err != nil {
			return nil, nil, err
		}
		return bd.plan, cols, nil
	case *q.Node_JoinExpr:
		return b.bindJoin(x.JoinExpr, sc)
	case *q.Node_RangeFunction:
		p, cols, err := b.bindRangeFunction(x.RangeFunction, sc)
		if err == nil && b.trace != nil {
			b.trace.function(x.RangeFunction, cols)
		}
		return p, cols, err
	}
	return nil, nil, unsupported("FROM item %s is not supported", nodeName(n))
}

func (b *binder) bindRangeVar(rv *q.RangeVar, sc *scope) (plan, []scopeCol, error) {
	alias := rv.Relname
	if rv.Alias != nil {
		alias = rv.Alias.Aliasname
	}
	if rv.Catalogname != "" {
		return nil, nil, unsupported("cross-database references are not implemented: %s.%s.%s", rv.Catalogname, rv.Schemaname, rv.Relname)
	}
	// CTEs shadow tables
	if rv.Schemaname == "" {
		for i := len(b.ctes) - 1; i >= 0; i-- {
			if c, ok := b.ctes[i][rv.Relname]; ok {
				if err := b.addAlias(sc, alias); err != nil {
					return nil, nil, err
				}
				cols := make([]scopeCol, len(c.cols))
				for k, ci := range c.cols {
					cols[k] = scopeCol{name: ci.name, t: ci.t, idx: k}
				}
				cols, err := applyAlias(cols, rv.Alias, alias)
				if err != nil {
					return nil, nil, err
				}
				c.refs++
				var p plan
				switch {
				case c.recursive != nil:
					p = c.recursive
				case c.correlated:
					p = c.plan
				default:
					p = &materialNode{input: c.plan, id: c.id}
				}
				return p, cols, nil
			}
		}
	}
	if err := b.qualifiedDenied(rv.Schemaname); err != nil {
		return nil, nil, err
	}
	td := b.cat.table(rv.Schemaname, rv.Relname)
	if td != nil && rv.Schemaname == "" && isPublicUserRelation(td) && b.publicHidden() {
		td = nil // public is not on the role's effective search path
	}
	if td == nil {
		if s := b.cat.sequenceByName(rv.Schemaname, rv.Relname); s != nil && (rv.Schemaname != "" || !b.publicHidden()) {
			return b.bindSequenceRelation(rv, s, sc)
		}
		if rv.Schemaname != "" {
			return nil, nil, errf(CodeUndefinedTable, "relation \"%s.%s\" does not exist", rv.Schemaname, rv.Relname)
		}
		return nil, nil, errf(CodeUndefinedTable, "relation \"%s\" does not exist", rv.Relname)
	}
	return b.bindTableRelation(rv, td, sc)
}

// bindTableRelation binds a scan of td named by rv (its alias, or its
// relname when none).
func (b *binder) bindTableRelation(rv *q.RangeVar, td *TableDef, sc *scope) (plan, []scopeCol, error) {
	alias := rv.Relname
	if rv.Alias != nil {
		alias = rv.Alias.Aliasname
	}
	if b.trace != nil {
		b.trace.relation(rv, td)
	}
	k := b.useRelation(td)
	if td.View != nil {
		p, cols, err := b.bindView(rv, td, alias, sc)
		if n := len(b.views); err == nil && n > 0 && b.views[n-1].pn == p {
			b.uses[k].used = b.views[n-1].read // the view's columns read
		}
		return p, cols, err
	}
	if err := b.addAlias(sc, alias); err != nil {
		return nil, nil, err
	}
	cols := make([]scopeCol, len(td.Columns))
	ci := make([]colInfo, len(td.Columns))
	idx := make([]int, len(td.Columns))
	for i, c := range td.Columns {
		cols[i] = scopeCol{name: c.Name, t: c.Type, idx: i, tableOID: td.OID, attnum: int16(i + 1), table_: td, from: rv}
		ci[i] = colInfo{name: c.Name, t: c.Type, tableOID: td.OID, attnum: int16(i + 1)}
		idx[i] = i
	}
	cols, err := applyAlias(cols, rv.Alias, alias)
	if err != nil {
		return nil, nil, err
	}
	if !hasColumn(td, RowAddrColumn) {
		// the hidden row-address column DML targets rows by; after the
		// alias so a column alias list cannot rename it
		cols = append(cols, scopeCol{table: alias, name: RowAddrColumn, t: TInt8, idx: len(ci), hidden: true, noStar: true})
		ci = append(ci, colInfo{name: RowAddrColumn, t: TInt8})
		idx = append(idx, rowAddrIdx)
	}
	if !hasColumn(td, TableOIDColumn) {
		cols = append(cols, scopeCol{table: alias, name: TableOIDColumn, t: TOid, idx: len(ci), hidden: true, noStar: true})
		ci = append(ci, colInfo{name: TableOIDColumn, t: TOid})
		idx = append(idx, tableOIDIdx)
	}
	sn := &scanNode{table: td, cols: ci, colIdx: idx, keyCol: -1, used: make([]bool, len(ci))}
	if rv.Alias != nil {
		sn.alias = rv.Alias.Aliasname
	}
	read := make([]bool, len(ci))
	for i := range cols {
		cols[i].used, cols[i].read = &sn.used[i], &read[i]
	}
	b.uses[k].used = read[:len(td.Columns)] // the columns read (privileges)
	return sn, cols, nil
}

func (b *binder) bindJoin(j *q.JoinExpr, sc *scope) (plan, []scopeCol, error) {
	if j.Alias == nil {
		return b.bindJoinExpr(j, sc)
	}
	return b.bindAliasedJoin(j, sc)
}

func (b *binder) bindJoinExpr(j *q.JoinExpr, sc *scope) (plan, []scopeCol, error) {
	if l, r := normalizeFromFunction(j.Larg), normalizeFromFunction(j.Rarg); l != j.Larg || r != j.Rarg {
		j = proto.Clone(j).(*q.JoinExpr)
		j.Larg, j.Rarg = l, r
	}
	lp, lcols, err := b.bindFromItem(j.Larg, sc)
	if err != nil {
		return nil, nil, err
	}
	if lateralItem(j.Rarg) {
		return b.bindLateralJoin(j, lp, lcols, sc)
	}
	rp, rcols, err := b.bindFromItem(j.Rarg, sc)
	if err != nil {
		if rf := j.Rarg.GetRangeFunction(); rf != nil && (Code(err) == CodeUndefinedColumn || Code(err) == CodeUndefinedTable) {
			// functions are implicitly LATERAL: the arguments may read
			// the left side
			return b.bindLateralJoin(j, lp, lcols, sc)
		}
		return nil, nil, err
	}
	nl := len(lp.columns())
	var kind joinKind
	switch j.Jointype {
	case q.JoinType_JOIN_INNER:
		kind = joinInner
	case q.JoinType_JOIN_LEFT:
		kind = joinLeft
	case q.JoinType_JOIN_RIGHT:
		kind = joinRight
	case q.JoinType_JOIN_FULL:
		kind = joinFull
	default:
		return nil, nil, unsupported("join type is not supported")
	}
	all := append([]scopeCol{}, lcols...)
	for _, c := range rcols {
		c.idx += nl
		all = append(all, c)
	}
	joined := &joinNode{left: lp, right: rp, kind: kind, cols: append(append([]colInfo{}, lp.columns()...), rp.columns()...)}
	js := &scope{cols: all, parent: sc.parent, aliases: sc.aliases}
	var using []string
	if j.IsNatural {
		for _, l := range lcols {
			for _, r := range rcols {
				if l.name == r.name && !l.noUnqual && !r.noUnqual && !l.hidden && !r.hidden {
					using = append(using, l.name)
				}
			}
		}
	}
	for _, u := range j.UsingClause {
		using = append(using, u.GetString_().Sval)
	}
	if b.trace != nil && j.IsNatural {
		b.trace.natural[j] = using
	}
	var conds []Expr
	if len(using) > 0 || j.IsNatural {
		var merged []scopeCol
		var mergedExprs []Expr
		for _, name := range using {
			var lc, rc *scopeCol
			for i := range lcols {
				if lcols[i].name == name && !lcols[i].noUnqual && !lcols[i].hidden {
					if lc != nil {
						return nil, nil, errf(CodeAmbiguousColumn, "common column name \"%s\" appears more than once in left table", name)
					}
					lc = &all[i]
				}
			}
			for i := range rcols {
				if rcols[i].name == name && !rcols[i].noUnqual && !rcols[i].hidden {
					if rc != nil {
						return nil, nil, errf(CodeAmbiguousColumn, "common column name \"%s\" appears more than once in right table", name)
					}
					rc = &all[len(lcols)+i]
				}
			}
			if lc == nil {
				return nil, nil, errf(CodeUndefinedColumn, "column \"%s\" specified in USING clause does not exist in left table", name)
			}
			if rc == nil {
				return nil, nil, errf(CodeUndefinedColumn, "column \"%s\" specified in USING clause does not exist in right table", name)
			}
			eq, err := b.binaryOp("=", &colRef{idx: lc.idx, t: lc.t, name: name}, &colRef{idx: rc.idx, t: rc.t, name: name})
			if err != nil {
				return nil, nil, err
			}
			conds = append(conds, eq)
			if b.trace != nil {
				b.trace.using(lc, rc)
			}
			lc.noUnqual, lc.noStar = true, true
			rc.noUnqual, rc.noStar = true, true
			lc.markUsed()
			rc.markUsed()
			var me Expr = &colRef{idx: lc.idx, t: lc.t, name: name}
			mt := lc.t
			switch kind {
			case joinRight:
				me = &colRef{idx: rc.idx, t: rc.t, name: name}
				mt = rc.t
			case joinFull:
				t, err := b.commonTypeCoerce([]Expr{&colRef{idx: lc.idx, t: lc.t}, &colRef{idx: rc.idx, t: rc.t}}, "JOIN/USING")
				if err != nil {
					return nil, nil, err
				}
				l2, _ := b.coerce(&colRef{idx: lc.idx, t: lc.t}, t, castImplicit, "")
				r2, _ := b.coerce(&colRef{idx: rc.idx, t: rc.t}, t, castImplicit, "")
				me = &coalesceExpr{t: t, args: []Expr{l2, r2}}
				mt = t
			}
			m := scopeCol{name: name, t: mt}
			switch kind {
			case joinInner, joinLeft:
				m.merged = &scopeCol{table: lc.table, name: name, from: lc.from, table_: lc.table_, attnum: lc.attnum}
			case joinRight:
				m.merged = &scopeCol{table: rc.table, name: name, from: rc.from, table_: rc.table_, attnum: rc.attnum}
			}
			merged = append(merged, m)
			mergedExprs = append(mergedExprs, me)
		}
		joined.setCond(b, conds, nl)
		// project: merged columns first, then every input column
		exprs := append([]Expr{}, mergedExprs...)
		cols := make([]colInfo, 0, len(merged)+len(all))
		for _, m := range merged {
			cols = append(cols, colInfo{name: m.name, t: m.t})
		}
		out := make([]scopeCol, 0, len(merged)+len(all))
		for i, m := range merged {
			m.idx = i
			out = append(out, m)
		}
		for i, c := range all {
			if !c.hidden {
				c.markCarried() // the USING projection carries every column through
			}
			exprs = append(exprs, &colRef{idx: i, t: c.t})
			cols = append(cols, colInfo{name: c.name, t: c.t, tableOID: c.tableOID, attnum: c.attnum})
			c.idx = len(merged) + i
			out = append(out, c)
		}
		return &projectNode{input: joined, exprs: exprs, cols: cols}, out, nil
	}
	if j.Quals != nil {
		savedAgg := b.agg
		b.agg = nil
		cond, err := b.bindExprCtx(j.Quals, js, "JOIN conditions")
		b.agg = savedAgg
		if err != nil {
			return nil, nil, err
		}
		if cond, err = b.coerceBool(cond, "JOIN/ON"); err != nil {
			return nil, nil, err
		}
		if js.correlated {
			sc.correlated = true
		}
		joined.setCond(b, splitAnd(cond), nl)
	}
	return buildSmaller(joined), all, nil
}

func splitAnd(e Expr) []Expr {
	if be, ok := e.(*boolExpr); ok && be.op == "AND" {
		var out []Expr
		for _, a := range be.args {
			out = append(out, splitAnd(a)...)
		}
		return out
	}
	return []Expr{e}
}

// sideOf reports which join side an expression reads: 1 left, 2 right,
// 3 both, 0 neither (constants, outer refs), -1 unknown (subqueries).
func sideOf(e Expr, nl int) int {
	side := 0
	walkExpr(e, func(x Expr) {
		switch c := x.(type) {
		case *colRef:
			if c.idx < nl {
				side |= 1
			} else {
				side |= 2
			}
		case *subqueryExpr:
			side = -1 << 8
		}
	})
	if side < 0 {
		return -1
	}
	return side
}

// shiftCols rebases column references of the right side.
func shiftCols(e Expr, by int) Expr {
	out, _ := rewriteCols(e, func(c *colRef) Expr { return &colRef{idx: c.idx + by, t: c.t, name: c.name} })
	return out
}

func rewriteCols(e Expr, f func(*colRef) Expr) (Expr, error) {
	if c, ok := e.(*colRef); ok {
		return f(c), nil
	}
	return mapChildren(e, func(x Expr) (Expr, error) { return rewriteCols(x, f) })
}

// setCond splits join conditions into hash keys and a residual.
func (j *joinNode) setCond(b *binder, conds []Expr, nl int) {
	var residual []Expr
	for _, c := range conds {
		if op, ok := c.(*opExpr); ok && op.name == "=" && len(op.args) == 2 {
			ls, rs := sideOf(op.args[0], nl), sideOf(op.args[1], nl)
			if ls == 1 && rs == 2 {
				j.leftKeys = append(j.leftKeys, op.args[0])
				j.rightKeys = append(j.rightKeys, shiftCols(op.args[1], -nl))
				continue
			}
			if ls == 2 && rs == 1 {
				j.leftKeys = append(j.leftKeys, op.args[1])
				j.rightKeys = append(j.rightKeys, shiftCols(op.args[0], -nl))
				continue
			}
		}
		residual = append(residual, c)
	}
	switch len(residual) {
	case 0:
	case 1:
		j.residual = residual[0]
	default:
		j.residual = &boolExpr{op: "AND", args: residual}
	}
}

// bindWith registers the CTEs of a WITH clause; the returned func pops them.
func (b *binder) bindWith(w *q.WithClause, outer *scope) (func(), error) {
	level := map[string]*cteDef{}
	b.ctes = append(b.ctes, level)
	pop := func() { b.ctes = b.ctes[:len(b.ctes)-1] }
	for _, cn := range w.Ctes {
		cte := cn.GetCommonTableExpr()
		if _, dup := level[cte.Ctename]; dup {
			pop()
			return nil, errf(CodeDuplicateAlias, "WITH query name \"%s\" specified more than once", cte.Ctename)
		}
		sel := cte.Ctequery.GetSelectStmt()
		if sel == nil {
			pop()
			return nil, unsupported("data-modifying statements in WITH are not supported")
		}
		colNames := cte.Aliascolnames
		if cte.SearchClause != nil || cte.CycleClause != nil {
			if !w.Recursive || !selfReferences(sel, cte.Ctename) {
				pop()
				return nil, errf(CodeSyntaxError, "WITH query is not recursive")
			}
			nsel, ncols, err := rewriteSearchCycle(cte)
			if err != nil {
				pop()
				return nil, err
			}
			sel = nsel
			if ncols != nil {
				colNames = ncols
			}
		}
		var aliases []string
		for _, a := range colNames {
			aliases = append(aliases, a.GetString_().Sval)
		}
		d := &cteDef{name: cte.Ctename, id: b.newID()}
		if w.Recursive && selfReferences(sel, cte.Ctename) {
			if err := b.bindRecursive(d, sel, aliases, outer, level); err != nil {
				pop()
				return nil, err
			}
			continue
		}
		watch := newScope(outer)
		watch.passthrough = true
		first := len(b.uses)
		bd, err := b.bindSelect(sel, watch)
		if err != nil {
			pop()
			return nil, err
		}
		b.usedBy(first, d)
		d.correlated = watch.correlated
		cols := append([]colInfo{}, bd.cols...)
		if len(aliases) > len(cols) {
			pop()
			return nil, errf(CodeInvalidColumnReference, "WITH query \"%s\" has %d columns available but %d columns specified", cte.Ctename, len(cols), len(aliases))
		}
		for i, a := range aliases {
			cols[i].name = a
		}
		d.plan, d.cols = bd.plan, cols
		level[cte.Ctename] = d
	}
	return pop, nil
}

// selfReferences reports whether a query mentions name as a relation.
func selfReferences(sel *q.SelectStmt, name string) bool {
	return selfReferenceCount(sel, name) > 0
}

// selfReferenceCount counts the FROM references to name in sel.
func selfReferenceCount(sel *q.SelectStmt, name string) int {
	found := 0
	var walk func(n any)
	walk = func(n any) {
		switch x := n.(type) {
		case *q.SelectStmt:
			if x == nil {
				return
			}
			for _, f := range x.FromClause {
				walk(f)
			}
			walk(x.Larg)
			walk(x.Rarg)
			if x.WhereClause != nil {
				walk(x.WhereClause)
			}
		case *q.Node:
			if x == nil {
				return
			}
			switch y := x.GetNode().(type) {
			case *q.Node_RangeVar:
				if y.RangeVar.Schemaname == "" && y.RangeVar.Relname == name {
					found++
				}
			case *q.Node_JoinExpr:
				walk(y.JoinExpr.Larg)
				walk(y.JoinExpr.Rarg)
			case *q.Node_RangeSubselect:
				walk(y.RangeSubselect.Subquery.GetSelectStmt())
			case *q.Node_SelectStmt:
				walk(y.SelectStmt)
			}
		}
	}
	walk(sel)
	return found
}

// deriveScanHints turns simple conjuncts (col op const/param) into scan
// filters, and col = k / col IN (k...) on a key column into a key lookup.
func (b *binder) deriveScanHints(s *scanNode, pred Expr) {
	var keyCols []int
	if kl, ok := s.table.Source.(KeyLookupSource); ok {
		keyCols = kl.KeyColumns()
	}
	isKey := func(c int) bool {
		if s.colIdx[c] < 0 {
			return false
		}
		for _, k := range keyCols {
			if k == s.colIdx[c] {
				return true
			}
		}
		return false
	}
	isConst := func(e Expr) bool {
		switch x := e.(type) {
		case *constExpr, *paramExpr, *foldedCast:
			return true
		case *castExpr:
			_, p := x.arg.(*paramExpr)
			_, c := x.arg.(*constExpr)
			return p || c
		}
		return false
	}
	var rng *keyRange
	defer func() {
		if s.keyVals == nil && rng != nil {
			s.rng, s.keyCol = rng, rng.col
		}
	}()
	for _, c := range splitAnd(pred) {
		switch x := c.(type) {
		case *opExpr:
			if len(x.args) != 2 {
				continue
			}
			if x.name == "~~" {
				// a LIKE with a fixed prefix is a range of its key column
				if col, ok := likeColumn(x.args[0]); ok && s.colIdx[col.idx] >= 0 && isKey(col.idx) && textKeyType(col.t) && col.t.OID == s.table.Columns[s.colIdx[col.idx]].Type.OID && rng == nil {
					if r, ok := likePrefixRange(s.colIdx[col.idx], x.args[1]); ok {
						rng = r
					}
				}
				continue
			}
			if _, ok := cmpOps[x.name]; !ok {
				continue
			}
			col, ok := x.args[0].(*colRef)
			if !ok {
				col, ok = varcharAsText(x.args[0])
			}
			if !ok || s.colIdx[col.idx] < 0 {
				continue
			}
			if x.name != "=" && x.name != "<>" && isKey(col.idx) && rangeKeyType(col.t) && col.t.OID == s.table.Columns[s.colIdx[col.idx]].Type.OID && rangeBoundExpr(x.args[1], col.t) {
				if rng == nil {
					rng = &keyRange{col: s.colIdx[col.idx], isText: textKeyType(col.t)}
				}
				if rng.col == s.colIdx[col.idx] {
					rng.add(x.name, x.args[1])
				}
			}
			if !isConst(x.args[1]) && !(x.name == "=" && lookupValueExpr(x.args[1])) {
				continue
			}
			if v, ok := filterValue(x.args[1], s.table.Columns[s.colIdx[col.idx]].Type); ok && col.t.OID == s.table.Columns[s.colIdx[col.idx]].Type.OID {
				s.filters = append(s.filters, ScanFilter{Column: s.colIdx[col.idx], Op: x.name, Value: v})
			}
			if x.name == "=" && s.keyVals == nil && isKey(col.idx) && col.t.OID == s.table.Columns[s.colIdx[col.idx]].Type.OID {
				s.keyCol = s.colIdx[col.idx]
				s.keyVals = []Expr{x.args[1]}
				if kt := s.table.Columns[s.keyCol].Type; exactKeyValue(x.args[1], kt) {
					// the lookup finds exactly the rows this conjunct keeps
					// (the key needs no cast; see keyConjunct)
					s.keyConj = c
				}
			}
		case *nullTest:
			if col, ok := x.arg.(*colRef); ok && s.colIdx[col.idx] >= 0 {
				op := "IS NULL"
				if x.not {
					op = "IS NOT NULL"
				}
				s.filters = append(s.filters, ScanFilter{Column: s.colIdx[col.idx], Op: op})
			}
		case *inListExpr:
			col, ok := x.arg.(*colRef)
			if !ok || x.not || s.keyVals != nil || !isKey(col.idx) || col.t.OID != s.table.Columns[s.colIdx[col.idx]].Type.OID {
				continue
			}
			all := true
			for _, it := range x.list {
				all = all && (isConst(it) || lookupValueExpr(it))
			}
			if all {
				s.keyCol = s.colIdx[col.idx]
				s.keyVals = x.list
			}
		}
	}
}

var _ = strings.ToLower

// lookupValueExpr reports whether e has a single value for each run of
// the scan, so that the scan may look its rows up by key instead of
// reading the table: constants and parameters, and outer references,
// which a correlated subquery or LATERAL item fixes to the enclosing
// row before each run, combined by casts and + - *. Functions, division
// and column references of the scan itself are left out.
func lookupValueExpr(e Expr) bool {
	ok, outer := true, false
	walkExpr(e, func(x Expr) {
		switch y := x.(type) {
		case *outerRef:
			outer = true
		case *constExpr, *paramExpr, *foldedCast, *castExpr:
		case *opExpr:
			if len(y.args) != 2 || (y.name != "+" && y.name != "-" && y.name != "*") || y.isVolatile() {
				ok = false
			}
		default:
			ok = false
		}
	})
	return ok && outer
}

// varcharAsText is the varchar column under a cast to text (how
// PostgreSQL compares varchar, and how view definitions spell it): the
// cast keeps every value, so a comparison through it is one on the
// column.
func varcharAsText(e Expr) (*colRef, bool) {
	c, ok := e.(*castExpr)
	if !ok || c.t.OID != OIDText {
		return nil, false
	}
	col, ok := c.arg.(*colRef)
	return col, ok && col.t.OID == OIDVarchar
}

// filterValue is a scan hint's constant in the column's type: a literal
// or folded cast of that type, or an integer literal compared with
// another integer or a float column (exact conversions only, as
// PostgreSQL's cross-type comparisons are).
func filterValue(e Expr, col Type) (*Vec, bool) {
	var v *Vec
	switch x := e.(type) {
	case *constExpr:
		v = x.val
	case *foldedCast:
		v = x.val
	default:
		return nil, false
	}
	if v == nil || v.N != 1 {
		return nil, false
	}
	if v.T.OID == col.OID {
		return v, true
	}
	if col.OID == OIDVarchar && v.T.OID == OIDText {
		return v, true // varchar compares as text (varcharAsText)
	}
	if v.IsNull(0) || !v.T.isInt() {
		return nil, false
	}
	switch {
	case col.isInt() && col.Kind() == KInt:
		out := NewVec(col, 1)
		out.I[0] = v.I[0]
		return out, true
	case col.Kind() == KFloat && v.I[0] > -1<<53 && v.I[0] < 1<<53:
		out := NewVec(col, 1)
		out.F[0] = float64(v.I[0])
		return out, true
	}
	return nil, false
}

// bindLateralFunction binds f(args) after earlier FROM items as a
// projectSet over them.
func (b *binder) bindLateralFunction(left plan, rf *q.RangeFunction, sc *scope) (plan, error) {
	fc := rf.Functions[0].GetList().Items[0].GetFuncCall()
	if fc == nil {
		return nil, unsupported("this FROM function form is not supported")
	}
	name, err := funcName(fc.Funcname)
	if err != nil {
		return nil, err
	}
	if !builtinSRF(name) {
		if isSetReturning(name) {
			return nil, unsupported("set-returning function %s() is not supported", name)
		}
		return nil, unsupported("functions in FROM other than generate_series and unnest are not supported")
	}
	args, err := b.bindList(fc.Args, sc)
	if err != nil {
		return nil, err
	}
	t, args, err := b.bindSRF(name, args)
	if err != nil {
		return nil, err
	}
	alias := name
	if rf.Alias != nil {
		alias = rf.Alias.Aliasname
	}
	if err := b.addAlias(sc, alias); err != nil {
		return nil, err
	}
	colName := name
	if rf.Alias != nil && len(rf.Alias.Colnames) == 0 {
		colName = alias
	}
	if d, ok := setFuncs[name]; ok && d.column != "" {
		colName = d.column // an OUT parameter name, not the alias
	}
	cols := append([]colInfo{}, left.columns()...)
	call := &srfCall{name: name, args: args, t: t, col: len(cols)}
	if fields, ok := RecordFields(t); ok {
		// a record-returning function's fields are the item's columns
		// (_pg_expandarray(i.indkey) k → k.x, k.n), as in PostgreSQL
		fcols := make([]scopeCol, len(fields))
		for k, f := range fields {
			fcols[k] = scopeCol{name: f.Name, t: f.Type, idx: call.col + 1 + k}
		}
		if fcols, err = applyAlias(fcols, rf.Alias, alias); err != nil {
			return nil, err
		}
		names := make([]string, len(fcols))
		for k := range fcols {
			names[k] = fcols[k].name
		}
		ps := &projectSetNode{input: left, srfs: []*srfCall{call}, cols: append(cols, colInfo{name: colName, t: t})}
		expanded, _, _ := expandRecordColumn(ps, call.col, names)
		sc.cols = append(sc.cols, scopeCol{table: alias, name: alias, t: t, idx: call.col, noStar: true})
		sc.cols = append(sc.cols, fcols...)
		return expanded, nil
	}
	scols, err := applyAlias([]scopeCol{{name: colName, t: t, idx: len(cols)}}, rf.Alias, alias)
	if err != nil {
		return nil, err
	}
	cols = append(cols, colInfo{name: scols[0].name, t: t})
	if colName != scols[0].name || (rf.Alias != nil && colName != alias) {
		// the alias also names the value (whole-row reference to a
		// scalar function result)
		scols = append(scols, scopeCol{table: alias, name: alias, t: t, idx: scols[0].idx, noStar: true})
	}
	sc.cols = append(sc.cols, scols...)
	return &projectSetNode{input: left, srfs: []*srfCall{call}, cols: cols}, nil
}

// bindLateral binds a LATERAL subquery after earlier FROM items: it sees
// their columns as outer references to the current left row.
func (b *binder) bindLateral(left plan, rs *q.RangeSubselect, sc *scope, outer bool) (plan, error) {
	ls := &scope{cols: append([]scopeCol{}, sc.cols...), parent: sc.parent, aliases: map[string]bool{}}
	for k := range sc.aliases {
		ls.aliases[k] = true
	}
	bd, err := b.bindSelect(rs.Subquery.GetSelectStmt(), ls)
	if err != nil {
		return nil, err
	}
	alias := ""
	if rs.Alias != nil {
		alias = rs.Alias.Aliasname
	}
	if err := b.addAlias(sc, alias); err != nil {
		return nil, err
	}
	nl := len(left.columns())
	cols := make([]scopeCol, len(bd.cols))
	for i, c := range bd.cols {
		cols[i] = scopeCol{name: c.name, t: c.t, idx: nl + i}
	}
	if cols, err = applyAlias(cols, rs.Alias, alias); err != nil {
		return nil, err
	}
	sc.cols = append(sc.cols, cols...)
	all := append([]colInfo{}, left.columns()...)
	for i, c := range bd.cols {
		all = append(all, colInfo{name: cols[i].name, t: c.t})
	}
	return &lateralNode{left: left, sub: bd.plan, outer: outer, cols: all}, nil
}
