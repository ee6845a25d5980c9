package ddl

import (
	"sort"

	"github.com/pggraph/pggraph/graph"
)

// Overlay is a Catalog of a base snapshot plus planned, not yet published
// changes: a transaction plans each DDL statement against the overlay of
// its earlier ones. Tables created in the overlay have ID 0 and column
// ids 0 until the graph commit allocates them.
type Overlay struct {
	base    Catalog
	changed map[string]graph.TableEntry // by current name
	gone    map[string]bool             // base names dropped or renamed away
}

// NewOverlay starts an overlay over base.
func NewOverlay(base Catalog) *Overlay {
	return &Overlay{base: base, changed: map[string]graph.TableEntry{}, gone: map[string]bool{}}
}

// Table implements Catalog.
func (o *Overlay) Table(name string) (graph.TableEntry, bool) {
	if e, ok := o.changed[name]; ok {
		return e, true
	}
	if o.gone[name] {
		return graph.TableEntry{}, false
	}
	return o.base.Table(name)
}

// Tables implements Catalog (base order, then new tables by name).
func (o *Overlay) Tables() []graph.TableEntry {
	var out []graph.TableEntry
	seen := map[string]bool{}
	for _, e := range o.base.Tables() {
		if o.gone[e.Name] {
			continue
		}
		if c, ok := o.changed[e.Name]; ok {
			e = c
		}
		seen[e.Name] = true
		out = append(out, e)
	}
	var added []string
	for n := range o.changed {
		if !seen[n] {
			added = append(added, n)
		}
	}
	sort.Strings(added)
	for _, n := range added {
		out = append(out, o.changed[n])
	}
	return out
}

// Apply records planned changes (in order).
func (o *Overlay) Apply(changes ...Change) {
	for _, c := range changes {
		switch c := c.(type) {
		case *CreateTable:
			o.gone[c.Name] = true
			o.changed[c.Name] = graph.TableEntry{Name: c.Name, Kind: c.Kind, Def: c.Def, State: graph.Live}
		case *DropTable:
			delete(o.changed, c.Name)
			o.gone[c.Name] = true
		case *AlterTable:
			e, ok := o.Table(c.Name)
			if !ok {
				continue
			}
			e.Def = c.Def
			e.Kind = c.Meta.Graph.Kind
			if c.NewName != "" && c.NewName != c.Name {
				delete(o.changed, c.Name)
				o.gone[c.Name] = true
				e.Name = c.NewName
				o.gone[c.NewName] = true
			}
			o.changed[e.Name] = e
		}
	}
}
