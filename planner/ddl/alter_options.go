package ddl

import (
	"github.com/pggraph/pggraph/graph"
	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// setOptions handles ALTER TABLE … SET (graph.max_out = n, …).
func (a *alterState) setOptions(items []*q.Node) error {
	g := &a.b.meta.Graph
	oldKind, oldMax, oldMin := g.Kind, g.MaxOut, g.MinOut
	given := map[string]bool{}
	for _, n := range items {
		if d := n.GetDefElem(); d != nil && d.Defnamespace == "graph" {
			given[d.Defname] = true
		}
	}
	if given["kind"] {
		// an explicit kind replaces a pending edge's wait
		g.Pending = false
	}
	if err := a.b.options(items); err != nil {
		return err
	}
	if given["kind"] && g.Kind != graph.EdgeTable && oldKind == graph.EdgeTable {
		// leaving the edge role drops its endpoint settings
		if !given["source"] {
			g.Source = ""
		}
		if !given["target"] {
			g.Target = ""
		}
		if !given["max_out"] {
			g.MaxOut = nil
		}
		if !given["min_out"] {
			g.MinOut = nil
		}
	}
	wasNotNull := map[string]bool{}
	for _, c := range a.b.cols {
		wasNotNull[c.meta.Name] = c.notNull
	}
	if err := a.b.graphRole(); err != nil {
		return err
	}
	for _, c := range a.b.cols {
		if c.notNull && !wasNotNull[c.meta.Name] {
			a.addValidation(Validation{Kind: ValidateNotNull, Columns: []string{c.meta.Name}})
		}
	}
	becameEdge := g.Kind == graph.EdgeTable && oldKind != graph.EdgeTable
	if g.MaxOut != nil && (becameEdge || oldMax == nil || *g.MaxOut < *oldMax) {
		a.addValidation(Validation{Kind: ValidateMaxOut, Columns: []string{g.Source}, Limit: *g.MaxOut})
	}
	if g.MinOut != nil && (becameEdge || oldMin == nil || *g.MinOut > *oldMin) {
		a.addValidation(Validation{Kind: ValidateMinOut, Columns: []string{g.Source}, Limit: *g.MinOut})
	}
	return nil
}

// resetOptions handles ALTER TABLE … RESET (…).
func (a *alterState) resetOptions(items []*q.Node) error {
	m := &a.b.meta
	for _, n := range items {
		d := n.GetDefElem()
		if d == nil {
			continue
		}
		if d.Defnamespace == "graph" {
			switch d.Defname {
			case "max_out":
				m.Graph.MaxOut = nil
			case "min_out":
				m.Graph.MinOut = nil
			default:
				return notSupported("resetting graph.%s", d.Defname)
			}
			continue
		}
		key := d.Defname
		if d.Defnamespace != "" {
			key = d.Defnamespace + "." + key
		}
		delete(m.Options, key)
	}
	return nil
}
