package ddl

import (
	"maps"
	"slices"
	"strconv"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
)

// FirstUserOID is where PostgreSQL starts user object OIDs; a table's OID
// is its entry's (graph.TableEntry.RelOID: derived from its stable id, or
// kept in the entry for a table created off main), so it survives renames.
const FirstUserOID = 16384

// ExecTable is the exec view of a table (schema public) without Source:
// exact PostgreSQL types, NOT NULL, defaults (serial and identity columns:
// nextval(…) of their sequence), primary key and unique constraints with
// their names, CHECK constraints, foreign keys with their actions,
// indexes that are not constraints, the graph kind and comments.
func ExecTable(e graph.TableEntry) (*exec.TableDef, error) {
	m, err := DecodeMeta(e.Name, e.Def)
	if err != nil {
		return nil, err
	}
	td := &exec.TableDef{OID: e.RelOID(), Schema: "public", Name: e.Name, Comment: m.Comment, Owner: m.Owner, ACL: m.ACL}
	if m.Relkind == RelView {
		return execView(td, m), nil
	}
	switch {
	case m.Relkind == RelSequence:
		td.Kind = RelSequence // pg_class.relkind 'S'
	case m.Graph.Kind != graph.RelationTable:
		td.Kind = string(m.Graph.Kind)
	}
	// reloptions: the declared graph kind (so pg_dump's CREATE TABLE …
	// WITH (…) re-creates it), then the storage parameters by name
	switch {
	case m.Graph.Pending:
		td.Options = append(td.Options, "graph.kind="+string(graph.EdgeTable))
	case m.Graph.Declared:
		td.Options = append(td.Options, "graph.kind="+string(m.Graph.Kind))
	}
	if g := m.Graph; g.Kind == graph.EdgeTable || g.Pending {
		if g.Source != "" && g.Source != "src" {
			td.Options = append(td.Options, "graph.source="+g.Source)
		}
		if g.Target != "" && g.Target != "dst" {
			td.Options = append(td.Options, "graph.target="+g.Target)
		}
		if g.MaxOut != nil {
			td.Options = append(td.Options, "graph.max_out="+strconv.FormatInt(*g.MaxOut, 10))
		}
		if g.MinOut != nil {
			td.Options = append(td.Options, "graph.min_out="+strconv.FormatInt(*g.MinOut, 10))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m.Options)) {
		td.Options = append(td.Options, k+"="+m.Options[k])
	}
	idx := func(name string) int {
		return slices.IndexFunc(td.Columns, func(c exec.ColumnDef) bool { return c.Name == name })
	}
	for i, c := range m.Columns {
		cd := exec.ColumnDef{
			Name:    c.Name,
			Type:    c.Type.Exec(),
			NotNull: !e.Def.Columns[i].Nullable,
			Default: c.DefaultExpr(), // identity columns: nextval of their sequence
			Comment: c.Comment,
			ACL:     c.ACL,
			Domain:  c.Domain,
		}
		switch c.Identity {
		case IdentityAlways:
			cd.Identity = exec.IdentityAlways
		case IdentityByDefault:
			cd.Identity = exec.IdentityByDefault
		}
		if c.Sequence != nil {
			// serial and identity columns own their sequence (pg_depend
			// 'a' / 'i', pg_get_serial_sequence).
			cd.OwnedSequence = c.Sequence.Name
		}
		td.Columns = append(td.Columns, cd)
	}
	cols := func(names []string) []int {
		out := make([]int, 0, len(names))
		for _, n := range names {
			if i := idx(n); i >= 0 {
				out = append(out, i)
			}
		}
		return out
	}
	if m.PrimaryKey != nil {
		td.PrimaryKey = cols(m.PrimaryKey.Columns)
		td.PrimaryKeyName = m.PrimaryKey.Name
	}
	for _, u := range m.Uniques {
		td.Unique = append(td.Unique, cols(u.Columns))
		td.UniqueNames = append(td.UniqueNames, u.Name)
	}
	for _, c := range m.Checks {
		td.Checks = append(td.Checks, exec.CheckDef{Name: c.Name, Expr: c.Expr})
	}
	for _, f := range m.ForeignKeys {
		td.ForeignKeys = append(td.ForeignKeys, exec.ForeignKey{
			Name: f.Name, Columns: cols(f.Columns), RefSchema: "public", RefTable: f.RefTable,
			RefColumns: append([]string(nil), f.RefColumns...),
			OnDelete:   refAction(f.OnDelete), OnUpdate: refAction(f.OnUpdate),
		})
	}
	if m.Graph.Kind == graph.EdgeTable {
		// every edge table is looked up by its endpoints (traversals)
		src, dst := m.Graph.Source, m.Graph.Target
		if src == "" {
			src = "src"
		}
		if dst == "" {
			dst = "dst"
		}
		td.Adjacency = cols([]string{src, dst})
	}
	for _, ix := range m.Indexes {
		if ix.Constraint == "" {
			d := exec.IndexDef{Name: ix.Name, Columns: cols(ix.Columns), Unique: ix.Unique, Method: ix.Method, Where: ix.Where}
			if ix.HasExprs() {
				d.Columns, d.Exprs = make([]int, len(ix.Columns)), make([]string, len(ix.Columns))
				for k, c := range ix.Columns {
					d.Columns[k] = idx(c) // -1 at an expression
					if k < len(ix.Exprs) {
						d.Exprs[k] = ix.Exprs[k]
					}
				}
			}
			td.Indexes = append(td.Indexes, d)
		}
	}
	return td, nil
}

// execView is the exec view of a SQL view: its columns (never NOT NULL,
// no defaults) and its stored query, which the binder expands.
func execView(td *exec.TableDef, m TableMeta) *exec.TableDef {
	td.Kind = "view"
	td.Source = exec.ViewSource{Name: td.Name}
	td.View = &exec.ViewDef{Query: m.View.Query}
	for _, d := range m.View.Depends {
		td.View.Depends = append(td.View.Depends, exec.ViewDependency{Schema: "public", Name: d.Relation, Columns: slices.Clone(d.Columns)})
	}
	for _, c := range m.Columns {
		td.Columns = append(td.Columns, exec.ColumnDef{Name: c.Name, Type: c.Type.Exec(), Comment: c.Comment, ACL: c.ACL})
	}
	return td
}

// refAction maps a referential action to exec's pg_constraint letter.
func refAction(a string) exec.RefAction {
	switch a {
	case Restrict:
		return exec.RefRestrict
	case Cascade:
		return exec.RefCascade
	case SetNull:
		return exec.RefSetNull
	case SetDefault:
		return exec.RefSetDefault
	}
	return exec.RefNoAction
}

// LookupColumns lists the columns a table source should serve by key
// lookup (exec.KeyLookupSource): the leading column of the primary key,
// of every UNIQUE constraint and of every index, each once, in that
// order, then an edge table's endpoint columns (its adjacency). CREATE
// INDEX reaches the executor's key-lookup path this way.
func LookupColumns(td *exec.TableDef) []int {
	var out []int
	add := func(cols []int) {
		if len(cols) > 0 && !slices.Contains(out, cols[0]) {
			out = append(out, cols[0])
		}
	}
	add(td.PrimaryKey)
	for _, u := range td.Unique {
		add(u)
	}
	for _, ix := range td.Indexes {
		if ix.Exprs == nil {
			add(ix.Columns)
		}
	}
	for _, c := range td.Adjacency {
		add([]int{c})
	}
	return out
}
