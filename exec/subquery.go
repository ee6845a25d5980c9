package exec

import (
	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// subqueryExpr is a sublink: scalar (EXPR), EXISTS, x op ANY/ALL (IN), or
// ARRAY(...). Uncorrelated subqueries run once per execution; correlated
// ones re-run for each outer row with that row pushed on the outer stack.
type subqueryExpr struct {
	kind       q.SubLinkType
	p          plan
	t          Type
	test       Expr  // left operand of ANY/ALL
	cmp        cmpOp // operator of ANY/ALL
	correlated bool
	id         int
}

func (s *subqueryExpr) Type() Type     { return s.t }
func (s *subqueryExpr) String() string { return "subquery#" + itoa(int64(s.id)) }

func (b *binder) bindSubLink(sl *q.SubLink, sc *scope) (Expr, error) {
	sel := sl.Subselect.GetSelectStmt()
	inner := newScope(sc)
	inner.passthrough = true
	savedAgg, savedWin := b.agg, b.win
	bd, err := b.bindSelect(sel, inner)
	b.agg, b.win = savedAgg, savedWin
	if err != nil {
		return nil, err
	}
	_ = bd
	correlated := inner.correlated
	// a correlated reference from the subquery marks our own scope too
	// when it reaches beyond it (handled by scope.resolve).
	s := &subqueryExpr{kind: sl.SubLinkType, p: bd.plan, correlated: correlated, id: b.newID()}
	if !correlated {
		s.p = &materialNode{input: bd.plan, id: s.id}
	}
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
		if len(bd.cols) != 1 {
			return nil, unsupported("row comparisons with subqueries are not supported")
		}
		op := "="
		if len(sl.OperName) > 0 {
			if op, err = opName(sl.OperName); err != nil {
				return nil, err
			}
		}
		c, ok := cmpOps[op]
		if !ok {
			return nil, unsupported("operator %s with ANY/ALL is not supported", op)
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
		sub := *ec
		sub.outer = append(append([]outerRow{}, ec.outer...), outerRow{b: b, row: i})
		buf, err := collect(&sub, s.p)
		if err != nil {
			firstErr = err
			return
		}
		firstErr = s.fill(out, i, buf.batch(), test)
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
