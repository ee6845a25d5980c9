package exec

import (
	"strings"

	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
)

// GROUP BY ROLLUP / CUBE / GROUPING SETS and GROUPING().
//
// The GROUP BY clause expands into a list of grouping sets as
// PostgreSQL's does (each item's sets multiplied out, ROLLUP(a, b) =
// (a, b), (a), (); CUBE = every subset; GROUPING SETS lists them, nested
// ones flattened; a parenthesised list inside them is one unit). Every
// grouping expression is bound once; the aggregate then runs once per
// set over the buffered input, keyed by that set's expressions, and the
// groups come out with the expressions outside the set as NULL. GROUPING
// (args) is a column of the aggregate's output holding, per set, the
// bit mask of its arguments absent from the set (first argument the
// highest bit).

// maxGroupingSets is PostgreSQL's limit on expanded grouping sets.
const maxGroupingSets = 4096

// groupingRef is GROUPING(args) at the query level being bound; col is
// the aggregate output column that carries it (-1 until the aggregate is
// planned).
type groupingRef struct {
	args []Expr
	col  int
	loc  int32
}

func (g *groupingRef) Type() Type { return TInt4 }
func (g *groupingRef) String() string {
	parts := make([]string, len(g.args))
	for i, a := range g.args {
		parts[i] = a.String()
	}
	return "GROUPING(" + strings.Join(parts, ", ") + ")"
}
func (g *groupingRef) Eval(*evalCtx, *Batch, []int32) (*Vec, error) {
	return nil, errf(CodeGroupingError, "arguments to GROUPING must be grouping expressions of the associated query level")
}

// bindGroupingFunc binds GROUPING(args) where aggregates are allowed.
func (b *binder) bindGroupingFunc(gf *q.GroupingFunc, sc *scope) (Expr, error) {
	if b.agg == nil || b.aggLevel != "" {
		where := b.aggLevel
		if where == "" {
			where = "this context"
		}
		return nil, b.at(errf(CodeGroupingError, "grouping operations are not allowed in %s", where), gf.Location)
	}
	if len(gf.Args) > 31 {
		return nil, b.at(errf(pgerr.TooManyArguments, "GROUPING must have fewer than 32 arguments"), gf.Location)
	}
	saved := b.agg
	b.agg = nil
	defer func() { b.agg = saved }()
	g := &groupingRef{col: -1, loc: gf.Location}
	for _, a := range gf.Args {
		e, err := b.bindExprCtx(a, sc, "")
		if err != nil {
			return nil, err
		}
		g.args = append(g.args, e)
	}
	saved.grouping = append(saved.grouping, g)
	return g, nil
}

// hasGroupingSets reports a GROUP BY with ROLLUP, CUBE or GROUPING SETS
// (a lone () is a plain aggregate).
func hasGroupingSets(clause []*q.Node) bool {
	for _, n := range clause {
		if gs := n.GetGroupingSet(); gs != nil && gs.Kind != q.GroupingSetKind_GROUPING_SET_EMPTY {
			return true
		}
	}
	return false
}

// expandGroupingSets multiplies out a GROUP BY clause into its grouping
// sets, each a list of expression nodes.
func expandGroupingSets(clause []*q.Node) ([][]*q.Node, error) {
	sets := [][]*q.Node{{}}
	for _, item := range clause {
		ex, err := expandGroupItem(item, true)
		if err != nil {
			return nil, err
		}
		if len(sets)*len(ex) > maxGroupingSets {
			return nil, errf(CodeStackDepthExceeded, "too many grouping sets present (maximum %d)", maxGroupingSets)
		}
		next := make([][]*q.Node, 0, len(sets)*len(ex))
		for _, s := range sets {
			for _, e := range ex {
				next = append(next, append(append([]*q.Node{}, s...), e...))
			}
		}
		sets = next
	}
	return sets, nil
}

// expandGroupItem is the grouping sets of one item of a GROUP BY
// clause; top is false inside a grouping set, where a parenthesised
// list (an implicit ROW) is a unit of several expressions.
func expandGroupItem(n *q.Node, top bool) ([][]*q.Node, error) {
	gs := n.GetGroupingSet()
	if gs == nil {
		return [][]*q.Node{groupUnit(n, top)}, nil
	}
	switch gs.Kind {
	case q.GroupingSetKind_GROUPING_SET_EMPTY:
		return [][]*q.Node{{}}, nil
	case q.GroupingSetKind_GROUPING_SET_SIMPLE:
		return [][]*q.Node{gs.Content}, nil
	case q.GroupingSetKind_GROUPING_SET_ROLLUP:
		units := make([][]*q.Node, len(gs.Content))
		for i, c := range gs.Content {
			units[i] = groupUnit(c, false)
		}
		out := make([][]*q.Node, 0, len(units)+1)
		for k := len(units); k >= 0; k-- {
			var s []*q.Node
			for _, u := range units[:k] {
				s = append(s, u...)
			}
			out = append(out, s)
		}
		return out, nil
	case q.GroupingSetKind_GROUPING_SET_CUBE:
		if len(gs.Content) > 12 {
			return nil, errf(pgerr.TooManyColumns, "CUBE is limited to 12 elements")
		}
		units := make([][]*q.Node, len(gs.Content))
		for i, c := range gs.Content {
			units[i] = groupUnit(c, false)
		}
		// largest sets first, as PostgreSQL lists them
		var out [][]*q.Node
		n := len(units)
		for size := n; size >= 0; size-- {
			for mask := (1 << n) - 1; mask >= 0; mask-- {
				if popcount(mask) != size {
					continue
				}
				var s []*q.Node
				for i := range n {
					if mask&(1<<(n-1-i)) != 0 {
						s = append(s, units[i]...)
					}
				}
				out = append(out, s)
			}
		}
		return out, nil
	case q.GroupingSetKind_GROUPING_SET_SETS:
		var out [][]*q.Node
		for _, c := range gs.Content {
			ex, err := expandGroupItem(c, false)
			if err != nil {
				return nil, err
			}
			out = append(out, ex...)
			if len(out) > maxGroupingSets {
				return nil, errf(CodeStackDepthExceeded, "too many grouping sets present (maximum %d)", maxGroupingSets)
			}
		}
		return out, nil
	}
	return nil, unsupported("grouping set kind %s is not supported", gs.Kind)
}

// groupUnit is the expressions one element of a grouping set stands
// for: the fields of a parenthesised list, else the element.
func groupUnit(n *q.Node, top bool) []*q.Node {
	if !top {
		if r := n.GetRowExpr(); r != nil && r.RowFormat == q.CoercionForm_COERCE_IMPLICIT_CAST {
			return r.Args
		}
	}
	return []*q.Node{n}
}

func popcount(x int) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// groupingSetsNode runs an aggregate once per grouping set over its
// buffered input. Output: every grouping expression (NULL outside the
// row's set), the aggregates, then one int4 column per GROUPING() call.
type groupingSetsNode struct {
	input    plan
	groups   []Expr
	sets     [][]int // indexes into groups, per set
	aggs     []*aggCall
	grouping []*groupingRef
	cols     []colInfo
}

func (g *groupingSetsNode) columns() []colInfo { return g.cols }

func (g *groupingSetsNode) run(ec *evalCtx, emit func(*Batch) error) error {
	buf, err := collect(ec, g.input)
	if err != nil {
		return err
	}
	full := buf.batch()
	in := &batchReplayNode{cols: g.input.columns(), b: full}
	keys := make([]string, len(g.groups))
	for i, e := range g.groups {
		keys[i] = e.String()
	}
	for _, set := range g.sets {
		exprs := make([]Expr, len(set))
		cols := make([]colInfo, 0, len(set)+len(g.aggs))
		pos := make([]int, len(g.groups)) // group -> column of the set's output, or -1
		for i := range pos {
			pos[i] = -1
		}
		for k, gi := range set {
			exprs[k] = g.groups[gi]
			pos[gi] = k
			cols = append(cols, g.cols[gi])
		}
		cols = append(cols, g.cols[len(g.groups):len(g.groups)+len(g.aggs)]...)
		masks := make([]int64, len(g.grouping))
		for k, ref := range g.grouping {
			var m int64
			for _, a := range ref.args {
				m <<= 1
				if !inSet(a.String(), keys, pos) {
					m |= 1
				}
			}
			masks[k] = m
		}
		a := &aggNode{input: in, groups: exprs, aggs: g.aggs, cols: cols}
		err := a.run(ec, func(b *Batch) error {
			out := &Batch{N: b.N, Cols: make([]*Vec, 0, len(g.cols))}
			for gi := range g.groups {
				if pos[gi] >= 0 {
					out.Cols = append(out.Cols, b.Cols[pos[gi]])
				} else {
					out.Cols = append(out.Cols, nullVec(g.cols[gi].t, b.N))
				}
			}
			out.Cols = append(out.Cols, b.Cols[len(set):]...)
			for _, m := range masks {
				v := NewVec(TInt4, b.N)
				for r := range b.N {
					v.I[r] = m
				}
				out.Cols = append(out.Cols, v)
			}
			return emit(out)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// inSet reports whether the grouping expression spelled key is in the
// set (pos >= 0).
func inSet(key string, keys []string, pos []int) bool {
	for gi, k := range keys {
		if k == key && pos[gi] >= 0 {
			return true
		}
	}
	return false
}

// batchReplayNode emits one buffered batch (in chunks) every run.
type batchReplayNode struct {
	cols []colInfo
	b    *Batch
}

func (r *batchReplayNode) columns() []colInfo { return r.cols }
func (r *batchReplayNode) run(_ *evalCtx, emit func(*Batch) error) error {
	return emitChunks(r.b, emit)
}

// checkGroupingArgs requires every GROUPING() argument to be a grouping
// expression of its query level.
func checkGroupingArgs(refs []*groupingRef, groups []Expr) error {
	for _, ref := range refs {
		for _, a := range ref.args {
			found := false
			for _, g := range groups {
				if g.String() == a.String() {
					found = true
					break
				}
			}
			if !found {
				return errf(CodeGroupingError, "arguments to GROUPING must be grouping expressions of the associated query level")
			}
		}
	}
	return nil
}

// groupingSetIndexes merges equal grouping expressions (by their bound
// form) and lists each set as indexes into the merged list (a set's
// duplicates once).
func groupingSetIndexes(bound []Expr, sets [][]*q.Node, groupOf map[*q.Node]int) ([]Expr, [][]int) {
	var groups []Expr
	index := map[string]int{}
	merged := make([]int, len(bound))
	for i, e := range bound {
		k := e.String()
		j, ok := index[k]
		if !ok {
			j = len(groups)
			index[k] = j
			groups = append(groups, e)
		}
		merged[i] = j
	}
	out := make([][]int, len(sets))
	for si, s := range sets {
		seen := map[int]bool{}
		out[si] = []int{}
		for _, n := range s {
			gi, ok := groupOf[n]
			if !ok {
				continue // ()
			}
			j := merged[gi]
			if !seen[j] {
				seen[j] = true
				out[si] = append(out[si], j)
			}
		}
	}
	return groups, out
}

// newGroupingSetsNode plans the aggregate over grouping sets (one set
// of every group when sets is nil: a plain GROUP BY with GROUPING()).
func newGroupingSetsNode(input plan, groups []Expr, sets [][]int, aggs []*aggCall, grouping []*groupingRef, cols []colInfo) plan {
	if sets == nil {
		all := make([]int, len(groups))
		for i := range all {
			all[i] = i
		}
		sets = [][]int{all}
	}
	for _, g := range grouping {
		g.col = len(cols)
		cols = append(cols, colInfo{name: "grouping", t: TInt4})
	}
	return &groupingSetsNode{input: input, groups: groups, sets: sets, aggs: aggs, grouping: grouping, cols: cols}
}
