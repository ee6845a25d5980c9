package ddl

import (
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/pgerr"
)

// Catalog resolves names against the pinned snapshot the statement runs
// on (plus, inside a transaction, the session's pending catalog changes:
// see Overlay). graph.Catalog satisfies it.
type Catalog interface {
	// Table returns the live table named name.
	Table(name string) (graph.TableEntry, bool)
	// Tables returns every live table.
	Tables() []graph.TableEntry
}

// view caches decoded metas of one Plan call.
type view struct {
	cat   Catalog
	metas map[string]TableMeta
}

func newView(cat Catalog) *view { return &view{cat: cat, metas: map[string]TableMeta{}} }

// table resolves a live relation with its meta.
func (v *view) table(name string) (graph.TableEntry, TableMeta, bool, error) {
	e, ok := v.cat.Table(name)
	if !ok {
		return graph.TableEntry{}, TableMeta{}, false, nil
	}
	m, err := v.meta(e)
	return e, m, true, err
}

func (v *view) meta(e graph.TableEntry) (TableMeta, error) {
	if m, ok := v.metas[e.Name]; ok {
		return m, nil
	}
	m, err := DecodeMeta(e.Name, e.Def)
	if err != nil {
		return TableMeta{}, errorf(pgerr.DataCorrupted, "table %q has unreadable metadata", e.Name).WithDetail(err.Error())
	}
	v.metas[e.Name] = m
	return m, nil
}

// all returns every live relation with its meta.
func (v *view) all() ([]graph.TableEntry, []TableMeta, error) {
	es := v.cat.Tables()
	ms := make([]TableMeta, len(es))
	for i, e := range es {
		m, err := v.meta(e)
		if err != nil {
			return nil, nil, err
		}
		ms[i] = m
	}
	return es, ms, nil
}

// relationNames is every name in the relation namespace: tables,
// standalone and owned sequences, indexes (incl. constraint indexes).
func (v *view) relationNames() (map[string]bool, error) {
	es, ms, err := v.all()
	if err != nil {
		return nil, err
	}
	taken := map[string]bool{}
	for i, e := range es {
		taken[e.Name] = true
		for _, ix := range ms[i].Indexes {
			taken[ix.Name] = true
		}
		for _, c := range ms[i].Columns {
			if c.Sequence != nil {
				taken[c.Sequence.Name] = true
			}
		}
	}
	return taken, nil
}

// constraintNames is every constraint name in the schema (PostgreSQL picks
// generated constraint names unique schema-wide).
func (v *view) constraintNames() (map[string]bool, error) {
	_, ms, err := v.all()
	if err != nil {
		return nil, err
	}
	taken := map[string]bool{}
	for _, m := range ms {
		for _, n := range m.constraintNames() {
			taken[n] = true
		}
	}
	return taken, nil
}

// constraintNames lists the table's constraint names.
func (m TableMeta) constraintNames() []string {
	var out []string
	if m.PrimaryKey != nil {
		out = append(out, m.PrimaryKey.Name)
	}
	for _, u := range m.Uniques {
		out = append(out, u.Name)
	}
	for _, c := range m.Checks {
		out = append(out, c.Name)
	}
	for _, f := range m.ForeignKeys {
		out = append(out, f.Name)
	}
	return out
}

// dependency is a foreign key of one table referencing another.
type dependency struct {
	Table string // referencing table
	FK    ForeignKey
	Edge  bool // the FK is an endpoint of edge table Table
}

// referencing lists foreign keys of other tables that reference target.
func (v *view) referencing(target string) ([]dependency, error) {
	es, ms, err := v.all()
	if err != nil {
		return nil, err
	}
	var out []dependency
	for i, e := range es {
		if e.Name == target {
			continue
		}
		for _, fk := range ms[i].ForeignKeys {
			if fk.RefTable == target {
				out = append(out, dependency{Table: e.Name, FK: fk, Edge: ms[i].isEndpointFK(fk)})
			}
		}
	}
	return out, nil
}

// isEndpointFK reports whether fk is an edge endpoint reference.
func (m TableMeta) isEndpointFK(fk ForeignKey) bool {
	if m.Graph.Kind != graph.EdgeTable || len(fk.Columns) != 1 {
		return false
	}
	return fk.Columns[0] == m.Graph.Source || fk.Columns[0] == m.Graph.Target
}
