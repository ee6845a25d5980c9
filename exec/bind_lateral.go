package exec

import (
	"google.golang.org/protobuf/proto"

	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// lateralItem reports whether a JOIN's right item is explicitly LATERAL.
func lateralItem(n *q.Node) bool {
	if rs := n.GetRangeSubselect(); rs != nil {
		return rs.Lateral
	}
	if rf := n.GetRangeFunction(); rf != nil {
		return rf.Lateral
	}
	return false
}

// bindLateralJoin binds `left [INNER|LEFT|CROSS] JOIN LATERAL item ON
// cond` (a function on the right is implicitly lateral): the item is
// re-run for each left row, which its references to the left side read
// as outer references; ON filters the item's rows per left row and LEFT
// pads a left row none of them matched.
func (b *binder) bindLateralJoin(j *q.JoinExpr, lp plan, lcols []scopeCol, sc *scope) (plan, []scopeCol, error) {
	var outer bool
	switch j.Jointype {
	case q.JoinType_JOIN_INNER:
	case q.JoinType_JOIN_LEFT:
		outer = true
	default:
		return nil, nil, errf(CodeInvalidColumnReference, "The combining JOIN type must be INNER or LEFT for a LATERAL reference.")
	}
	if j.IsNatural || len(j.UsingClause) > 0 {
		return nil, nil, unsupported("NATURAL or USING joins with a LATERAL item are not supported")
	}
	ls := &scope{cols: append([]scopeCol{}, lcols...), parent: sc.parent, aliases: sc.aliases}
	var ln *lateralNode
	switch {
	case j.Rarg.GetRangeSubselect() != nil:
		p, err := b.bindLateral(lp, j.Rarg.GetRangeSubselect(), ls, outer)
		if err != nil {
			return nil, nil, err
		}
		ln = p.(*lateralNode)
	case j.Rarg.GetRangeFunction() != nil:
		var err error
		if ln, err = b.bindLateralFuncNode(lp, j.Rarg.GetRangeFunction(), ls, outer); err != nil {
			return nil, nil, err
		}
	default:
		return nil, nil, unsupported("LATERAL %s is not supported", nodeName(j.Rarg))
	}
	if j.Quals != nil {
		js := &scope{cols: ls.cols, parent: sc.parent, aliases: sc.aliases}
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
		if c, ok := cond.(*constExpr); !ok || c.val.IsNull(0) || !c.val.B[0] {
			ln.cond = cond
		}
	}
	return ln, ls.cols, nil
}

// bindAliasedJoin binds `(a JOIN b ...) AS j [(c1, ...)]`: the joined
// columns are reachable as j.col (renamed by the column list) and the
// inner range names are no longer visible.
func (b *binder) bindAliasedJoin(j *q.JoinExpr, sc *scope) (plan, []scopeCol, error) {
	inner := &scope{parent: sc.parent, aliases: map[string]bool{}}
	p, cols, err := b.bindJoinExpr(j, inner)
	if err != nil {
		return nil, nil, err
	}
	if inner.correlated {
		sc.correlated = true
	}
	name := j.Alias.Aliasname
	if err := b.addAlias(sc, name); err != nil {
		return nil, nil, err
	}
	var visible []int
	for i, c := range cols {
		if !c.hidden && !c.noStar {
			visible = append(visible, i)
		}
	}
	if len(j.Alias.Colnames) > len(visible) {
		return nil, nil, errf(CodeInvalidColumnReference, "table \"%s\" has %d columns available but %d columns specified", name, len(visible), len(j.Alias.Colnames))
	}
	out := make([]scopeCol, 0, len(cols))
	for i, c := range cols {
		if c.hidden || c.noStar {
			// merged-away USING inputs and system columns stay out of j.*
			c.noUnqual, c.noStar = true, true
			c.table = ""
		} else {
			c.table = name
		}
		out = append(out, c)
		_ = i
	}
	for k, n := range j.Alias.Colnames {
		out[visible[k]].name = n.GetString_().Sval
	}
	return p, out, nil
}

// bindLateralFuncNode binds a function item that reads earlier FROM
// items (ls holds their columns; the function's columns are appended) as
// a lateralNode that calls it once per left row.
func (b *binder) bindLateralFuncNode(lp plan, rf0 *q.RangeFunction, ls *scope, outer bool) (*lateralNode, error) {
	rf := proto.Clone(rf0).(*q.RangeFunction)
	rf.Lateral = false
	fsc := &scope{parent: ls, aliases: ls.aliases}
	fp, fcols, err := b.bindRangeFunction(rf, fsc)
	if err != nil {
		return nil, err
	}
	nl := len(lp.columns())
	all := append([]colInfo{}, lp.columns()...)
	all = append(all, fp.columns()...)
	for _, c := range fcols {
		c.idx += nl
		ls.cols = append(ls.cols, c)
	}
	return &lateralNode{left: lp, sub: fp, outer: outer, cols: all}, nil
}

// projectSetLateral reports whether a lateral function item can run as a
// projectSet over the earlier items (a single set-returning function of
// one output column); others use a lateralNode.
func projectSetLateral(rf *q.RangeFunction) bool {
	if rf.Ordinality || rf.IsRowsfrom || len(rf.Functions) != 1 || len(rf.Coldeflist) != 0 {
		return false
	}
	fc := rf.Functions[0].GetList().Items[0].GetFuncCall()
	if fc == nil {
		return false
	}
	name, err := funcName(fc.Funcname)
	return err == nil && builtinSRF(name)
}

// bindLateralFromFunction binds a function FROM item reading earlier
// comma items.
func (b *binder) bindLateralFromFunction(p plan, rf *q.RangeFunction, sc *scope) (plan, error) {
	if projectSetLateral(rf) {
		return b.bindLateralFunction(p, rf, sc)
	}
	ls := &scope{cols: sc.cols, parent: sc.parent, aliases: sc.aliases}
	ln, err := b.bindLateralFuncNode(p, rf, ls, false)
	if err != nil {
		return nil, err
	}
	sc.cols = ls.cols
	return ln, nil
}

// normalizeFromFunction rewrites FROM string_to_table(s, d [, n]) [AS a]
// into unnest(string_to_array(s, d [, n])) AS string_to_table (or a), so
// the column keeps PostgreSQL's name. Other items are returned as is.
func normalizeFromFunction(n *q.Node) *q.Node {
	rf := n.GetRangeFunction()
	if rf == nil || rf.IsRowsfrom || len(rf.Functions) != 1 {
		return n
	}
	items := rf.Functions[0].GetList().GetItems()
	if len(items) == 0 || items[0].GetFuncCall() == nil {
		return n
	}
	if name, err := funcName(items[0].GetFuncCall().Funcname); err != nil || name != "string_to_table" {
		return n
	}
	c := proto.Clone(n).(*q.Node)
	crf := c.GetRangeFunction()
	fc := crf.Functions[0].GetList().Items[0].GetFuncCall()
	inner := proto.Clone(fc).(*q.FuncCall)
	inner.Funcname = []*q.Node{{Node: &q.Node_String_{String_: &q.String{Sval: "string_to_array"}}}}
	fc.Funcname = []*q.Node{{Node: &q.Node_String_{String_: &q.String{Sval: "unnest"}}}}
	fc.Args = []*q.Node{{Node: &q.Node_FuncCall{FuncCall: inner}}}
	if crf.Alias == nil {
		crf.Alias = &q.Alias{Aliasname: "string_to_table"}
	}
	return c
}
