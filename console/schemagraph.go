package console

import (
	"fmt"
	"html/template"
	"math"
	"strings"
)

// schemaSVG draws the graph schema: node tables as labelled circles on a
// ring, edge tables as arrows from the node table their source column
// references to the one their target column references (a loop when both
// are the same table). Plain tables are not part of the graph.
func schemaSVG(tables []tableInfo) template.HTML {
	var nodes []tableInfo
	pos := map[string][2]float64{}
	for _, t := range tables {
		if t.Kind == "node" {
			nodes = append(nodes, t)
		}
	}
	// an ellipse leaves room outside the ring for loops and labels
	const w, h, rx, ry = 760.0, 480.0, 270.0, 130.0
	cx, cy := w/2, h/2
	for i, n := range nodes {
		a := 2*math.Pi*float64(i)/float64(max(len(nodes), 1)) - math.Pi/2
		if len(nodes) == 1 {
			a = 0
		}
		x, y := cx+rx*math.Cos(a), cy+ry*math.Sin(a)
		if len(nodes) == 1 {
			x, y = cx, cy
		}
		pos[n.Name] = [2]float64{x, y}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="schema" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img" aria-label="graph schema">`, int(w), int(h))
	b.WriteString(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" class="arrowhead"/></marker></defs>`)
	const nodeR = 34.0
	loops := map[string]int{}
	pairs := map[[2]string]int{}
	for _, t := range tables {
		if t.Kind != "edge" {
			continue
		}
		s, okS := pos[t.Source]
		d, okD := pos[t.Target]
		if !okS || !okD {
			continue // endpoints not (visible) node tables
		}
		name := template.HTMLEscapeString(t.Name)
		if t.Source == t.Target {
			k := loops[t.Source]
			loops[t.Source]++
			lr := 26.0 + 14*float64(k)
			// a loop on the node's outer side, away from the others
			ox, oy := s[0]-cx, s[1]-cy
			if d := math.Hypot(ox, oy); d > 0 {
				ox, oy = ox/d, oy/d
			} else {
				ox, oy = 0, -1
			}
			px, py := -oy, ox // perpendicular: the loop's two feet
			x0, y0 := s[0]+nodeR*(ox*0.87-px*0.5), s[1]+nodeR*(oy*0.87-py*0.5)
			x1, y1 := s[0]+nodeR*(ox*0.87+px*0.5), s[1]+nodeR*(oy*0.87+py*0.5)
			fmt.Fprintf(&b, `<path class="edgetable" marker-end="url(#arrow)" d="M%.1f %.1f C%.1f %.1f %.1f %.1f %.1f %.1f"><title>%s</title></path>`,
				x0, y0, x0+ox*2.4*lr-px*lr, y0+oy*2.4*lr-py*lr, x1+ox*2.4*lr+px*lr, y1+oy*2.4*lr+py*lr, x1, y1, name)
			fmt.Fprintf(&b, `<text class="edgelabel" x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, s[0]+ox*(nodeR+2.1*lr), s[1]+oy*(nodeR+2.1*lr)+4, name)
			continue
		}
		key := [2]string{t.Source, t.Target}
		k := pairs[key]
		pairs[key]++
		dx, dy := d[0]-s[0], d[1]-s[1]
		dist := math.Hypot(dx, dy)
		ux, uy := dx/dist, dy/dist
		// parallel edges bend apart
		bend := 30.0 * float64(k+1)
		if k == 0 {
			bend = 12
		}
		mx, my := (s[0]+d[0])/2-uy*bend, (s[1]+d[1])/2+ux*bend
		x0, y0 := s[0]+ux*nodeR, s[1]+uy*nodeR
		x1, y1 := d[0]-ux*nodeR, d[1]-uy*nodeR
		fmt.Fprintf(&b, `<path class="edgetable" marker-end="url(#arrow)" d="M%.1f %.1f Q%.1f %.1f %.1f %.1f"><title>%s</title></path>`, x0, y0, mx, my, x1, y1, name)
		fmt.Fprintf(&b, `<text class="edgelabel" x="%.1f" y="%.1f" text-anchor="middle">%s</text>`, mx, my, name)
	}
	for _, n := range nodes {
		p := pos[n.Name]
		fmt.Fprintf(&b, `<g class="nodetable"><circle cx="%.1f" cy="%.1f" r="%.1f"/><text x="%.1f" y="%.1f" text-anchor="middle">%s</text><text class="count" x="%.1f" y="%.1f" text-anchor="middle">%s</text></g>`,
			p[0], p[1], nodeR, p[0], p[1]-2, template.HTMLEscapeString(n.Name), p[0], p[1]+12, rowsLabel(n.Rows))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

func rowsLabel(n int64) string {
	if n == 1 {
		return "1 row"
	}
	return fmt.Sprintf("%d rows", n)
}
