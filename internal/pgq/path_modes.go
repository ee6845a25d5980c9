package pgq

import (
	"fmt"
	"slices"
)

// oneQuantPath reports whether p is one quantified edge between two
// vertices (and no parenthesized WHERE, which must filter before a
// selector): the shape whose recursion applies selectors and modes
// itself.
func oneQuantPath(p *Path) bool {
	return len(p.Elems) == 3 && p.Elems[1].Quant != nil && len(p.Wheres) == 0
}

// innerSelector is the selector a quantified edge's recursion applies:
// p's on the one-quantified-edge shape, none otherwise (selectPaths cuts
// other shapes after the join).
func innerSelector(p *Path) string {
	if p.Selector == nil || !oneQuantPath(p) {
		return ""
	}
	return p.Selector.Kind
}

// elementIdent is the identity of element variable v in assignment c as
// the walks of a quantified edge record it: "n:key", n the element
// table's position among the graph's vertex (or edge) tables.
func (r *rewriter) elementIdent(v *variable, c combo) (string, error) {
	t := c[v]
	tables := r.g.Vertices
	if v.edge {
		tables = r.g.Edges
	}
	if len(t.Key) != 1 {
		return "", errAt(CodeFeature, -1, "path modes on paths with quantifiers over table \"%s\" without a one-column key are not supported", t.Table)
	}
	return fmt.Sprintf("(CAST(%d AS text) || ':' || CAST(%s AS text))", slices.Index(tables, t), col(v.name, t.Key[0])), nil
}

// pathModeConds are the conditions a mode puts on path p (not the
// one-quantified-edge shape) in assignment c: pairs of elements without
// quantifier of one table must differ in key, and with quantified edges
// each quantified edge's walks keep the mode among themselves (their
// recursion refuses repeats and records the walk in column p); across
// the path, ACYCLIC keeps every vertex element out of the other walks
// and out of each other, and walks from sharing vertices (but where one
// walk ends the next begins), TRAIL the same for edges.
func (r *rewriter) pathModeConds(p *Path, c combo) ([]string, error) {
	type walk struct {
		alias       string // the CTE's alias in the arm ("" when only a zero-length walk connects)
		left, right int    // positions of its end vertices
	}
	var walks []walk
	for i, el := range p.Elems {
		if el.Quant != nil {
			walks = append(walks, walk{r.quantAlias[el], i - 1, i + 1})
		}
	}
	endsOfOneWalk := func(i, j int) bool {
		return slices.ContainsFunc(walks, func(w walk) bool { return w.left == i && w.right == j })
	}
	trail := p.Mode == "trail"
	// SIMPLE lets the path's last vertex be its first: the pairs and
	// walks that hold both keep apart except there
	simple, last := p.Mode == "simple", len(p.Elems)-1
	var out []string
	// elements without quantifier, pairwise
	for i := 0; i < len(p.Elems); i++ {
		for j := i + 1; j < len(p.Elems); j++ {
			ei, ej := p.Elems[i], p.Elems[j]
			if ei.Quant != nil || ej.Quant != nil || ei.Edge != ej.Edge || ei.Edge != trail || endsOfOneWalk(i, j) || simple && i == 0 && j == last {
				continue
			}
			vi, vj := r.elVar[ei], r.elVar[ej]
			if vi == vj {
				out = append(out, "false")
				continue
			}
			if c[vi] != c[vj] {
				continue
			}
			if len(c[vi].Key) == 0 {
				return nil, errAt(CodeFeature, ei.Pos, "TRAIL over an edge table without a key is not supported")
			}
			out = append(out, "NOT ("+sameKey(vi.name, vj.name, c[vi])+")")
		}
	}
	// elements without quantifier against the walks
	for k, el := range p.Elems {
		if el.Quant != nil || el.Edge != trail {
			continue
		}
		for _, w := range walks {
			if w.alias == "" || w.left == k || w.right == k {
				continue
			}
			id, err := r.elementIdent(r.elVar[el], c)
			if err != nil {
				return nil, err
			}
			walked := w.alias + ".p"
			switch {
			case simple && k == 0 && w.right == last: // may be where the walk ends
				walked = withoutLast(walked)
			case simple && k == last && w.left == 0: // may be where the walk begins
				walked = withoutFirst(walked)
			}
			out = append(out, fmt.Sprintf("NOT (%s = ANY(%s))", id, walked))
		}
	}
	// walks against each other: a walk that begins where the previous
	// ends holds that vertex first (ACYCLIC)
	for a := 0; a < len(walks); a++ {
		for b := a + 1; b < len(walks); b++ {
			wa, wb := walks[a], walks[b]
			if wa.alias == "" || wb.alias == "" {
				continue
			}
			earlier, later := wa.alias+".p", wb.alias+".p"
			if !trail && wa.right == wb.left {
				later = withoutFirst(later)
			}
			if simple && wa.left == 0 && wb.right == last {
				// the first walk's start may be the last walk's end
				out = append(out, fmt.Sprintf("NOT (%s && %s)", withoutFirst(earlier), later),
					fmt.Sprintf("NOT ((%s)[1:1] && %s)", earlier, withoutLast(later)))
				continue
			}
			out = append(out, fmt.Sprintf("NOT (%s && %s)", earlier, later))
		}
	}
	return out, nil
}

// withoutFirst and withoutLast are array expression a less its first or
// last element.
func withoutFirst(a string) string { return "(" + a + ")[2:]" }

func withoutLast(a string) string { return "(" + a + ")[:cardinality(" + a + ") - 1]" }
