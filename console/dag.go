package console

import (
	"fmt"
	"html/template"
	"sort"
	"strings"
)

// The commit graph is drawn on the server as SVG (no script runs in the
// console): one row per commit, newest on top, and one lane per branch.
// A branch's lane holds the commits on its first-parent chain that no
// earlier branch (main first, then by name) already holds, so main is a
// straight line and a branch forks off it and, when merged, joins it
// again through the merge commit's second parent.

type dagNode struct {
	commit
	Lane, Row int
	Heads     []string // branches whose head this is
}

type dagEdge struct {
	From, To int  // node indexes: child, parent
	Merge    bool // to the merged (second) parent
}

type dagLayout struct {
	Nodes []dagNode
	Edges []dagEdge
	Lanes []string // the branch each lane belongs to
	// Missing are edges to parents older than the commits read: drawn as
	// a stub leaving the bottom of the picture.
	Missing []int
}

func layoutDAG(h *history) dagLayout {
	var l dagLayout
	ids := make([]string, 0, len(h.Commits))
	for id := range h.Commits {
		ids = append(ids, id)
	}
	// newest first; ids (ULIDs) break ties in creation order
	sort.Slice(ids, func(i, j int) bool {
		a, b := h.Commits[ids[i]], h.Commits[ids[j]]
		if !a.Time.Equal(b.Time) {
			return a.Time.After(b.Time)
		}
		return ids[i] > ids[j]
	})
	index := make(map[string]int, len(ids))
	for i, id := range ids {
		index[id] = i
		l.Nodes = append(l.Nodes, dagNode{commit: h.Commits[id], Lane: -1, Row: i})
	}
	claim := func(start, label string) {
		lane := -1
		for id := start; id != ""; {
			i, ok := index[id]
			if !ok || l.Nodes[i].Lane >= 0 {
				break
			}
			if lane < 0 {
				lane = len(l.Lanes)
				l.Lanes = append(l.Lanes, label)
			}
			l.Nodes[i].Lane = lane
			id = l.Nodes[i].Parent
		}
	}
	for _, b := range h.Branches {
		if i, ok := index[b.Head]; ok {
			l.Nodes[i].Heads = append(l.Nodes[i].Heads, b.Name)
		}
		claim(b.Head, b.Name)
	}
	// commits only reachable through a merge's second parent (their
	// branch was deleted since): a lane of their own
	for i := range l.Nodes {
		if l.Nodes[i].Lane < 0 {
			claim(l.Nodes[i].ID, "")
		}
	}
	for i, n := range l.Nodes {
		for _, p := range []struct {
			id    string
			merge bool
		}{{n.Parent, false}, {n.MergedParent, true}} {
			if p.id == "" {
				continue
			}
			if j, ok := index[p.id]; ok {
				l.Edges = append(l.Edges, dagEdge{From: i, To: j, Merge: p.merge})
			} else {
				l.Missing = append(l.Missing, i)
			}
		}
	}
	return l
}

// Geometry of the drawing, in pixels.
const (
	dagRow    = 30
	dagLane   = 22
	dagMargin = 16
	dagRadius = 6
)

func (l dagLayout) x(lane int) int { return dagMargin + lane*dagLane }
func (l dagLayout) y(row int) int  { return dagMargin + row*dagRow }

// svg draws the layout; every commit links to its page.
func (l dagLayout) svg() template.HTML {
	var b strings.Builder
	textX := l.x(max(len(l.Lanes), 1)) + 8
	height := l.y(len(l.Nodes)) + dagMargin
	fmt.Fprintf(&b, `<svg class="dag" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img" aria-label="commit graph">`, textX+900, height)
	for _, e := range l.Edges {
		from, to := l.Nodes[e.From], l.Nodes[e.To]
		x1, y1, x2, y2 := l.x(from.Lane), l.y(from.Row), l.x(to.Lane), l.y(to.Row)
		// an edge has the colour of the branch it belongs to: a fork
		// the child's, a merge the merged branch's
		class := "edge lane" + fmt.Sprint(from.Lane%8)
		if e.Merge {
			class = "edge merge lane" + fmt.Sprint(to.Lane%8)
		}
		switch {
		case x1 == x2:
			fmt.Fprintf(&b, `<line class="%s" x1="%d" y1="%d" x2="%d" y2="%d"/>`, class, x1, y1, x2, y2)
		case e.Merge:
			// a merge reaches over to the merged branch's lane at once,
			// then runs down it to the merged commit
			fmt.Fprintf(&b, `<path class="%s" d="M%d %d C%d %d %d %d %d %d L%d %d"/>`, class,
				x1, y1, x1, y1+dagRow/2, x2, y1+dagRow/2, x2, y1+dagRow, x2, y2)
		default:
			// a fork runs down the branch's own lane and joins its
			// parent's lane only at the parent, so it is not drawn as
			// forking from a later commit of that lane
			fmt.Fprintf(&b, `<path class="%s" d="M%d %d L%d %d C%d %d %d %d %d %d"/>`, class,
				x1, y1, x1, y2-dagRow, x1, y2-dagRow/2, x2, y2-dagRow/2, x2, y2)
		}
	}
	for _, i := range l.Missing {
		n := l.Nodes[i]
		fmt.Fprintf(&b, `<line class="edge missing" x1="%d" y1="%d" x2="%d" y2="%d"/>`, l.x(n.Lane), l.y(n.Row), l.x(n.Lane), l.y(n.Row)+dagRow/2)
	}
	for _, n := range l.Nodes {
		x, y := l.x(n.Lane), l.y(n.Row)
		branch := n.Branch
		if len(n.Heads) > 0 {
			branch = n.Heads[0]
		}
		fmt.Fprintf(&b, `<a class="commit" href="commit?branch=%s&amp;id=%s">`, template.URLQueryEscaper(branch), template.URLQueryEscaper(n.ID))
		class := "node lane" + fmt.Sprint(n.Lane%8)
		if n.MergedParent != "" {
			class += " mergenode"
		}
		fmt.Fprintf(&b, `<circle class="%s" cx="%d" cy="%d" r="%d"><title>%s</title></circle>`, class, x, y, dagRadius, template.HTMLEscapeString(n.ID))
		label := shortID(n.ID)
		for _, h := range n.Heads {
			label += " [" + h + "]"
		}
		msg := n.Message
		if msg == "" {
			msg = n.Kind
		}
		fmt.Fprintf(&b, `<text class="label" x="%d" y="%d"><tspan class="id">%s</tspan> <tspan class="msg">%s</tspan> <tspan class="meta">%s · %s</tspan></text>`,
			textX, y+4, template.HTMLEscapeString(label), template.HTMLEscapeString(truncate(msg, 80)),
			template.HTMLEscapeString(n.Actor), n.Time.UTC().Format("2006-01-02 15:04:05"))
		b.WriteString(`</a>`)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// shortID is the tail of a commit id (ULIDs share their time prefix).
func shortID(id string) string {
	if len(id) > 10 {
		return id[len(id)-10:]
	}
	return id
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
