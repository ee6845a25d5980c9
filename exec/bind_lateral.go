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
		rf := proto.Clone(j.Rarg.GetRangeFunction()).(*q.RangeFunction)
		rf.Lateral = false
		fsc := &scope{parent: ls, aliases: sc.aliases}
		fp, fcols, err := b.bindRangeFunction(rf, fsc)
		if err != nil {
			return nil, nil, err
		}
		nl := len(lp.columns())
		all := append([]colInfo{}, lp.columns()...)
		all = append(all, fp.columns()...)
		for _, c := range fcols {
			c.idx += nl
			ls.cols = append(ls.cols, c)
		}
		ln = &lateralNode{left: lp, sub: fp, outer: outer, cols: all}
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
