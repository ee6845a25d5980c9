package graphsql

import (
	"slices"

	"github.com/pggraph/pggraph/exec"
)

// catalog adds the graph schema's views to a session catalog.
type catalog struct {
	base  exec.Catalog
	views []*exec.TableDef
}

// WithViews returns base plus schema "graph" holding views (from Tables
// or TablesAsOf). Unqualified names still resolve through base only
// (graph is not on the search path), so a user table named "commits" is
// never shadowed.
func WithViews(base exec.Catalog, views []*exec.TableDef) exec.Catalog {
	return &catalog{base: base, views: views}
}

// Schemas implements exec.Catalog.
func (c *catalog) Schemas() []string {
	var out []string
	if c.base != nil {
		out = c.base.Schemas()
	}
	if !slices.Contains(out, Schema) {
		out = append(out, Schema)
		slices.Sort(out)
	}
	return out
}

// Tables implements exec.Catalog.
func (c *catalog) Tables(schema string) []*exec.TableDef {
	if schema == Schema {
		return c.views
	}
	if c.base == nil {
		return nil
	}
	return c.base.Tables(schema)
}

// Table implements exec.Catalog.
func (c *catalog) Table(schema, name string) *exec.TableDef {
	if schema == Schema {
		for _, v := range c.views {
			if v.Name == name {
				return v
			}
		}
		return nil
	}
	if c.base == nil {
		return nil
	}
	return c.base.Table(schema, name)
}
