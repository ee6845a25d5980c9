package exec

import (
	"fmt"
	"unicode/utf8"

	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
)

// binder turns raw parse trees into plans: name resolution, type
// inference (PostgreSQL's coercion rules for what we support), aggregate
// and window extraction, output naming.
type binder struct {
	cat         *catalogSet
	params      []*Type // inferred types of $1..$n (TUnknown until known)
	ctes        []map[string]*cteDef
	nextID      int
	agg         *aggCollector // aggregates allowed and collected here
	keepUnknown bool          // set-operation arms leave unknown literals unresolved
	srfs        []*srfCall
	sql         string                  // statement text, for error positions
	windows     map[string]*q.WindowDef // WINDOW clause of the current query level    // select-list set-returning functions of the current level
	win         *winCollector
	aggLevel    string // context name for "not allowed in X" errors
	// viewStack holds the views being expanded (a view reaching itself
	// is infinite recursion); trace, when set, records how names resolved
	// (AnalyzeView); noParams refuses $n (a view's query has none).
	viewStack []uint32
	views     []*viewUse
	trace     *viewTrace
	noParams  bool
	// uses lists the relations named (Prepared.Relations); inView and
	// viewOwner say they are read by the query of a view owned by
	// viewOwner.
	uses      []RelationUse
	inView    bool
	viewOwner uint32
	// volatile: a RelationFunc was bound (Prepared.Volatile)
	volatile bool
}

type aggCollector struct {
	calls    []*aggCall
	grouping []*groupingRef // GROUPING() calls (grouping_sets.go)
}

type cteDef struct {
	name      string
	plan      plan
	cols      []colInfo
	recursive *recursiveRef // non-nil while binding the recursive term
	refs      int
	id        int
	// correlated CTEs (inside a correlated subquery, reading its outer
	// row) are re-evaluated at each reference instead of cached
	correlated bool
}

func (b *binder) newID() int { b.nextID++; return b.nextID }

// bound is a bound query: its plan and output columns.
type bound struct {
	plan plan
	cols []colInfo
}

// bindStmt binds one statement (only SELECT-like statements run here).
func (b *binder) bindStmt(n *q.Node) (*bound, error) {
	switch {
	case n.GetSelectStmt() != nil:
		return b.bindSelect(n.GetSelectStmt(), nil)
	case n.GetExplainStmt() != nil:
		return nil, unsupported("EXPLAIN is not supported")
	case n.GetCallStmt() != nil:
		return b.bindCall(n.GetCallStmt()) // procedures.go
	}
	return nil, unsupported("statement type %s is not supported by the query engine", nodeName(n))
}

func nodeName(n *q.Node) string {
	s := fmt.Sprintf("%T", n.GetNode())
	if len(s) > len("*pg_query.Node_") {
		return s[len("*pg_query.Node_"):]
	}
	return s
}

// bindSelect binds a SELECT (possibly a set operation or VALUES).
func (b *binder) bindSelect(sel *q.SelectStmt, outer *scope) (*bound, error) {
	if sel.WithClause != nil {
		pop, err := b.bindWith(sel.WithClause, outer)
		if err != nil {
			return nil, err
		}
		defer pop()
	}
	if len(sel.LockingClause) > 0 {
		// FOR UPDATE/SHARE: snapshot reads need no row locks; the write
		// path validates conflicts at commit.
	}
	if sel.IntoClause != nil {
		return nil, unsupported("SELECT INTO is not supported")
	}
	var res *bound
	var err error
	switch {
	case sel.Op != q.SetOperation_SETOP_NONE && sel.Op != q.SetOperation_SET_OPERATION_UNDEFINED:
		res, err = b.bindSetOp(sel, outer)
		if err != nil {
			return nil, err
		}
		return b.finishSimple(res, sel, outer)
	case len(sel.ValuesLists) > 0:
		res, err = b.bindValues(sel.ValuesLists, outer)
		if err != nil {
			return nil, err
		}
		return b.finishSimple(res, sel, outer)
	}
	return b.bindQuery(sel, outer)
}

// finishSimple applies ORDER BY (output columns only) and LIMIT to a set
// operation or VALUES.
func (b *binder) finishSimple(res *bound, sel *q.SelectStmt, outer *scope) (*bound, error) {
	p := res.plan
	if len(sel.SortClause) > 0 {
		sc := newScope(outer)
		for i, c := range res.cols {
			sc.cols = append(sc.cols, scopeCol{name: c.name, t: c.t, idx: i})
		}
		var keys []sortKey
		var extra []Expr
		for _, sn := range sel.SortClause {
			sb := sn.GetSortBy()
			idx, err := b.outputRef(sb.Node, res.cols)
			if err != nil {
				return nil, err
			}
			if idx < 0 {
				e, err := b.bindExpr(sb.Node, sc)
				if err != nil {
					return nil, err
				}
				if cr, ok := e.(*colRef); ok {
					idx = cr.idx
				} else {
					return nil, unsupported("ORDER BY on an expression over a set operation or VALUES is not supported")
				}
			}
			keys = append(keys, makeSortKey(sb, idx))
		}
		var enumKeys []Expr
		for k := range keys {
			c := res.cols[keys[k].col]
			if sk := b.enumSortKeyOf(&colRef{idx: keys[k].col, t: c.t, name: c.name}); sk != nil {
				// enums sort by declaration: sort on a hidden sort-key
				// column, projected away after the sort (enums.go)
				enumKeys = append(enumKeys, sk)
				keys[k].col = len(res.cols) + len(enumKeys) - 1
			}
		}
		_ = extra
		if enumKeys != nil {
			all, cols := make([]Expr, 0, len(res.cols)+len(enumKeys)), append([]colInfo(nil), res.cols...)
			for i, c := range res.cols {
				all = append(all, &colRef{idx: i, t: c.t, name: c.name})
			}
			for _, sk := range enumKeys {
				all = append(all, sk)
				cols = append(cols, colInfo{name: "?sort?", t: sk.Type()})
			}
			p = &sortNode{input: &projectNode{input: p, exprs: all, cols: cols}, keys: keys}
			p = &projectNode{input: p, exprs: all[:len(res.cols)], cols: res.cols}
		} else {
			p = &sortNode{input: p, keys: keys}
		}
	}
	p, err := b.bindLimit(p, sel, outer)
	if err != nil {
		return nil, err
	}
	return &bound{plan: p, cols: res.cols}, nil
}

func makeSortKey(sb *q.SortBy, idx int) sortKey {
	desc := sb.SortbyDir == q.SortByDir_SORTBY_DESC
	nf := desc
	switch sb.SortbyNulls {
	case q.SortByNulls_SORTBY_NULLS_FIRST:
		nf = true
	case q.SortByNulls_SORTBY_NULLS_LAST:
		nf = false
	}
	return sortKey{col: idx, desc: desc, nullsFirst: nf}
}

// outputRef resolves an ORDER BY item that names an output column (by
// ordinal or by bare name); -1 when it does not.
func (b *binder) outputRef(n *q.Node, cols []colInfo) (int, error) {
	return b.outputRefSame(n, cols, nil)
}

// outputRefSame is outputRef where two output columns of the name are
// not ambiguous when same reports them the same expression (SELECT m, m
// … ORDER BY m), as PostgreSQL's findTargetlistEntrySQL92 allows.
func (b *binder) outputRefSame(n *q.Node, cols []colInfo, same func(i, j int) bool) (int, error) {
	if c := n.GetAConst(); c != nil {
		if iv, ok := c.Val.(*q.A_Const_Ival); ok {
			k := int(iv.Ival.Ival)
			if k < 1 || k > len(cols) {
				return 0, errf(CodeInvalidColumnReference, "ORDER BY position %d is not in select list", k)
			}
			return k - 1, nil
		}
	}
	if cr := n.GetColumnRef(); cr != nil && len(cr.Fields) == 1 {
		if s := cr.Fields[0].GetString_(); s != nil {
			found := -1
			for i, c := range cols {
				if c.name == s.Sval {
					if found >= 0 && same != nil && same(found, i) {
						continue
					}
					if found >= 0 {
						return 0, errf(CodeAmbiguousColumn, "ORDER BY \"%s\" is ambiguous", s.Sval)
					}
					found = i
				}
			}
			return found, nil
		}
	}
	return -1, nil
}

func (b *binder) bindLimit(p plan, sel *q.SelectStmt, outer *scope) (plan, error) {
	if sel.LimitCount == nil && sel.LimitOffset == nil {
		return p, nil
	}
	sc := newScope(outer)
	var lim, off Expr
	var err error
	if sel.LimitCount != nil {
		if c := sel.LimitCount.GetAConst(); c == nil || !c.Isnull {
			if lim, err = b.bindExpr(sel.LimitCount, sc); err != nil {
				return nil, err
			}
			if lim, err = b.coerce(lim, TInt8, castAssignment, "argument of LIMIT"); err != nil {
				return nil, err
			}
		}
	}
	if sel.LimitOffset != nil {
		if off, err = b.bindExpr(sel.LimitOffset, sc); err != nil {
			return nil, err
		}
		if off, err = b.coerce(off, TInt8, castAssignment, "argument of OFFSET"); err != nil {
			return nil, err
		}
	}
	if sc.correlated {
		return nil, unsupported("LIMIT/OFFSET referring to outer columns is not supported")
	}
	if sel.LimitOption == q.LimitOption_LIMIT_OPTION_WITH_TIES {
		s, ok := p.(*sortNode)
		if !ok {
			return nil, errf(CodeSyntaxError, "WITH TIES cannot be specified without ORDER BY clause")
		}
		if lim == nil && sel.LimitCount != nil {
			lim = constNull(TInt8) // FETCH FIRST NULL ROWS: an error at run time
		}
		return &tiesLimitNode{input: p, limit: lim, offset: off, keys: s.keys}, nil
	}
	if s, ok := p.(*sortNode); ok && lim != nil {
		if n, ok := constInt(lim); ok && n >= 0 {
			o := int64(0)
			if off != nil {
				o, ok = constInt(off)
			}
			if ok && o >= 0 && n+o < 1<<20 {
				s.topN = n + o
				if s.topN == 0 {
					s.topN = -1
				}
			}
		}
	}
	return &limitNode{input: p, limit: lim, offset: off}, nil
}

// bindValues binds VALUES lists; column types are resolved per column with
// the UNION rules.
func (b *binder) bindValues(lists []*q.Node, outer *scope) (*bound, error) {
	sc := newScope(outer)
	rows := make([][]Expr, len(lists))
	width := -1
	for r, l := range lists {
		items := l.GetList().Items
		if width >= 0 && len(items) != width {
			return nil, errf(CodeSyntaxError, "VALUES lists must all be the same length")
		}
		width = len(items)
		rows[r] = make([]Expr, width)
		for c, it := range items {
			e, err := b.bindExpr(it, sc)
			if err != nil {
				return nil, err
			}
			rows[r][c] = e
		}
	}
	if sc.correlated {
		return nil, unsupported("VALUES referring to outer columns is not supported")
	}
	cols := make([]colInfo, width)
	for c := 0; c < width; c++ {
		col := make([]Expr, len(rows))
		for r := range rows {
			col[r] = rows[r][c]
		}
		t, err := b.commonType(col, "VALUES")
		if err != nil {
			return nil, err
		}
		for r := range rows {
			if rows[r][c], err = b.coerce(rows[r][c], t, castImplicit, "VALUES"); err != nil {
				return nil, err
			}
		}
		cols[c] = colInfo{name: fmt.Sprintf("column%d", c+1), t: t}
	}
	return &bound{plan: &valuesNode{cols: cols, rows: rows}, cols: cols}, nil
}

// bindSetOp binds UNION/INTERSECT/EXCEPT, unifying column types.
func (b *binder) bindSetOp(sel *q.SelectStmt, outer *scope) (*bound, error) {
	saved := b.keepUnknown
	b.keepUnknown = true
	l, err := b.bindSelect(sel.Larg, outer)
	if err != nil {
		return nil, err
	}
	b.keepUnknown = true
	r, err := b.bindSelect(sel.Rarg, outer)
	b.keepUnknown = saved
	if err != nil {
		return nil, err
	}
	op := map[q.SetOperation]string{q.SetOperation_SETOP_UNION: "UNION", q.SetOperation_SETOP_INTERSECT: "INTERSECT", q.SetOperation_SETOP_EXCEPT: "EXCEPT"}[sel.Op]
	if len(l.cols) != len(r.cols) {
		return nil, errf(CodeSyntaxError, "each %s query must have the same number of columns", op)
	}
	cols := make([]colInfo, len(l.cols))
	lx, rx := make([]Expr, len(l.cols)), make([]Expr, len(l.cols))
	lcast, rcast := false, false
	for i := range l.cols {
		lc := &colRef{idx: i, t: l.cols[i].t}
		rc := &colRef{idx: i, t: r.cols[i].t}
		t, err := b.commonType([]Expr{lc, rc}, op)
		if err != nil {
			return nil, err
		}
		if t.OID == OIDUnknown {
			t = TText
		}
		if lx[i], err = b.coerceSetCol(lc, t); err != nil {
			return nil, err
		}
		if rx[i], err = b.coerceSetCol(rc, t); err != nil {
			return nil, err
		}
		lcast = lcast || lx[i] != Expr(lc)
		rcast = rcast || rx[i] != Expr(rc)
		cols[i] = colInfo{name: l.cols[i].name, t: t}
		if lc.t.OID == t.OID && lc.t.Mod == r.cols[i].t.Mod {
			cols[i].t = lc.t
		}
	}
	if !sel.All || op != "UNION" {
		for _, c := range cols {
			if err := needEquality(c.t); err != nil {
				return nil, err
			}
		}
	}
	lp, rp := l.plan, r.plan
	if lcast {
		lp = &projectNode{input: lp, exprs: lx, cols: cols}
	}
	if rcast {
		rp = &projectNode{input: rp, exprs: rx, cols: cols}
	}
	return &bound{plan: &setOpNode{op: op, all: sel.All, left: lp, right: rp, cols: cols}, cols: cols}, nil
}

func (b *binder) coerceSetCol(e *colRef, t Type) (Expr, error) {
	if e.t.OID == t.OID {
		return e, nil
	}
	if e.t.OID == OIDUnknown {
		return &castExpr{arg: e, t: t}, nil
	}
	return b.coerce(e, t, castImplicit, "set operation")
}

// constInt reads a constant integer expression at bind time.
func constInt(e Expr) (int64, bool) {
	var c *constExpr
	switch x := e.(type) {
	case *constExpr:
		c = x
	case *foldedCast:
		c = x.constExpr
	default:
		return 0, false
	}
	if c.isNull() || c.t.Kind() != KInt {
		return 0, false
	}
	return c.val.I[0], true
}

// at attaches a 1-based character position (from a parse-tree byte
// location) to a binder error that has none.
func (b *binder) at(err error, loc int32) error {
	e, ok := err.(*Error)
	if !ok || e.Position != 0 || e.Placement == pgerr.Unplaced || loc < 0 || b.sql == "" || int(loc) > len(b.sql) {
		return err
	}
	cp := *e
	cp.Position = int32(utf8.RuneCountInString(b.sql[:loc]) + 1)
	return &cp
}
