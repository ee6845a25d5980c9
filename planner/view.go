package planner

import (
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/planner/graphsql"
)

// rowAddrColumn is exec's hidden column DML queries project to find the
// rows they change: the row address (pending inserts have the top bit
// set, so they are negative as int8).
const rowAddrColumn = "_rowaddr"

var _ = rowAddrColumn

// view is the exec catalog one statement runs against: the pinned
// snapshot's tables with the transaction's pending changes applied
// (read-your-writes), and statement-local relations (RETURNING's rows,
// ON CONFLICT's excluded).
type view struct {
	root  *catalog // the pinned snapshot's catalog
	base  *catalog // root with the pending DDL applied
	pend  *pendingState
	extra map[string]*exec.TableDef // statement-local relations
	memo  map[string]*exec.TableDef
}

func newView(root *catalog, pend *pendingState) *view {
	base := root
	if pend != nil {
		pend.at = root
		if c, err := effective(root, pend); err == nil {
			base = c
		}
	}
	return &view{root: root, base: base, pend: pend, extra: map[string]*exec.TableDef{}, memo: map[string]*exec.TableDef{}}
}

// Extensions implements exec.ExtensionCatalog.
func (v *view) Extensions() []exec.ExtensionDef { return v.base.Extensions() }

// Enums implements exec.EnumCatalog.
func (v *view) Enums() []*exec.EnumDef { return v.base.Enums() }

// Domains implements exec.DomainCatalog.
func (v *view) Domains() []*exec.DomainDef { return v.base.Domains() }

// Functions implements exec.FunctionCatalog.
func (v *view) Functions() []*exec.FuncDef { return v.base.Functions() }

// PropGraphs implements exec.PropGraphCatalog.
func (v *view) PropGraphs() []*exec.PropGraphDef { return v.base.PropGraphs() }

// SchemaDefs implements exec.SchemaCatalog.
func (v *view) SchemaDefs() []exec.SchemaDef { return v.base.SchemaDefs() }

// Schemas implements exec.Catalog.
func (v *view) Schemas() []string { return v.base.Schemas() }

// Tables implements exec.Catalog.
func (v *view) Tables(schema string) []*exec.TableDef {
	ts := v.base.Tables(schema)
	out := make([]*exec.TableDef, len(ts))
	for i, t := range ts {
		if schema == graphsql.Schema && t.Name == graphsql.ViewConflicts {
			t = v.conflicts(t)
		}
		out[i] = v.wrap(t)
	}
	return out
}

// conflicts is graph.conflicts: the open conflicts of the merge staged
// in the transaction (merge_stage.go), else the catalog's empty view.
func (v *view) conflicts(empty *exec.TableDef) *exec.TableDef {
	if v.pend == nil || v.pend.merge == nil {
		return empty
	}
	if m, ok := v.memo["\x00conflicts"]; ok {
		return m
	}
	td := graphsql.ConflictsTable(v.pend.merge.open(v.pend))
	v.memo["\x00conflicts"] = td
	return td
}

// Table implements exec.Catalog.
func (v *view) Table(schema, name string) *exec.TableDef {
	if schema == "" || schema == "public" {
		if t, ok := v.extra[name]; ok {
			return t
		}
	}
	t := v.base.Table(schema, name)
	if t == nil {
		return nil
	}
	if schema == graphsql.Schema && name == graphsql.ViewConflicts {
		return v.conflicts(t)
	}
	return v.wrap(t)
}

// wrap applies pending changes to a base table definition (memoized: one statement sees one definition).
func (v *view) wrap(t *exec.TableDef) *exec.TableDef {
	if t.Schema == graphsql.Schema {
		return t
	}
	var p *pendingTable
	if v.pend != nil {
		p = v.pend.tables[t.Name]
		if p != nil && p.empty() {
			p = nil
		}
	}
	if p == nil {
		return t
	}
	if m, ok := v.memo[t.Name]; ok {
		return m
	}
	c := *t
	c.Source = exec.WithOverlay(t.Source, t.Columns, p.overlay())
	v.memo[t.Name] = &c
	return &c
}

// refresh forgets the memoized definitions after the pending state
// changed, so the next query sees the change.
func (v *view) refresh() { clear(v.memo) }

// source is the rows of a table as this view sees them, without the
// hidden column.
func (v *view) source(name string) (*exec.TableDef, bool) {
	t := v.base.Table("public", name)
	if t == nil {
		return nil, false
	}
	return v.wrap(t), true
}
