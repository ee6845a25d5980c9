package pgq

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pggraph/pggraph/pgerr"
)

// maxCombinations bounds how many element-table assignments one clause
// may expand into (one UNION ALL arm each).
const maxCombinations = 256

// CodeProgramLimit is SQLSTATE 54000.
const CodeProgramLimit = pgerr.ProgramLimitExceeded

// variable is one element variable of a clause (anonymous elements get
// a generated one each).
type variable struct {
	name   string
	edge   bool
	quant  bool // a quantified edge: a group variable, not referenceable
	labels []*Label
	cands  []*ElementTable
}

// rewriter turns one clause into SQL over g's tables.
type rewriter struct {
	gt    *GraphTable
	g     *Graph
	vars  map[string]*variable
	order []*variable            // non-quantified variables, by first occurrence
	elVar map[*Element]*variable // each element's variable
	names []string               // output column names
	paths map[string]*Path       // path variables
	// quantAlias names, while an arm is built, the relation holding each
	// quantified edge's walk length (column n; "" for zero-length only)
	quantAlias map[*Element]string
	// quantTag is, while an arm is built, the table number a quantified
	// edge's walks end in when they cross vertex tables (taggedWalksCTE),
	// else -1
	quantTag map[*Element]int
	// elidable are the vertex variables the pattern only passes through
	// (see elide); elided maps, while an arm is built, those not joined
	// to the edge column standing for each of their key columns
	elidable map[*variable]bool
	elided   map[*variable]map[string]string
	// keyProps are the properties an elidable vertex's references read:
	// it is elided only where each is a column of the reaching endpoint's
	// key (then the edge's column)
	keyProps map[*variable][]string
	// armCombo is, while an arm is built, its assignment of element
	// tables (what the element functions LABELS and PROPERTY_NAMES read)
	armCombo combo
}

// Rewrite returns the SELECT that computes gt over g: for every
// assignment of element tables to the pattern's variables that the
// labels allow and the edges connect, the pattern as a join in path
// order (so edge endpoints are adjacency-index lookups), the arms
// combined with UNION ALL. Quantified edges become recursive CTEs.
func Rewrite(gt *GraphTable, g *Graph) (string, error) {
	r := &rewriter{gt: gt, g: g, vars: map[string]*variable{}, elVar: map[*Element]*variable{}, paths: map[string]*Path{}, quantAlias: map[*Element]string{}, quantTag: map[*Element]int{}}
	if err := r.collect(); err != nil {
		return "", err
	}
	if err := r.checkRefs(); err != nil {
		return "", err
	}
	if err := r.columnNames(); err != nil {
		return "", err
	}
	r.findElidable()
	combos, err := r.combinations()
	if err != nil {
		return "", err
	}
	if len(combos) == 0 {
		return r.emptyQuery()
	}
	var ctes, arms []string
	for ci, c := range combos {
		arm, cs, err := r.arm(ci, c)
		if err != nil {
			return "", err
		}
		arms = append(arms, arm)
		ctes = append(ctes, cs...)
	}
	q := strings.Join(arms, " UNION ALL ")
	if p := r.generalSelection(); p != nil {
		q = r.selectPaths(p, q)
	}
	if len(ctes) > 0 {
		q = "WITH RECURSIVE " + strings.Join(ctes, ", ") + " " + q
	}
	return q, nil
}

func (r *rewriter) collect() error {
	n := 0
	for _, p := range r.gt.Paths {
		oneQuant := oneQuantPath(p)
		if p.Selector != nil && !oneQuant && len(r.gt.Paths) > 1 {
			return errAt(CodeFeature, p.Elems[0].Pos, "path selectors are only supported on a path of one quantified edge pattern between two vertex patterns, or on a graph pattern of one path pattern")
		}
		if p.Var != "" {
			if _, dup := r.paths[p.Var]; dup {
				return errAt(CodeSyntaxError, p.Pos, "path variable \"%s\" is used more than once", p.Var)
			}
			r.paths[p.Var] = p
		}
		for _, el := range p.Elems {
			name := el.Var
			if name == "" || el.Quant != nil {
				n++
				if name == "" {
					name = fmt.Sprintf("_pgq%d", n)
				} else {
					if v, ok := r.vars[name]; ok && !v.quant {
						return errAt(CodeFeature, el.Pos, "element variable \"%s\" of a quantified edge pattern cannot be used elsewhere", name)
					}
					name = fmt.Sprintf("%s_pgq%d", name, n)
				}
			}
			v, ok := r.vars[name]
			if !ok {
				v = &variable{name: name, edge: el.Edge, quant: el.Quant != nil}
				r.vars[name] = v
				if el.Var != "" && el.Quant != nil {
					r.vars[el.Var] = v // references to it are refused (checkRefs)
				}
				if !v.quant {
					r.order = append(r.order, v)
				}
			} else if v.edge != el.Edge {
				return errAt(CodeSyntaxError, el.Pos, "element variable \"%s\" is used for both a vertex and an edge", name)
			} else if v.quant {
				return errAt(CodeFeature, el.Pos, "element variable \"%s\" of a quantified edge pattern cannot be used elsewhere", name)
			}
			if err := el.Label.checkLabels(r.g); err != nil {
				return err
			}
			v.labels = append(v.labels, el.Label)
			r.elVar[el] = v
		}
	}
	for _, v := range r.vars {
		tables := r.g.Vertices
		if v.edge {
			tables = r.g.Edges
		}
		v.cands = nil
	next:
		for _, t := range tables {
			for _, l := range v.labels {
				if !l.matches(t) {
					continue next
				}
			}
			v.cands = append(v.cands, t)
		}
	}
	return nil
}

// columnNames names the output columns: the alias, else the property a
// lone property reference reads.
func (r *rewriter) columnNames() error {
	for _, c := range r.gt.Columns {
		if c.Alias != "" {
			r.names = append(r.names, c.Alias)
			continue
		}
		t := c.Expr.toks
		if len(t) == 3 && r.isVarTok(t[0]) && t[1].is(".") && isNameTok(t[2]) {
			r.names = append(r.names, t[2].val)
			continue
		}
		return errAt(CodeSyntaxError, c.Pos, "complex graph table column must specify an explicit column name")
	}
	return nil
}

func isNameTok(t token) bool { return t.kind == tIdent || t.kind == tQIdent }

func (r *rewriter) isVarTok(t token) bool {
	if !isNameTok(t) {
		return false
	}
	_, ok := r.vars[t.val]
	return ok
}

// checkRefs checks every property reference names a property of the
// graph, and refuses references to quantified (group) variables outside
// their own pattern.
func (r *rewriter) checkRefs() error {
	check := func(e *Expr, own *variable) error {
		_, err := r.subst(e, own, func(v *variable, prop string, pos int) (string, error) {
			if r.g.propType(prop) == "" {
				return "", errAt(CodeSyntaxError, pos, "property \"%s\" does not exist", prop)
			}
			return "", nil
		})
		return err
	}
	for _, p := range r.gt.Paths {
		for _, el := range p.Elems {
			if el.Where == nil {
				continue
			}
			var own *variable
			if el.Quant != nil {
				own = r.elVar[el]
			}
			if err := check(el.Where, own); err != nil {
				return err
			}
		}
		for _, w := range p.Wheres {
			if err := check(w, nil); err != nil {
				return err
			}
		}
	}
	if r.gt.Where != nil {
		if err := check(r.gt.Where, nil); err != nil {
			return err
		}
	}
	for _, c := range r.gt.Columns {
		if err := check(c.Expr, nil); err != nil {
			return err
		}
	}
	return nil
}

// subst copies e's text with each property reference var.prop replaced
// by what ref returns. own, when set, is the quantified variable whose
// references are allowed (inside its own element pattern).
func (r *rewriter) subst(e *Expr, own *variable, ref func(v *variable, prop string, pos int) (string, error)) (string, error) {
	var b strings.Builder
	t := e.toks
	prev := t[0].start
	for i := 0; i < len(t); i++ {
		// path_length(p) of a path variable p
		if t[i].isWord("path_length") && i+3 < len(t) && t[i+1].is("(") && isNameTok(t[i+2]) && t[i+3].is(")") && !(i > 0 && t[i-1].is(".")) {
			if p, ok := r.paths[t[i+2].val]; ok {
				b.WriteString(e.src[prev:t[i].start])
				b.WriteString(r.pathLength(p))
				prev = t[i+3].end
				i += 3
				continue
			}
		}
		// LABELS(v) and PROPERTY_NAMES(v) of an element variable v
		if (t[i].isWord("labels") || t[i].isWord("property_names")) && i+3 < len(t) && t[i+1].is("(") && r.isVarTok(t[i+2]) && t[i+3].is(")") && !(i > 0 && t[i-1].is(".")) {
			v := r.vars[t[i+2].val]
			if v.quant && v != own {
				return "", errAt(CodeFeature, t[i+2].start, "element variable \"%s\" of a quantified edge pattern cannot be referenced outside its pattern", t[i+2].val)
			}
			b.WriteString(e.src[prev:t[i].start])
			b.WriteString(r.elementFunction(t[i].val, v))
			prev = t[i+3].end
			i += 3
			continue
		}
		if !r.isVarTok(t[i]) || i > 0 && t[i-1].is(".") || i+1 >= len(t) || !t[i+1].is(".") {
			continue
		}
		if i+2 >= len(t) || !isNameTok(t[i+2]) {
			if i+2 < len(t) && t[i+2].is("*") {
				return "", errAt(CodeFeature, t[i].start, "\"*\" is not supported here")
			}
			continue
		}
		v := r.vars[t[i].val]
		if v.quant && v != own {
			return "", errAt(CodeFeature, t[i].start, "element variable \"%s\" of a quantified edge pattern cannot be referenced outside its pattern", t[i].val)
		}
		s, err := ref(v, t[i+2].val, t[i].start)
		if err != nil {
			return "", err
		}
		b.WriteString(e.src[prev:t[i].start])
		b.WriteString(s)
		prev = t[i+2].end
		i += 2
	}
	b.WriteString(e.src[prev:t[len(t)-1].end])
	return b.String(), nil
}

// combo assigns an element table to each non-quantified variable.
type combo map[*variable]*ElementTable

// orientation is one way an edge occurrence may connect its endpoints:
// the variables its source and destination columns join.
type orientation struct{ src, dst *variable }

// orientations lists how edge table et connects vertex tables tl (left)
// and tr (right) for direction d.
func orientations(d Direction, et, tl, tr *ElementTable, l, rv *variable) []orientation {
	var out []orientation
	fwd := et.Src.Vertex == tl && et.Dst.Vertex == tr
	back := et.Src.Vertex == tr && et.Dst.Vertex == tl
	if (d == Right || d == Any) && fwd {
		out = append(out, orientation{l, rv})
	}
	if (d == Left || d == Any) && back && !(d == Any && fwd && l == rv) {
		out = append(out, orientation{rv, l})
	}
	return out
}

// combinations enumerates the assignments whose edges connect.
func (r *rewriter) combinations() ([]combo, error) {
	var out []combo
	cur := combo{}
	var walk func(k int) error
	walk = func(k int) error {
		if !r.consistent(cur) {
			return nil
		}
		if k == len(r.order) {
			c := combo{}
			for v, t := range cur {
				c[v] = t
			}
			out = append(out, c)
			if len(out) > maxCombinations {
				return errAt(CodeProgramLimit, -1, "GRAPH_TABLE pattern matches more than %d combinations of element tables", maxCombinations)
			}
			return nil
		}
		v := r.order[k]
		for _, t := range v.cands {
			cur[v] = t
			if err := walk(k + 1); err != nil {
				return err
			}
		}
		delete(cur, v)
		return nil
	}
	return out, walk(0)
}

// consistent checks every edge occurrence whose tables are all assigned.
func (r *rewriter) consistent(c combo) bool {
	for _, p := range r.gt.Paths {
		for i := 1; i < len(p.Elems); i += 2 {
			el := p.Elems[i]
			l, rv := r.elVar[p.Elems[i-1]], r.elVar[p.Elems[i+1]]
			tl, okL := c[l]
			tr, okR := c[rv]
			if !okL || !okR {
				continue
			}
			if el.Quant != nil {
				if steps, _ := r.walkSteps(el, tl, tr); len(steps) == 0 && !(el.Quant.Min == 0 && tl == tr) {
					return false
				}
				continue
			}
			te, ok := c[r.elVar[el]]
			if ok && len(orientations(el.Dir, te, tl, tr, l, rv)) == 0 {
				return false
			}
		}
	}
	return true
}

// quantTables lists the edge tables a quantified edge may repeat over
// between vertex tables tl and tr: those from one of them to itself
// (repetition returns to the same table), when tl and tr are the same.
func (r *rewriter) quantTables(el *Element, tl, tr *ElementTable) []*ElementTable {
	if tl != tr {
		return nil
	}
	var out []*ElementTable
	for _, t := range r.elVar[el].cands {
		if t.Src.Vertex == tl && t.Dst.Vertex == tl {
			out = append(out, t)
		}
	}
	return out
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func qualified(t *ElementTable) string {
	if t.Schema == "" {
		return quoteIdent(t.Table)
	}
	return quoteIdent(t.Schema) + "." + quoteIdent(t.Table)
}

func col(alias, column string) string { return quoteIdent(alias) + "." + quoteIdent(column) }

// propRef renders var.prop for assignment c.
func (r *rewriter) propRef(c combo) func(v *variable, prop string, pos int) (string, error) {
	return func(v *variable, prop string, pos int) (string, error) {
		t := c[v]
		if m, ok := r.elided[v]; ok && t != nil { // a vertex not joined: its key is the edge's column
			if x, ok := m[keyColumn(t, prop)]; ok {
				return x, nil
			}
		}
		if t != nil {
			if column, ok := t.Props[prop]; ok {
				return col(v.name, column), nil
			}
			if expr, ok := t.Exprs[prop]; ok {
				return "(" + qualify(expr, v.name, t.Columns) + ")", nil
			}
		}
		ty := r.g.propType(prop)
		if ty == "" {
			return "", errAt(CodeSyntaxError, pos, "property \"%s\" does not exist", prop)
		}
		return "NULL::" + ty, nil
	}
}

// endJoin is the condition joining edge alias e's endpoint ep to vertex
// v (to the edge column an elided vertex's key is).
func (r *rewriter) endJoin(e string, ep *Endpoint, v *variable) string {
	var parts []string
	for i := range ep.Columns {
		vc := col(v.name, ep.Refs[i])
		if m, ok := r.elided[v]; ok {
			if x, ok := m[ep.Refs[i]]; ok {
				vc = x
			}
		}
		if ec := col(e, ep.Columns[i]); ec != vc { // (a path's start elided into its first edge)
			parts = append(parts, ec+" = "+vc)
		}
	}
	return strings.Join(parts, " AND ")
}

// findElidable marks the vertex variables a pattern only passes through:
// one occurrence, not a path's first vertex, no WHERE, no reference in
// any expression, between two edges without quantifiers in a WALK path.
// Joined to their vertex table they add nothing when the edge that
// reaches them guarantees the vertex exists (Endpoint.Total), so the arm
// joins the next edge to that edge's column directly (elide in arm), as
// a hand-written join over the edge tables does.
func (r *rewriter) findElidable() {
	r.elidable, r.keyProps = map[*variable]bool{}, map[*variable][]string{}
	count := map[*variable]int{}
	for _, p := range r.gt.Paths {
		for _, el := range p.Elems {
			count[r.elVar[el]]++
		}
	}
	// how often each name appears, and how often as v.prop
	names, props := map[string]int{}, map[*variable]int{}
	note := func(e *Expr, own *variable) {
		if e == nil {
			return
		}
		for _, t := range e.toks {
			if isNameTok(t) {
				names[t.val]++
			}
		}
		_, _ = r.subst(e, own, func(v *variable, prop string, _ int) (string, error) {
			props[v]++
			if !slices.Contains(r.keyProps[v], prop) {
				r.keyProps[v] = append(r.keyProps[v], prop)
			}
			return "", nil
		})
	}
	for _, p := range r.gt.Paths {
		for _, el := range p.Elems {
			var own *variable
			if el.Quant != nil {
				own = r.elVar[el]
			}
			note(el.Where, own)
		}
		for _, w := range p.Wheres {
			note(w, nil)
		}
	}
	note(r.gt.Where, nil)
	for _, c := range r.gt.Columns {
		note(c.Expr, nil)
	}
	for _, p := range r.gt.Paths {
		if p.Mode != "walk" || p.Selector != nil {
			continue
		}
		for i := 0; i < len(p.Elems); i += 2 {
			v := r.elVar[p.Elems[i]]
			if count[v] != 1 || names[v.name] != props[v] || i > 0 && p.Elems[i-1].Quant != nil || i+1 < len(p.Elems) && p.Elems[i+1].Quant != nil {
				continue
			}
			r.elidable[v] = true
		}
	}
}

// elideStart reports whether the first path (the arm's first relation)
// may start at its first edge instead of its first vertex: the vertex is
// elidable, reads only the key the edge's endpoint references, and that
// endpoint is total (as for a vertex passed through, elide in arm). It
// records the vertex as elided and returns the edge's variable.
func (r *rewriter) elideStart(p *Path, c combo) (*variable, bool) {
	if len(p.Elems) < 3 || p.Elems[1].Quant != nil {
		return nil, false
	}
	v, ev, rv := r.elVar[p.Elems[0]], r.elVar[p.Elems[1]], r.elVar[p.Elems[2]]
	if !r.elidable[v] || rv == v {
		return nil, false
	}
	te, tl := c[ev], c[v]
	os := orientations(p.Elems[1].Dir, te, tl, c[rv], v, rv)
	if len(os) != 1 {
		return nil, false
	}
	ep := te.Src
	if os[0].dst == v {
		ep = te.Dst
	}
	if !ep.Total {
		return nil, false
	}
	for _, prop := range r.keyProps[v] {
		if !slices.Contains(ep.Refs, keyColumn(tl, prop)) {
			return nil, false
		}
	}
	m := map[string]string{}
	for k := range ep.Refs {
		m[ep.Refs[k]] = col(ev.name, ep.Columns[k])
		for _, prop := range r.keyProps[v] {
			if keyColumn(tl, prop) == ep.Refs[k] {
				if ty := tl.PropTypes[prop]; ty != "" && ty != te.PropTypes[ep.Columns[k]] {
					m[ep.Refs[k]] = "CAST(" + m[ep.Refs[k]] + " AS " + ty + ")"
				}
			}
		}
	}
	r.elided[v] = m
	return ev, true
}

// keyColumn is the column property prop of table t is, when it is a
// plain column ("" otherwise).
func keyColumn(t *ElementTable, prop string) string {
	if c, ok := t.Props[prop]; ok {
		return c
	}
	if e, ok := t.Exprs[prop]; ok {
		if c, ok := LoneIdent(e); ok && slices.Contains(t.Columns, c) {
			return c
		}
	}
	return ""
}

// sameKey is the condition that vertex aliases a and b (of table t) are
// the same vertex.
func sameKey(a, b string, t *ElementTable) string {
	parts := make([]string, len(t.Key))
	for i, k := range t.Key {
		parts[i] = col(a, k) + " = " + col(b, k)
	}
	return strings.Join(parts, " AND ")
}

// arm builds the SELECT for one assignment, and the CTEs its quantified
// edges need.
func (r *rewriter) arm(ci int, c combo) (string, []string, error) {
	r.elided = map[*variable]map[string]string{}
	r.armCombo = c
	defer func() { r.armCombo = nil }()
	startEdge := map[*Element]bool{} // edge patterns a path starts from (elideStart)
	var from strings.Builder
	var conds, ctes []string
	bound := map[*variable]bool{}
	ref := r.propRef(c)
	for _, p := range r.gt.Paths {
		first := r.elVar[p.Elems[0]]
		if !bound[first] && from.Len() == 0 {
			if ev, ok := r.elideStart(p, c); ok {
				// the path starts at its first edge (see elideStart)
				fmt.Fprintf(&from, "FROM %s AS %s", qualified(c[ev]), quoteIdent(ev.name))
				bound[first], bound[ev], startEdge[p.Elems[1]] = true, true, true
			}
		}
		if !bound[first] {
			if from.Len() == 0 {
				fmt.Fprintf(&from, "FROM %s AS %s", qualified(c[first]), quoteIdent(first.name))
			} else {
				fmt.Fprintf(&from, " CROSS JOIN %s AS %s", qualified(c[first]), quoteIdent(first.name))
			}
			bound[first] = true
		}
		for i := 1; i < len(p.Elems); i += 2 {
			el := p.Elems[i]
			l, rv := r.elVar[p.Elems[i-1]], r.elVar[p.Elems[i+1]]
			tl, tr := c[l], c[rv]
			if el.Quant != nil {
				cte, err := r.quantCTE(ci, i, p, el, c)
				if err != nil {
					return "", nil, err
				}
				r.quantAlias[el] = ""
				if cte == "" { // no edge table: only the zero-length path
					if bound[rv] {
						conds = append(conds, sameKey(rv.name, l.name, tr))
					} else {
						fmt.Fprintf(&from, " JOIN %s AS %s ON %s", qualified(tr), quoteIdent(rv.name), sameKey(rv.name, l.name, tr))
						bound[rv] = true
					}
					continue
				}
				ctes = append(ctes, cte)
				qn := fmt.Sprintf("_pgq_q%d_%d", ci, i)
				qa := quoteIdent(qn)
				r.quantAlias[el] = qa
				on := fmt.Sprintf("%s.s = %s AND %s.n >= %d", qa, col(l.name, tl.Key[0]), qa, el.Quant.Min)
				if t := r.quantTag[el]; t >= 0 {
					on += fmt.Sprintf(" AND %s.t = %d", qa, t)
				}
				if bound[rv] {
					fmt.Fprintf(&from, " JOIN %s ON %s AND %s.d = %s", qa, on, qa, col(rv.name, tr.Key[0]))
				} else {
					fmt.Fprintf(&from, " JOIN %s ON %s JOIN %s AS %s ON %s = %s.d", qa, on, qualified(tr), quoteIdent(rv.name), col(rv.name, tr.Key[0]), qa)
					bound[rv] = true
				}
				continue
			}
			ev := r.elVar[el]
			te := c[ev]
			os := orientations(el.Dir, te, tl, tr, l, rv)
			endCond := func(o orientation, withRight bool) string {
				var parts []string
				if o.src == l || bound[o.src] || withRight {
					parts = append(parts, r.endJoin(ev.name, te.Src, o.src))
				}
				if o.dst == l || bound[o.dst] || withRight {
					parts = append(parts, r.endJoin(ev.name, te.Dst, o.dst))
				}
				parts = slices.DeleteFunc(parts, func(x string) bool { return x == "" })
				if len(parts) == 0 {
					return "TRUE"
				}
				return strings.Join(parts, " AND ")
			}
			either := func(withRight bool) string {
				if len(os) == 1 {
					return endCond(os[0], withRight)
				}
				var alts []string
				for _, o := range os {
					alts = append(alts, "("+endCond(o, withRight)+")")
				}
				return "(" + strings.Join(alts, " OR ") + ")"
			}
			if !bound[ev] {
				fmt.Fprintf(&from, " JOIN %s AS %s ON %s", qualified(te), quoteIdent(ev.name), either(false))
				bound[ev] = true
			} else if !startEdge[el] {
				conds = append(conds, either(false))
			}
			if !bound[rv] && r.elidable[rv] && len(os) == 1 {
				ep := te.Src
				if os[0].dst == rv {
					ep = te.Dst
				}
				keyOnly := true
				for _, prop := range r.keyProps[rv] {
					if !slices.Contains(ep.Refs, keyColumn(tr, prop)) {
						keyOnly = false
					}
				}
				if ep.Total && keyOnly {
					m := map[string]string{}
					for k := range ep.Refs {
						m[ep.Refs[k]] = col(ev.name, ep.Columns[k])
						// a read of the key keeps the vertex column's type
						// (a foreign key may join int to bigint)
						for _, prop := range r.keyProps[rv] {
							if keyColumn(tr, prop) == ep.Refs[k] {
								if ty := tr.PropTypes[prop]; ty != "" && ty != te.PropTypes[ep.Columns[k]] {
									m[ep.Refs[k]] = "CAST(" + m[ep.Refs[k]] + " AS " + ty + ")"
								}
							}
						}
					}
					r.elided[rv] = m
					bound[rv] = true
				}
			}
			if !bound[rv] {
				fmt.Fprintf(&from, " JOIN %s AS %s ON %s", qualified(tr), quoteIdent(rv.name), either(true))
				bound[rv] = true
			}
		}
	}
	for _, p := range r.gt.Paths {
		cs, err := r.modeConds(p, c)
		if err != nil {
			return "", nil, err
		}
		conds = append(conds, cs...)
	}
	for _, p := range r.gt.Paths {
		for _, el := range p.Elems {
			if el.Where == nil || el.Quant != nil {
				continue
			}
			s, err := r.subst(el.Where, nil, ref)
			if err != nil {
				return "", nil, err
			}
			conds = append(conds, "("+s+")")
		}
		for _, w := range p.Wheres {
			s, err := r.subst(w, nil, ref)
			if err != nil {
				return "", nil, err
			}
			conds = append(conds, "("+s+")")
		}
	}
	selected := r.generalSelection()
	if r.gt.Where != nil && selected == nil {
		s, err := r.subst(r.gt.Where, nil, ref)
		if err != nil {
			return "", nil, err
		}
		conds = append(conds, "("+s+")")
	}
	sel, err := r.selectList(ref)
	if err != nil {
		return "", nil, err
	}
	if selected != nil {
		hidden, err := r.selectionColumns(selected, c, ref)
		if err != nil {
			return "", nil, err
		}
		sel += hidden
	}
	q := "SELECT " + sel + " " + from.String()
	if len(conds) > 0 {
		q += " WHERE " + strings.Join(conds, " AND ")
	}
	return q, ctes, nil
}

func (r *rewriter) selectList(ref func(v *variable, prop string, pos int) (string, error)) (string, error) {
	var items []string
	for i, c := range r.gt.Columns {
		s, err := r.subst(c.Expr, nil, ref)
		if err != nil {
			return "", err
		}
		items = append(items, "("+s+") AS "+quoteIdent(r.names[i]))
	}
	return strings.Join(items, ", "), nil
}

// emptyQuery is the clause's result when no assignment of element tables
// connects: no rows, with the columns typed by the graph's properties.
func (r *rewriter) emptyQuery() (string, error) {
	sel, err := r.selectList(r.propRef(combo{}))
	if err != nil {
		return "", err
	}
	return "SELECT " + sel + " WHERE false", nil
}

// quantCTE builds the recursive CTE of a quantified edge: rows (s, d, n)
// for every walk of n edges (up to the quantifier's bound) from a start
// vertex s to d, seeded with the zero-length walks of the left vertex's
// candidates (its own WHERE applied when it reads nothing else), each
// iteration one join of the frontier with the edges (a batched
// expansion over the adjacency indexes). Under ANY SHORTEST the walks are
// deduplicated per (s, d, n) at each level and only the shortest length
// per (s, d) is kept. "" when no edge table connects.
func (r *rewriter) quantCTE(ci, i int, p *Path, el *Element, c combo) (string, error) {
	l := r.elVar[p.Elems[i-1]]
	rv := r.elVar[p.Elems[i+1]]
	tl, tr := c[l], c[rv]
	r.quantTag[el] = -1
	// walks that cross vertex tables, and walks whose vertices or edges
	// a mode compares with the path's other elements, carry identities
	if steps, verts := r.walkSteps(el, tl, tr); len(verts) > 1 || len(verts) > 0 && p.Mode != "walk" && !oneQuantPath(p) {
		r.quantTag[el] = slices.Index(r.g.Vertices, tr)
		return r.taggedWalksCTE(ci, i, p, el, c, steps, verts)
	}
	tables := r.quantTables(el, tl, tr)
	if len(tables) == 0 {
		return "", nil
	}
	if len(tl.Key) != 1 {
		return "", errAt(CodeFeature, el.Pos, "quantified edge patterns over a vertex table with a multi-column key are not supported")
	}
	for _, t := range tables {
		if !t.Src.simple() || !t.Dst.simple() {
			return "", errAt(CodeFeature, el.Pos, "quantified edge patterns over an edge table whose endpoints do not reference the vertex key are not supported")
		}
	}
	ev := r.elVar[el]
	e := quoteIdent(ev.name)
	type step struct {
		t              *ElementTable
		from, to, cond string
	}
	var steps []step
	for _, t := range tables {
		var conds []string
		if el.Where != nil {
			s, err := r.subst(el.Where, ev, r.propRef(combo{ev: t}))
			if err != nil {
				return "", err
			}
			conds = append(conds, "("+s+")")
		}
		src, dst := e+"."+quoteIdent(t.Src.Columns[0]), e+"."+quoteIdent(t.Dst.Columns[0])
		if el.Dir == Right || el.Dir == Any {
			steps = append(steps, step{t, src, dst, strings.Join(conds, " AND ")})
		}
		if el.Dir == Left || el.Dir == Any {
			if el.Dir == Any { // a self-loop is one step, not two
				conds = append(conds, src+" IS DISTINCT FROM "+dst)
			}
			steps = append(steps, step{t, dst, src, strings.Join(conds, " AND ")})
		}
	}
	seedWhere := ""
	if lw := p.Elems[i-1].Where; lw != nil && r.onlyReads(lw, l) {
		s, err := r.subst(lw, nil, r.propRef(combo{l: tl}))
		if err != nil {
			return "", err
		}
		seedWhere = " WHERE (" + s + ")"
	}
	key := col(l.name, tl.Key[0])
	name := fmt.Sprintf("_pgq_q%d_%d", ci, i)
	sel := innerSelector(p)
	// the path mode needs the walk's vertices (ACYCLIC, SIMPLE) or edges
	// (TRAIL) as an array; under ANY SHORTEST the shortest walk has no
	// repeated vertex or edge anyway (only ACYCLIC's closed walks go)
	track := p.Mode != "walk" && sel != "any shortest"
	if track && p.Mode == "trail" {
		for _, st := range steps {
			if len(st.t.Key) != 1 || len(st.t.KeyTypes) != 1 {
				return "", errAt(CodeFeature, el.Pos, "TRAIL over an edge table without a one-column key is not supported")
			}
		}
	}
	walksName, union := name, "UNION ALL"
	if sel != "" {
		walksName = name + "_w"
	}
	if sel == "any shortest" {
		union = "UNION"
	}
	// step extends walk w by the edge whose far vertex is to and key k
	extend := func(to, k string) (cols, cond string) {
		switch {
		case !track:
			return "", ""
		case p.Mode == "trail":
			return ", w.p || " + k, "NOT (" + k + " = ANY(w.p))"
		case p.Mode == "acyclic":
			return ", w.p || " + to, "NOT (" + to + " = ANY(w.p))"
		}
		// SIMPLE: no vertex twice, but the walk may close on its start
		// (and then ends)
		return ", w.p || " + to, "(NOT (" + to + " = ANY(w.p)) OR " + to + " = w.s) AND (w.n = 0 OR w.d <> w.s)"
	}
	var rec string
	if len(steps) == 1 {
		// one edge table in one direction: the frontier joins it directly,
		// a lookup on its adjacency index
		st := steps[0]
		on := st.from + " = w.d"
		if st.cond != "" {
			on += " AND " + st.cond
		}
		k := ""
		if len(st.t.Key) == 1 {
			k = e + "." + quoteIdent(st.t.Key[0])
		}
		pc, cond := extend(st.to, k)
		where := fmt.Sprintf("w.n < %d", el.Quant.Max)
		if cond != "" {
			where += " AND " + cond
		}
		rec = fmt.Sprintf("SELECT w.s, %s, w.n + 1%s FROM %s AS w JOIN %s AS %s ON %s WHERE %s", st.to, pc, walksName, qualified(st.t), e, on, where)
	} else {
		var arms []string
		for _, st := range steps {
			a := fmt.Sprintf("SELECT %s AS s, %s AS d", st.from, st.to)
			if track && p.Mode == "trail" {
				a += fmt.Sprintf(", %s.%s AS k", e, quoteIdent(st.t.Key[0]))
			}
			a += fmt.Sprintf(" FROM %s AS %s", qualified(st.t), e)
			if st.cond != "" {
				a += " WHERE " + st.cond
			}
			arms = append(arms, a)
		}
		pc, cond := extend("x.d", "x.k")
		where := fmt.Sprintf("w.n < %d", el.Quant.Max)
		if cond != "" {
			where += " AND " + cond
		}
		rec = fmt.Sprintf("SELECT w.s, x.d, w.n + 1%s FROM %s AS w JOIN (%s) AS x ON x.s = w.d WHERE %s", pc, walksName, strings.Join(arms, " UNION ALL "), where)
	}
	seedPath, cols := "", "s, d, n"
	if track {
		cols = "s, d, n, p"
		seedPath = ", ARRAY[" + key + "]"
		if p.Mode == "trail" {
			seedPath = ", CAST(ARRAY[] AS " + steps[0].t.KeyTypes[0] + "[])"
		}
	}
	walks := fmt.Sprintf("SELECT %s AS s, %s AS d, 0 AS n%s FROM %s AS %s%s %s %s", key, key, seedPath, qualified(tl), quoteIdent(l.name), seedWhere, union, rec)
	if sel == "" {
		return fmt.Sprintf("%s(%s) AS (%s)", name, cols, walks), nil
	}
	walksCTE := fmt.Sprintf("%s(%s) AS (%s)", walksName, cols, walks)
	inBounds := fmt.Sprintf("n >= %d", el.Quant.Min)
	switch sel {
	case "any shortest":
		// the walks deduplicated per (s, d, n) level by level, then the
		// shortest length per pair among those the quantifier allows
		if p.Mode == "acyclic" {
			inBounds += " AND NOT (s = d AND n > 0)"
		}
		return fmt.Sprintf("%s, %s(s, d, n) AS (SELECT s, d, min(n) FROM %s WHERE %s GROUP BY s, d)", walksCTE, name, walksName, inBounds), nil
	case "all shortest":
		// every walk of the shortest length per pair
		return fmt.Sprintf("%s, %s(s, d, n) AS (SELECT s, d, n FROM (SELECT s, d, n, min(n) OVER (PARTITION BY s, d) AS m FROM %s WHERE %s) AS x WHERE n = m)",
			walksCTE, name, walksName, inBounds), nil
	}
	// ANY k and SHORTEST k: k walks per pair, the shortest first (rows
	// carry only the endpoints and the length, so which of equally long
	// walks is kept does not show)
	return fmt.Sprintf("%s, %s(s, d, n) AS (SELECT s, d, n FROM (SELECT s, d, n, row_number() OVER (PARTITION BY s, d ORDER BY n) AS r FROM %s WHERE %s) AS x WHERE r <= %d)",
		walksCTE, name, walksName, inBounds, p.Selector.K), nil
}

// onlyReads reports whether e's property references all name v.
func (r *rewriter) onlyReads(e *Expr, v *variable) bool {
	ok := true
	_, _ = r.subst(e, nil, func(x *variable, _ string, _ int) (string, error) {
		if x != v {
			ok = false
		}
		return "", nil
	})
	return ok
}

// qualify rewrites a property expression over an element table's
// unqualified columns for the element's alias: each identifier that names
// one of columns (and is no function name, qualifier or qualified name)
// becomes alias.column.
func qualify(expr, alias string, columns []string) string {
	toks, le := lex(expr)
	if le != nil {
		return expr
	}
	var b strings.Builder
	prev := 0
	for i, t := range toks {
		if !isNameTok(t) || i > 0 && toks[i-1].is(".") || i+1 < len(toks) && (toks[i+1].is("(") || toks[i+1].is(".")) {
			continue
		}
		found := false
		for _, c := range columns {
			if c == t.val {
				found = true
				break
			}
		}
		if !found {
			continue
		}
		b.WriteString(expr[prev:t.start])
		b.WriteString(col(alias, t.val))
		prev = t.end
	}
	b.WriteString(expr[prev:])
	return b.String()
}

// modeConds are the conditions path p's mode puts on a path without
// quantifiers in assignment c: ACYCLIC no vertex twice, SIMPLE no vertex
// twice but the last may be the first, TRAIL no edge twice. Elements of
// different tables are different elements; of one table, different keys.
func (r *rewriter) modeConds(p *Path, c combo) ([]string, error) {
	if p.Mode == "walk" || oneQuantPath(p) {
		return nil, nil
	}
	return r.pathModeConds(p, c) // path_modes.go (a path without quantifiers has no walks)
}

// pathLength is path variable p's length in the arm being built: its
// edges, a quantified one counting its walk's length.
func (r *rewriter) pathLength(p *Path) string {
	fixed := 0
	var parts []string
	for i := 1; i < len(p.Elems); i += 2 {
		el := p.Elems[i]
		if el.Quant == nil {
			fixed++
			continue
		}
		if qa := r.quantAlias[el]; qa != "" {
			parts = append(parts, qa+".n")
		}
	}
	parts = append(parts, fmt.Sprint(fixed))
	return "(" + strings.Join(parts, " + ") + ")"
}
