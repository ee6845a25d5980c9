package pgq

import (
	"fmt"
	"slices"
	"strings"
)

// walkStep is one way a quantified edge pattern moves: over edge table t
// from a vertex of table from to one of table to, reading the edge's
// column fromCol and arriving at toCol (the direction taken).
type walkStep struct {
	t               *ElementTable
	from, to        *ElementTable
	fromCol, toCol  string
	backOfSelfLoops bool // the reverse step of a table from a vertex table to itself under "-"
}

// walkSteps lists the steps a quantified edge el may take on walks from
// a vertex of table tl to one of table tr, and the vertex tables such
// walks pass through (tl and tr included). The steps are those of the
// edge tables its label allows, in the directions el allows, between
// vertex tables that lie on some walk from tl to tr. No steps: only a
// zero-length walk (when tl is tr) connects them.
func (r *rewriter) walkSteps(el *Element, tl, tr *ElementTable) ([]walkStep, []*ElementTable) {
	var all []walkStep
	for _, t := range r.elVar[el].cands {
		if t.Src == nil || t.Dst == nil {
			continue
		}
		if el.Dir == Right || el.Dir == Any {
			all = append(all, walkStep{t: t, from: t.Src.Vertex, to: t.Dst.Vertex, fromCol: firstCol(t.Src), toCol: firstCol(t.Dst)})
		}
		if el.Dir == Left || el.Dir == Any {
			all = append(all, walkStep{t: t, from: t.Dst.Vertex, to: t.Src.Vertex, fromCol: firstCol(t.Dst), toCol: firstCol(t.Src),
				backOfSelfLoops: el.Dir == Any && t.Src.Vertex == t.Dst.Vertex})
		}
	}
	reach := func(start *ElementTable, forward bool) map[*ElementTable]bool {
		seen := map[*ElementTable]bool{start: true}
		for changed := true; changed; {
			changed = false
			for _, s := range all {
				a, b := s.from, s.to
				if !forward {
					a, b = b, a
				}
				if seen[a] && !seen[b] {
					seen[b], changed = true, true
				}
			}
		}
		return seen
	}
	fwd, back := reach(tl, true), reach(tr, false)
	on := func(v *ElementTable) bool { return fwd[v] && back[v] }
	var steps []walkStep
	for _, s := range all {
		if on(s.from) && on(s.to) {
			steps = append(steps, s)
		}
	}
	if len(steps) == 0 {
		return nil, nil
	}
	verts := []*ElementTable{tl}
	for _, s := range steps {
		for _, v := range []*ElementTable{s.from, s.to} {
			if !slices.Contains(verts, v) {
				verts = append(verts, v)
			}
		}
	}
	return steps, verts
}

func firstCol(ep *Endpoint) string {
	if len(ep.Columns) == 0 {
		return ""
	}
	return ep.Columns[0]
}

// walkKeyType is the SQL type a walk over vertex tables verts carries
// its current vertex's key in: their one key type, or bigint when all
// are integers of different widths; "" when the keys do not agree.
func walkKeyType(verts []*ElementTable) string {
	integer := func(t string) bool { return t == "smallint" || t == "integer" || t == "bigint" }
	k, allInt := "", true
	for _, v := range verts {
		if len(v.KeyTypes) != 1 {
			return ""
		}
		t := v.KeyTypes[0]
		allInt = allInt && integer(t)
		if k == "" {
			k = t
		} else if k != t && !allInt {
			return ""
		}
	}
	if allInt {
		return "bigint"
	}
	return k
}

// castTo is expr as type to, unless it has that type already (so an
// index on the column stays usable).
func castTo(expr, from, to string) string {
	if from == to {
		return expr
	}
	return "CAST(" + expr + " AS " + to + ")"
}

// taggedWalksCTE builds the recursive CTE of a quantified edge whose
// walks cross vertex tables: rows (s, d, t, n) for every walk of n edges
// from start vertex s (a key of the left vertex's table) to the vertex
// with key d in vertex table number t (its position among the graph's
// vertex tables; verts are those the walks may visit), each
// iteration one join of the frontier with the union of the steps that
// leave its vertex tables. Path modes carry the walk's vertices (or
// edges, TRAIL) as text identities "table:key" (elementIdent), since
// keys of different tables may be equal, in column p, which the mode's
// conditions across the path's other elements also read (modeConds).
// Selectors as in quantCTE, per (s, d, t).
func (r *rewriter) taggedWalksCTE(ci, i int, p *Path, el *Element, c combo, steps []walkStep, verts []*ElementTable) (string, error) {
	l := r.elVar[p.Elems[i-1]]
	tl := c[l]
	ev := r.elVar[el]
	e := quoteIdent(ev.name)
	for _, v := range verts {
		if len(v.Key) != 1 {
			return "", errAt(CodeFeature, el.Pos, "quantified edge patterns over a vertex table with a multi-column key are not supported")
		}
	}
	for _, s := range steps {
		if !s.t.Src.simple() || !s.t.Dst.simple() {
			return "", errAt(CodeFeature, el.Pos, "quantified edge patterns over an edge table whose endpoints do not reference the vertex key are not supported")
		}
	}
	kt := walkKeyType(verts)
	if kt == "" {
		return "", errAt(CodeFeature, el.Pos, "quantified edge patterns over vertex tables whose keys have different types are not supported")
	}
	tag := func(v *ElementTable) int { return slices.Index(r.g.Vertices, v) }
	sel := innerSelector(p)
	// on a longer path a SIMPLE walk is acyclic itself (only the path's
	// ends may meet: pathModeConds)
	mode := p.Mode
	if mode == "simple" && !oneQuantPath(p) {
		mode = "acyclic"
	}
	track := mode != "walk" && sel != "any shortest"
	if track && mode == "trail" {
		for _, s := range steps {
			if len(s.t.Key) != 1 {
				return "", errAt(CodeFeature, el.Pos, "TRAIL over an edge table without a one-column key is not supported")
			}
		}
	}
	ident := func(tagExpr, keyExpr string) string {
		return "(CAST(" + tagExpr + " AS text) || ':' || CAST(" + keyExpr + " AS text))"
	}
	var arms []string
	for _, s := range steps {
		var conds []string
		if el.Where != nil {
			w, err := r.subst(el.Where, ev, r.propRef(combo{ev: s.t}))
			if err != nil {
				return "", err
			}
			conds = append(conds, "("+w+")")
		}
		from, to := e+"."+quoteIdent(s.fromCol), e+"."+quoteIdent(s.toCol)
		if s.backOfSelfLoops { // a self-loop is one step, not two
			conds = append(conds, from+" IS DISTINCT FROM "+to)
		}
		a := fmt.Sprintf("SELECT %s AS s, %d AS ft, %s AS d, %d AS tt", castTo(from, s.from.KeyTypes[0], kt), tag(s.from), castTo(to, s.to.KeyTypes[0], kt), tag(s.to))
		if track && mode == "trail" {
			a += ", " + ident(fmt.Sprint(slices.Index(r.g.Edges, s.t)), e+"."+quoteIdent(s.t.Key[0])) + " AS k"
		}
		a += fmt.Sprintf(" FROM %s AS %s", qualified(s.t), e)
		if len(conds) > 0 {
			a += " WHERE " + strings.Join(conds, " AND ")
		}
		arms = append(arms, a)
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
	startTag := tag(tl)
	startIdent := ident(fmt.Sprint(startTag), "w.s")
	toIdent := ident("x.tt", "x.d")
	name := fmt.Sprintf("_pgq_q%d_%d", ci, i)
	walksName, union := name, "UNION ALL"
	if sel != "" {
		walksName = name + "_w"
	}
	if sel == "any shortest" {
		union = "UNION"
	}
	pc, cond := "", ""
	switch {
	case !track:
	case mode == "trail":
		pc, cond = ", w.p || x.k", "NOT (x.k = ANY(w.p))"
	case mode == "acyclic":
		pc, cond = ", w.p || "+toIdent, "NOT ("+toIdent+" = ANY(w.p))"
	default: // SIMPLE: no vertex twice, but the walk may close on its start (and then ends)
		pc = ", w.p || " + toIdent
		cond = "(NOT (" + toIdent + " = ANY(w.p)) OR " + toIdent + " = " + startIdent + ") AND (w.n = 0 OR " + ident("w.t", "w.d") + " <> " + startIdent + ")"
	}
	where := fmt.Sprintf("w.n < %d", el.Quant.Max)
	if cond != "" {
		where += " AND " + cond
	}
	rec := fmt.Sprintf("SELECT w.s, x.d, x.tt, w.n + 1%s FROM %s AS w JOIN (%s) AS x ON x.s = w.d AND x.ft = w.t WHERE %s", pc, walksName, strings.Join(arms, " UNION ALL "), where)
	seedPath, cols := "", "s, d, t, n"
	if track {
		cols = "s, d, t, n, p"
		seedPath = ", ARRAY[" + ident(fmt.Sprint(startTag), key) + "]"
		if mode == "trail" {
			seedPath = ", CAST(ARRAY[] AS text[])"
		}
	}
	walks := fmt.Sprintf("SELECT %s AS s, %s AS d, %d AS t, 0 AS n%s FROM %s AS %s%s %s %s", key, castTo(key, tl.KeyTypes[0], kt), startTag, seedPath, qualified(tl), quoteIdent(l.name), seedWhere, union, rec)
	if sel == "" {
		return fmt.Sprintf("%s(%s) AS (%s)", name, cols, walks), nil
	}
	walksCTE := fmt.Sprintf("%s(%s) AS (%s)", walksName, cols, walks)
	inBounds := fmt.Sprintf("n >= %d", el.Quant.Min)
	switch sel {
	case "any shortest":
		if mode == "acyclic" {
			inBounds += fmt.Sprintf(" AND NOT (t = %d AND s = d AND n > 0)", startTag)
		}
		return fmt.Sprintf("%s, %s(s, d, t, n) AS (SELECT s, d, t, min(n) FROM %s WHERE %s GROUP BY s, d, t)", walksCTE, name, walksName, inBounds), nil
	case "all shortest":
		return fmt.Sprintf("%s, %s(s, d, t, n) AS (SELECT s, d, t, n FROM (SELECT s, d, t, n, min(n) OVER (PARTITION BY s, d, t) AS m FROM %s WHERE %s) AS x WHERE n = m)",
			walksCTE, name, walksName, inBounds), nil
	}
	return fmt.Sprintf("%s, %s(s, d, t, n) AS (SELECT s, d, t, n FROM (SELECT s, d, t, n, row_number() OVER (PARTITION BY s, d, t ORDER BY n) AS r FROM %s WHERE %s) AS x WHERE r <= %d)",
		walksCTE, name, walksName, inBounds, p.Selector.K), nil
}
