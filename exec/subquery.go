package exec

import (
	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// subqueryExpr is a sublink: scalar (EXPR), EXISTS, x op ANY/ALL (IN), or
// ARRAY(...). Uncorrelated subqueries run once per execution; correlated
// ones re-run for each outer row with that row pushed on the outer stack.
type subqueryExpr struct {
	kind q.SubLinkType
	p    plan
	t    Type
	test Expr  // left operand of ANY/ALL
	cmp  cmpOp // operator of ANY/ALL
	// rowTests is the left row of (a, b) op ANY/ALL (SELECT x, y) and
	// (a, b) op (SELECT x, y) (ROWCOMPARE: kind EXPR with rowTests set)
	rowTests []Expr
	// inner is x op y for an operator other than a comparison (x LIKE
	// ANY (SELECT ...)): bound over colRef 0 (x) and colRef 1 (the row)
	inner      Expr
	correlated bool
	id         int
}

func (s *subqueryExpr) Type() Type     { return s.t }
func (s *subqueryExpr) String() string { return "subquery#" + itoa(int64(s.id)) }

// prepareSubLink binds a sublink's query.
func (b *binder) prepareSubLink(sl *q.SubLink, sc *scope) (*subqueryExpr, *bound, error) {
	sel := sl.Subselect.GetSelectStmt()
	inner := newScope(sc)
	inner.passthrough = true
	savedAgg, savedWin := b.agg, b.win
	bd, err := b.bindSelect(sel, inner)
	b.agg, b.win = savedAgg, savedWin
	if err != nil {
		return nil, nil, err
	}
	correlated := inner.correlated
	// a correlated reference from the subquery marks our own scope too
	// when it reaches beyond it (handled by scope.resolve).
	s := &subqueryExpr{kind: sl.SubLinkType, p: bd.plan, correlated: correlated, id: b.newID()}
	if !correlated {
		s.p = &materialNode{input: bd.plan, id: s.id}
	}
	return s, bd, nil
}

// bindRowCompareSubLink binds (a, b) op (SELECT x, y).
func (b *binder) bindRowCompareSubLink(op string, left []*q.Node, sl *q.SubLink, sc *scope) (Expr, error) {
	s, bd, err := b.prepareSubLink(sl, sc)
	if err != nil {
		return nil, err
	}
	return b.bindRowSubLink(s, op, left, bd, sc)
}

func (b *binder) bindSubLink(sl *q.SubLink, sc *scope) (Expr, error) {
	s, bd, err := b.prepareSubLink(sl, sc)
	if err != nil {
		return nil, err
	}
	correlated := s.correlated
	switch sl.SubLinkType {
	case q.SubLinkType_EXISTS_SUBLINK:
		s.t = TBool
	case q.SubLinkType_EXPR_SUBLINK:
		if len(bd.cols) != 1 {
			return nil, errf(CodeSyntaxError, "subquery must return only one column")
		}
		s.t = bd.cols[0].t
	case q.SubLinkType_ARRAY_SUBLINK:
		if len(bd.cols) != 1 {
			return nil, errf(CodeSyntaxError, "subquery must return only one column")
		}
		at, ok := ArrayOf(bd.cols[0].t)
		if !ok {
			return nil, unsupported("ARRAY() over %s is not supported", bd.cols[0].t)
		}
		s.t = at
	case q.SubLinkType_ANY_SUBLINK, q.SubLinkType_ALL_SUBLINK:
		if re := sl.Testexpr.GetRowExpr(); re != nil {
			op := "="
			if len(sl.OperName) > 0 {
				if op, err = opName(sl.OperName); err != nil {
					return nil, err
				}
			}
			return b.bindRowSubLink(s, op, re.Args, bd, sc)
		}
		if len(bd.cols) != 1 {
			return nil, errf(CodeSyntaxError, "subquery has too many columns")
		}
		op := "="
		if len(sl.OperName) > 0 {
			if op, err = opName(sl.OperName); err != nil {
				return nil, err
			}
		}
		c, ok := cmpOps[op]
		if !ok {
			return b.bindGenericSubLink(s, op, sl, bd, sc)
		}
		test, err := b.bindExpr(sl.Testexpr, sc)
		if err != nil {
			return nil, err
		}
		ct, ok := comparableType(test.Type(), bd.cols[0].t)
		if test.Type().OID == OIDUnknown {
			ct, ok = bd.cols[0].t, true
		}
		if !ok {
			return nil, opNotExist(op, test.Type(), bd.cols[0].t)
		}
		if test, err = b.coerce(test, ct, castImplicit, ""); err != nil {
			return nil, err
		}
		if bd.cols[0].t.OID != ct.OID {
			cols := []colInfo{{name: bd.cols[0].name, t: ct}}
			pp := &projectNode{input: bd.plan, exprs: []Expr{&castExpr{arg: &colRef{idx: 0, t: bd.cols[0].t}, t: ct}}, cols: cols}
			s.p = pp
			if !correlated {
				s.p = &materialNode{input: pp, id: s.id}
			}
		}
		s.test, s.cmp, s.t = test, c, TBool
	default:
		return nil, unsupported("this kind of subquery is not supported")
	}
	return s, nil
}

func (s *subqueryExpr) Eval(ec *evalCtx, b *Batch, sel []int32) (*Vec, error) {
	out := NewVec(s.t, b.N)
	var test *Vec
	if s.test != nil {
		var err error
		if test, err = s.test.Eval(ec, b, sel); err != nil {
			return nil, err
		}
	}
	if s.rowTests != nil {
		return s.evalRows(ec, b, sel)
	}
	if s.inner != nil {
		return s.evalGeneric(ec, b, sel)
	}
	if !s.correlated && s.test != nil && ((s.kind == q.SubLinkType_ANY_SUBLINK && s.cmp == opEq) || (s.kind == q.SubLinkType_ALL_SUBLINK && s.cmp == opNe)) {
		return s.evalHashed(ec, b, sel, test)
	}
	if !s.correlated {
		rows, err := s.results(ec)
		if err != nil {
			return nil, err
		}
		var firstErr error
		forEach(b.N, sel, func(i int) {
			if firstErr == nil {
				firstErr = s.fill(out, i, rows, test)
			}
		})
		return out, firstErr
	}
	var firstErr error
	forEach(b.N, sel, func(i int) {
		if firstErr != nil {
			return
		}
		rows, err := s.resultsFor(ec, b, i)
		if err != nil {
			firstErr = err
			return
		}
		firstErr = s.fill(out, i, rows, test)
	})
	return out, firstErr
}

func (s *subqueryExpr) results(ec *evalCtx) (*Batch, error) {
	buf, err := collect(ec, s.p)
	if err != nil {
		return nil, err
	}
	return buf.batch(), nil
}

// resultsFor runs a correlated subquery for row i of the outer batch b.
func (s *subqueryExpr) resultsFor(ec *evalCtx, b *Batch, i int) (*Batch, error) {
	sub := *ec
	sub.outer = append(append([]outerRow{}, ec.outer...), outerRow{b: b, row: i})
	return s.results(&sub)
}

// fill sets out[i] from the subquery's rows.
func (s *subqueryExpr) fill(out *Vec, i int, rows *Batch, test *Vec) error {
	switch s.kind {
	case q.SubLinkType_EXISTS_SUBLINK:
		out.B[i] = rows.N > 0
	case q.SubLinkType_EXPR_SUBLINK:
		switch rows.N {
		case 0:
			out.SetNull(i)
		case 1:
			out.copyRow(i, rows.Cols[0], 0)
		default:
			return errf(CodeCardinalityViolation, "more than one row returned by a subquery used as an expression")
		}
	case q.SubLinkType_ARRAY_SUBLINK:
		items := rows.Cols[0].Gather(allRows(rows.N))
		out.A[i] = &Array{Elem: s.t.Elem(), Items: items}
	default:
		all := s.kind == q.SubLinkType_ALL_SUBLINK
		if test.IsNull(i) {
			if rows.N == 0 {
				out.B[i] = all
				return nil
			}
			out.SetNull(i)
			return nil
		}
		sawNull := false
		res := all
		col := rows.Cols[0]
		for r := 0; r < rows.N; r++ {
			if col.IsNull(r) {
				sawNull = true
				continue
			}
			h := s.cmp.holds(cmpRows(test, i, col, r))
			if !all && h {
				res = true
				break
			}
			if all && !h {
				res = false
				sawNull = false
				break
			}
		}
		if sawNull && res == all {
			out.SetNull(i)
			return nil
		}
		out.B[i] = res
	}
	return nil
}

// hashedSet is an uncorrelated IN-subquery's result as a hash set.
type hashedSet struct {
	keys    map[string]struct{}
	hasNull bool
	empty   bool
}

// evalHashed answers x IN (subquery) / x NOT IN (subquery) with a hash
// set built once per execution, keeping SQL's NULL rules.
func (s *subqueryExpr) evalHashed(ec *evalCtx, b *Batch, sel []int32, test *Vec) (*Vec, error) {
	if ec.run.hashed == nil {
		ec.run.hashed = map[int]*hashedSet{}
	}
	hs, ok := ec.run.hashed[s.id]
	if !ok {
		rows, err := s.results(ec)
		if err != nil {
			return nil, err
		}
		hs = &hashedSet{keys: make(map[string]struct{}, rows.N), empty: rows.N == 0}
		col := rows.Cols[0]
		var kb []byte
		for r := 0; r < rows.N; r++ {
			if col.IsNull(r) {
				hs.hasNull = true
				continue
			}
			kb = appendKey(kb[:0], col, r)
			hs.keys[string(kb)] = struct{}{}
		}
		if err := ec.run.budget.reserve(int64(rows.N) * 32); err != nil {
			return nil, err
		}
		ec.run.hashed[s.id] = hs
	}
	in := s.kind == q.SubLinkType_ANY_SUBLINK
	out := NewVec(TBool, b.N)
	var kb []byte
	forEach(b.N, sel, func(i int) {
		switch {
		case hs.empty:
			out.B[i] = !in
		case test.IsNull(i):
			out.SetNull(i)
		default:
			kb = appendKey(kb[:0], test, i)
			if _, found := hs.keys[string(kb)]; found {
				out.B[i] = in
			} else if hs.hasNull {
				out.SetNull(i)
			} else {
				out.B[i] = !in
			}
		}
	})
	return out, nil
}

// bindRowSubLink binds (a, b) op ANY/ALL (SELECT x, y) and, with kind
// EXPR, (a, b) op (SELECT x, y): the left row's columns and the
// subquery's are compared pairwise after coercion to a common type.
func (b *binder) bindRowSubLink(s *subqueryExpr, op string, left []*q.Node, bd *bound, sc *scope) (Expr, error) {
	if op == "!=" {
		op = "<>"
	}
	c, ok := cmpOps[op]
	if !ok {
		return nil, unsupported("row comparison operator %s is not supported", op)
	}
	if len(left) < len(bd.cols) {
		return nil, errf(CodeSyntaxError, "subquery has too many columns")
	}
	if len(left) > len(bd.cols) {
		return nil, errf(CodeSyntaxError, "subquery has too few columns")
	}
	tests, err := b.bindList(left, sc)
	if err != nil {
		return nil, err
	}
	exprs := make([]Expr, len(bd.cols))
	cols := make([]colInfo, len(bd.cols))
	cast := false
	for i, col := range bd.cols {
		ct, ok := comparableType(tests[i].Type(), col.t)
		if tests[i].Type().OID == OIDUnknown {
			ct, ok = col.t, true
		}
		if col.t.OID == OIDUnknown {
			ct, ok = tests[i].Type(), true
		}
		if !ok {
			return nil, opNotExist(op, tests[i].Type(), col.t)
		}
		if tests[i], err = b.coerce(tests[i], ct, castImplicit, ""); err != nil {
			return nil, err
		}
		exprs[i] = &colRef{idx: i, t: col.t}
		if col.t.OID != ct.OID {
			exprs[i] = &castExpr{arg: exprs[i], t: ct}
			cast = true
		}
		cols[i] = colInfo{name: col.name, t: ct}
	}
	if cast {
		s.p = &projectNode{input: bd.plan, exprs: exprs, cols: cols}
		if !s.correlated {
			s.p = &materialNode{input: s.p, id: s.id}
		}
	}
	s.rowTests, s.cmp, s.t = tests, c, TBool
	return s, nil
}

// rowCmp3 compares row i of tests with row r of cols under op with SQL's
// row-comparison rules: = and <> look at every pair (any unequal pair
// decides), ordering operators decide at the first unequal pair; a NULL
// pair met before the decision makes the result NULL (ok=false).
func rowCmp3(op cmpOp, tests []*Vec, i int, cols []*Vec, r int) (res, ok bool) {
	switch op {
	case opEq, opNe:
		sawNull := false
		for k, t := range tests {
			if t.IsNull(i) || cols[k].IsNull(r) {
				sawNull = true
				continue
			}
			if cmpRows(t, i, cols[k], r) != 0 {
				return op == opNe, true
			}
		}
		if sawNull {
			return false, false
		}
		return op == opEq, true
	}
	for k, t := range tests {
		if t.IsNull(i) || cols[k].IsNull(r) {
			return false, false
		}
		if c := cmpRows(t, i, cols[k], r); c != 0 {
			return op.holds(c), true
		}
	}
	return op.holds(0), true
}

// evalRows evaluates a row sublink for the selected rows.
func (s *subqueryExpr) evalRows(ec *evalCtx, b *Batch, sel []int32) (*Vec, error) {
	tests := make([]*Vec, len(s.rowTests))
	for k, e := range s.rowTests {
		v, err := e.Eval(ec, b, sel)
		if err != nil {
			return nil, err
		}
		tests[k] = v
	}
	out := NewVec(TBool, b.N)
	var rows *Batch
	if !s.correlated {
		var err error
		if rows, err = s.results(ec); err != nil {
			return nil, err
		}
	}
	var firstErr error
	forEach(b.N, sel, func(i int) {
		if firstErr != nil {
			return
		}
		rs := rows
		if s.correlated {
			var err error
			if rs, err = s.resultsFor(ec, b, i); err != nil {
				firstErr = err
				return
			}
		}
		firstErr = s.fillRow(out, i, tests, rs)
	})
	return out, firstErr
}

func (s *subqueryExpr) fillRow(out *Vec, i int, tests []*Vec, rows *Batch) error {
	if s.kind == q.SubLinkType_EXPR_SUBLINK {
		switch rows.N {
		case 0:
			out.SetNull(i)
		case 1:
			if r, ok := rowCmp3(s.cmp, tests, i, rows.Cols, 0); ok {
				out.B[i] = r
			} else {
				out.SetNull(i)
			}
		default:
			return errf(CodeCardinalityViolation, "more than one row returned by a subquery used as an expression")
		}
		return nil
	}
	all := s.kind == q.SubLinkType_ALL_SUBLINK
	sawNull := false
	for r := 0; r < rows.N; r++ {
		h, ok := rowCmp3(s.cmp, tests, i, rows.Cols, r)
		switch {
		case !ok:
			sawNull = true
		case h != all:
			// ANY found a true row, ALL a false one
			out.B[i] = h
			return nil
		}
	}
	if sawNull {
		out.SetNull(i)
		return nil
	}
	out.B[i] = all
	return nil
}

// bindGenericSubLink binds x op ANY/ALL (SELECT y) for a boolean operator
// that is not a comparison (LIKE, ILIKE, regex matches, ...).
func (b *binder) bindGenericSubLink(s *subqueryExpr, op string, sl *q.SubLink, bd *bound, sc *scope) (Expr, error) {
	test, err := b.bindExpr(sl.Testexpr, sc)
	if err != nil {
		return nil, err
	}
	ct := bd.cols[0].t
	if test.Type().OID == OIDUnknown {
		if test, err = b.coerce(test, TText, castImplicit, ""); err != nil {
			return nil, err
		}
	}
	inner, err := b.binaryOp(op, &colRef{idx: 0, t: test.Type()}, &colRef{idx: 1, t: ct})
	if err != nil {
		return nil, err
	}
	if inner.Type().OID != OIDBool {
		return nil, errf(CodeDatatypeMismatch, "operator %s must return type boolean, not type %s", op, inner.Type())
	}
	s.test, s.inner, s.t = test, inner, TBool
	return s, nil
}

// evalGeneric evaluates x op ANY/ALL (SELECT y) with a bound operator.
func (s *subqueryExpr) evalGeneric(ec *evalCtx, b *Batch, sel []int32) (*Vec, error) {
	test, err := s.test.Eval(ec, b, sel)
	if err != nil {
		return nil, err
	}
	var rows *Batch
	if !s.correlated {
		if rows, err = s.results(ec); err != nil {
			return nil, err
		}
	}
	all := s.kind == q.SubLinkType_ALL_SUBLINK
	out := NewVec(TBool, b.N)
	var firstErr error
	forEach(b.N, sel, func(i int) {
		if firstErr != nil {
			return
		}
		rs := rows
		if s.correlated {
			var err error
			if rs, err = s.resultsFor(ec, b, i); err != nil {
				firstErr = err
				return
			}
		}
		if rs.N == 0 {
			out.B[i] = all
			return
		}
		rep := make([]int32, rs.N)
		for k := range rep {
			rep[k] = int32(i)
		}
		v, err := s.inner.Eval(ec, &Batch{N: rs.N, Cols: []*Vec{test.Gather(rep), rs.Cols[0]}}, nil)
		if err != nil {
			firstErr = err
			return
		}
		res, sawNull := all, false
		for k := 0; k < rs.N; k++ {
			if v.IsNull(k) {
				sawNull = true
				continue
			}
			if v.B[k] != all {
				res, sawNull = v.B[k], false
				break
			}
		}
		if sawNull {
			out.SetNull(i)
		} else {
			out.B[i] = res
		}
	})
	return out, firstErr
}
