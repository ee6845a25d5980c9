package pgq

import (
	"fmt"
	"slices"
	"strings"
)

// Path selectors on a path pattern of any shape (not one quantified edge
// between two vertices, which quantCTE selects inside its recursion):
// every arm also yields the path's first and last vertex (as "table:key"
// text, since keys of different tables may be equal), its length and the
// graph pattern's WHERE as a flag; the union of the arms is then cut per
// pair of end vertices by a window (the shortest, the k shortest, k of
// them), and the WHERE applies to the paths selected, as it does on the
// quantified shape. A selector needs its path to be the graph pattern's
// only one: selection precedes the join of several path patterns.

const (
	selStart = "_pgq_start"
	selEnd   = "_pgq_end"
	selLen   = "_pgq_len"
	selWhere = "_pgq_where"
	selRank  = "_pgq_rank"
)

// generalSelection is the path the clause selects from with a window
// (nil when none does).
func (r *rewriter) generalSelection() *Path {
	if len(r.gt.Paths) != 1 {
		return nil
	}
	p := r.gt.Paths[0]
	if p.Selector == nil || oneQuantPath(p) {
		return nil
	}
	return p
}

// vertexIdent is the identity of vertex variable v in assignment c: its
// table's position among the graph's vertex tables and its key.
func (r *rewriter) vertexIdent(v *variable, c combo) (string, error) {
	t := c[v]
	if len(t.Key) == 0 {
		return "", errAt(CodeFeature, -1, "path selectors over vertex table \"%s\" without a key are not supported", t.Table)
	}
	parts := []string{fmt.Sprintf("'%d'", slices.Index(r.g.Vertices, t))}
	for _, k := range t.Key {
		expr := col(v.name, k)
		if m, ok := r.elided[v]; ok {
			if x, ok := m[k]; ok {
				expr = x
			}
		}
		parts = append(parts, "CAST("+expr+" AS text)")
	}
	return "(" + strings.Join(parts, " || ':' || ") + ")", nil
}

// selectionColumns are the hidden columns an arm adds for the window.
func (r *rewriter) selectionColumns(p *Path, c combo, ref func(v *variable, prop string, pos int) (string, error)) (string, error) {
	start, err := r.vertexIdent(r.elVar[p.Elems[0]], c)
	if err != nil {
		return "", err
	}
	end, err := r.vertexIdent(r.elVar[p.Elems[len(p.Elems)-1]], c)
	if err != nil {
		return "", err
	}
	where := "TRUE"
	if r.gt.Where != nil {
		s, err := r.subst(r.gt.Where, nil, ref)
		if err != nil {
			return "", err
		}
		where = "(" + s + ")"
	}
	return fmt.Sprintf(", %s AS %s, %s AS %s, %s AS %s, %s AS %s", start, selStart, end, selEnd, r.pathLength(p), selLen, where, selWhere), nil
}

// selectPaths wraps the union of the arms in the selector's window.
func (r *rewriter) selectPaths(p *Path, union string) string {
	part := "PARTITION BY " + selStart + ", " + selEnd
	var window, keep string
	switch p.Selector.Kind {
	case "all shortest":
		window = "min(" + selLen + ") OVER (" + part + ")"
		keep = selLen + " = " + selRank
	case "any shortest":
		window = "row_number() OVER (" + part + " ORDER BY " + selLen + ")"
		keep = selRank + " = 1"
	default: // ANY k, SHORTEST k: k paths per pair, the shortest first
		window = "row_number() OVER (" + part + " ORDER BY " + selLen + ")"
		keep = fmt.Sprintf("%s <= %d", selRank, p.Selector.K)
	}
	cols := make([]string, len(r.names))
	for i, n := range r.names {
		cols[i] = quoteIdent(n)
	}
	list := strings.Join(cols, ", ")
	return fmt.Sprintf("SELECT %s FROM (SELECT %s, %s, %s, %s AS %s FROM (%s) AS _pgq_paths) AS _pgq_ranked WHERE %s AND %s",
		list, list, selLen, selWhere, window, selRank, union, keep, selWhere)
}
