package exec

import (
	"strings"

	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// Decorrelation of WHERE-level [NOT] EXISTS.
//
// A top-level WHERE conjunct `EXISTS (SELECT ... FROM f WHERE p AND i1 = o1
// AND ...)`, whose correlation is only equalities between expressions over
// the subquery's FROM (i) and over the enclosing query's row (o), is
// answered by one hash semi join of the enclosing rows with the filtered
// FROM on (o) = (i); NOT EXISTS by an anti join. This is exact: EXISTS is
// true iff some inner row satisfies every conjunct, an equality with a NULL
// side is never true (hash keys with a NULL never match), and an anti join
// keeps exactly the rows without such an inner row (a NULL outer key
// included). A correlated `x IN (SELECT y ...)` conjunct is a semi join
// with the extra key pair x = y (in WHERE, NULL and false both drop the
// row); NOT IN keeps the per-row path (its NULL rules differ). Without the
// rewrite the subquery re-runs per outer row.
// Anything else (OFFSET, a LIMIT other than a positive literal,
// aggregates, GROUP BY, set operations, volatile functions, other
// correlation, a sublink under OR) keeps the per-row path.

// decorrelateExistsOn switches the rewrite (benchmarks compare both paths).
var decorrelateExistsOn = true

// semiJoinSpec is one decorrelated conjunct.
type semiJoinSpec struct {
	right     plan
	kind      joinKind
	leftKeys  []Expr
	rightKeys []Expr
}

// andArgs flattens a parse tree's AND into its conjuncts.
func andArgs(n *q.Node) []*q.Node {
	if be := n.GetBoolExpr(); be != nil && be.Boolop == q.BoolExprType_AND_EXPR {
		var out []*q.Node
		for _, a := range be.Args {
			out = append(out, andArgs(a)...)
		}
		return out
	}
	return []*q.Node{n}
}

// existsConjunct recognizes EXISTS (sub), NOT EXISTS (sub) and x IN (sub)
// (in, set for the latter: x = ANY with a single left operand).
func existsConjunct(n *q.Node) (sel *q.SelectStmt, kind joinKind, in *q.SubLink, ok bool) {
	kind = joinSemi
	if be := n.GetBoolExpr(); be != nil && be.Boolop == q.BoolExprType_NOT_EXPR && len(be.Args) == 1 {
		n, kind = be.Args[0], joinAnti
	}
	sl := n.GetSubLink()
	if sl == nil {
		return nil, 0, nil, false
	}
	sel = sl.Subselect.GetSelectStmt()
	switch {
	case sel == nil:
		return nil, 0, nil, false
	case sl.SubLinkType == q.SubLinkType_EXISTS_SUBLINK:
		return sel, kind, nil, true
	case sl.SubLinkType == q.SubLinkType_ANY_SUBLINK && kind == joinSemi && sl.Testexpr.GetRowExpr() == nil &&
		len(sel.TargetList) == 1 && isEqOperator(sl.OperName):
		// NOT (x IN ...) has NOT IN's NULL rules: not a plain anti join
		return sel, kind, sl, true
	}
	return nil, 0, nil, false
}

// isEqOperator reports whether an ANY sublink's operator is = (IN).
func isEqOperator(name []*q.Node) bool {
	if len(name) == 0 {
		return true
	}
	op, err := opName(name)
	return err == nil && op == "="
}

// simpleExistsQuery reports whether a subquery's shape leaves its row
// existence to FROM and WHERE alone.
func simpleExistsQuery(sel *q.SelectStmt, in bool) bool {
	if (sel.Op != q.SetOperation_SETOP_NONE && sel.Op != q.SetOperation_SET_OPERATION_UNDEFINED) ||
		len(sel.FromClause) == 0 || sel.WhereClause == nil || sel.WithClause != nil ||
		(in && sel.LimitCount != nil) || !existsNeutralLimit(sel.LimitCount) || sel.LimitOffset != nil || len(sel.GroupClause) > 0 ||
		sel.HavingClause != nil || len(sel.WindowClause) > 0 || len(sel.ValuesLists) > 0 ||
		len(sel.LockingClause) > 0 || sel.IntoClause != nil || len(sel.DistinctClause) > 0 {
		return false
	}
	if !plainFrom(sel.FromClause) {
		return false
	}
	// a target list of constants and column references cannot change the
	// row count (set-returning functions and aggregates could)
	for _, t := range sel.TargetList {
		rt := t.GetResTarget()
		if rt == nil || rt.Val == nil || (rt.Val.GetAConst() == nil && rt.Val.GetColumnRef() == nil) {
			return false
		}
		if in && rt.Val.GetColumnRef() == nil {
			// x IN (SELECT <constant> ...): left to the ordinary path
			return false
		}
	}
	return true
}

// existsNeutralLimit reports whether a subquery's LIMIT leaves EXISTS's
// answer unchanged: none, or a positive integer literal (ORMs write
// EXISTS (SELECT 1 ... LIMIT 1)); PostgreSQL drops such a limit too.
func existsNeutralLimit(n *q.Node) bool {
	if n == nil {
		return true
	}
	c := n.GetAConst()
	return c != nil && c.GetIval() != nil && c.GetIval().GetIval() > 0
}

// plainFrom reports whether FROM holds only tables (and CTEs) and joins
// of them: a derived table or function in FROM may read the enclosing row
// in ways the scope's correlation flag does not show.
func plainFrom(items []*q.Node) bool {
	for _, it := range items {
		switch {
		case it.GetRangeVar() != nil:
		case it.GetJoinExpr() != nil:
			j := it.GetJoinExpr()
			if !plainFrom([]*q.Node{j.Larg, j.Rarg}) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// volatileFuncs are functions whose value may differ per call: a
// predicate holding one must be evaluated per outer row.
var volatileFuncs = map[string]bool{
	"random": true, "random_normal": true, "setseed": true, "nextval": true, "currval": true,
	"setval": true, "lastval": true, "clock_timestamp": true, "timeofday": true,
	"gen_random_uuid": true, "uuid_generate_v4": true, "txid_current": true, "pg_current_xact_id": true,
	"pg_sleep": true, "set_config": true, "pg_notify": true, "array_sample": true, "array_shuffle": true,
	"pg_cancel_backend": true, "pg_terminate_backend": true,
}

// plainNode reports whether an expression node (not its children) is
// deterministic and self-contained: no sublink, aggregate, window or
// set-returning reference, no volatile function.
func plainNode(x Expr) bool {
	switch c := x.(type) {
	case *opExpr:
		return !c.isVolatile() && !strings.Contains(c.name, "advisory")
	case *constExpr, *foldedCast, *paramExpr, *boolExpr, *nullTest, *boolTest, *caseExpr, *coalesceExpr,
		*castExpr, *inListExpr, *arrayExpr, *distinctExpr, *fieldSelectExpr, *recordExpr:
		return true
	}
	return false
}

// refsOf classifies an expression bound in the subquery's scope: whether it
// reads inner columns and the enclosing row (level-1 outer references), and
// whether it is safe to move (only plain, non-volatile expression nodes and
// no deeper outer references).
func refsOf(e Expr) (inner, outer, safe bool) {
	safe = true
	walkExpr(e, func(x Expr) {
		switch c := x.(type) {
		case *colRef:
			inner = true
		case *outerRef:
			if c.level == 1 {
				outer = true
			} else {
				safe = false
			}
		default:
			if !plainNode(x) {
				safe = false
			}
		}
	})
	return inner, outer, safe
}

// decorrelateExists builds the semi/anti join for one EXISTS subquery of
// the query whose scope is sc, or ok=false when the subquery does not
// qualify. The caller has bound the sublink the ordinary way already, so
// binding errors cannot surface here for the first time.
func (b *binder) decorrelateExists(sel *q.SelectStmt, kind joinKind, in *q.SubLink, sc *scope) (*semiJoinSpec, bool) {
	if !simpleExistsQuery(sel, in != nil) {
		return nil, false
	}
	savedAgg, savedWin := b.agg, b.win
	b.agg, b.win = nil, nil
	defer func() { b.agg, b.win = savedAgg, savedWin }()
	inner := newScope(sc)
	rp, err := b.bindFrom(sel.FromClause, inner)
	if err != nil || inner.correlated {
		// a lateral reference to the enclosing row from FROM
		return nil, false
	}
	spec := &semiJoinSpec{kind: kind}
	var filters []Expr
	for _, cn := range andArgs(sel.WhereClause) {
		e, err := b.bindExprCtx(cn, inner, "WHERE")
		if err != nil {
			return nil, false
		}
		if e, err = b.coerceBool(e, "WHERE"); err != nil {
			return nil, false
		}
		readsInner, readsOuter, safe := refsOf(e)
		if !safe {
			return nil, false
		}
		if !readsOuter {
			filters = append(filters, e)
			continue
		}
		op, isOp := e.(*opExpr)
		if !isOp || op.name != "=" || len(op.args) != 2 || !readsInner {
			return nil, false
		}
		li, lo, _ := refsOf(op.args[0])
		ri, ro, _ := refsOf(op.args[1])
		var ik, ok Expr
		switch {
		case li && !lo && ro && !ri:
			ik, ok = op.args[0], op.args[1]
		case ri && !ro && lo && !li:
			ik, ok = op.args[1], op.args[0]
		default:
			return nil, false
		}
		// the outer side reads the enclosing row: its level-1 references
		// become columns of the join's left input
		lk, _ := rewriteOuter(ok)
		spec.leftKeys = append(spec.leftKeys, lk)
		spec.rightKeys = append(spec.rightKeys, ik)
	}
	if len(spec.leftKeys) == 0 {
		// uncorrelated: the ordinary path already runs it once (IN
		// with a hash set)
		return nil, false
	}
	if in != nil {
		// x IN (SELECT y ...) in WHERE keeps a row iff some inner row has
		// y = x true (NULL and false both drop it): one more key pair
		y, err := b.bindExprCtx(sel.TargetList[0].GetResTarget().Val, inner, "")
		if err != nil {
			return nil, false
		}
		x, err := b.bindExprCtx(in.Testexpr, sc, "")
		if err != nil {
			return nil, false
		}
		yi, yo, ysafe := refsOf(y)
		if !yi || yo || !ysafe || !movableLeft(x) {
			return nil, false
		}
		eq, err := b.binaryOp("=", x, y)
		if err != nil {
			return nil, false
		}
		op, ok := eq.(*opExpr)
		if !ok || op.name != "=" || len(op.args) != 2 {
			return nil, false
		}
		spec.leftKeys = append(spec.leftKeys, op.args[0])
		spec.rightKeys = append(spec.rightKeys, op.args[1])
	}
	spec.right = rp
	switch len(filters) {
	case 0:
	case 1:
		spec.right = b.pushFilter(rp, filters[0])
	default:
		spec.right = b.pushFilter(rp, &boolExpr{op: "AND", args: filters})
	}
	return spec, true
}

// movableLeft reports whether an expression bound in the enclosing query
// may be evaluated as a join key over its rows (no sublinks, nothing
// volatile; outer references of that query stay as they are).
func movableLeft(e Expr) bool {
	ok := true
	walkExpr(e, func(x Expr) {
		switch x.(type) {
		case *colRef, *outerRef:
		default:
			if !plainNode(x) {
				ok = false
			}
		}
	})
	return ok
}

// rewriteOuter turns level-1 outer references into column references.
func rewriteOuter(e Expr) (Expr, error) {
	if o, ok := e.(*outerRef); ok && o.level == 1 {
		return &colRef{idx: o.idx, t: o.t}, nil
	}
	return mapChildren(e, rewriteOuter)
}

// bindWhereDecorrelated plans a WHERE clause whose top-level conjuncts
// include decorrelatable [NOT] EXISTS as semi/anti joins over input; the
// other conjuncts filter input first. ok=false leaves the clause to the
// ordinary filter. pred is the whole clause already bound (and checked).
func (b *binder) bindWhereDecorrelated(where *q.Node, input plan, sc *scope) (plan, bool, error) {
	if !decorrelateExistsOn {
		return nil, false, nil
	}
	conjuncts := andArgs(where)
	var specs []*semiJoinSpec
	var rest []*q.Node
	for _, cn := range conjuncts {
		if sel, kind, in, ok := existsConjunct(cn); ok {
			if spec, ok := b.decorrelateExists(sel, kind, in, sc); ok {
				specs = append(specs, spec)
				continue
			}
		}
		rest = append(rest, cn)
	}
	if len(specs) == 0 {
		return nil, false, nil
	}
	var preds []Expr
	for _, cn := range rest {
		e, err := b.bindExprCtx(cn, sc, "WHERE")
		if err != nil {
			return nil, false, err
		}
		if e, err = b.coerceBool(e, "WHERE"); err != nil {
			return nil, false, err
		}
		preds = append(preds, e)
	}
	switch len(preds) {
	case 0:
	case 1:
		input = b.pushFilter(input, preds[0])
	default:
		input = b.pushFilter(input, &boolExpr{op: "AND", args: preds})
	}
	for _, s := range specs {
		input = &joinNode{left: input, right: s.right, kind: s.kind, leftKeys: s.leftKeys, rightKeys: s.rightKeys,
			cols: input.columns()}
	}
	return input, true, nil
}
