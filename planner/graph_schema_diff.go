package planner

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/planner/ddl"
)

// graphSchemaDiff is graph.schema_diff(from, to): the schema changes
// between two snapshots, one row per changed object (docs/architecture.md,
// "Diffs and reading other versions"). Tables pair by stable table id (a
// rename is one "renamed" row), columns by column id (a rename or type
// change is one row), constraints, indexes and triggers by name. Each row
// has the table's names on both sides, the object's type and name, what
// happened (added, dropped, renamed, modified) and its definition on each
// side in SQL terms (NULL where it does not exist). Only catalog entries
// are read, never rows.
func (s *session) graphSchemaDiff(ctx context.Context, from, to *string) (*exec.TableDef, error) {
	fsn, err := s.resolveRef(ctx, "graph.schema_diff", from)
	if err != nil {
		return nil, err
	}
	tsn, err := s.resolveRef(ctx, "graph.schema_diff", to)
	if err != nil {
		return nil, err
	}
	type side struct {
		e    graph.TableEntry
		meta ddl.TableMeta
	}
	type pair struct{ f, t *side }
	byID := map[uint64]*pair{}
	var ids []uint64
	add := func(st graph.State, to bool) {
		for _, e := range st.Tables {
			if e.State != graph.Live {
				continue
			}
			m, err := ddl.DecodeMeta(e.Name, e.Def)
			if err != nil || m.Relkind != "" && m.Relkind != ddl.RelTable {
				continue // views, sequences and other catalog objects
			}
			p := byID[e.ID]
			if p == nil {
				p = &pair{}
				byID[e.ID] = p
				ids = append(ids, e.ID)
			}
			if to {
				p.t = &side{e, m}
			} else {
				p.f = &side{e, m}
			}
		}
	}
	add(fsn.State, false)
	add(tsn.State, true)
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	var rows []schemaDiffRow
	for _, id := range ids {
		p := byID[id]
		var fe, te *graph.TableEntry
		var fm, tm *ddl.TableMeta
		if p.f != nil {
			fe, fm = &p.f.e, &p.f.meta
		}
		if p.t != nil {
			te, tm = &p.t.e, &p.t.meta
		}
		if sameDef(fe, te) && fe.Name == te.Name {
			continue
		}
		rows = append(rows, tableSchemaDiff(fe, te, fm, tm)...)
	}
	defs := []exec.ColumnDef{
		{Name: "table_name", Type: exec.TText}, {Name: "from_table_name", Type: exec.TText}, {Name: "to_table_name", Type: exec.TText},
		{Name: "object_type", Type: exec.TText}, {Name: "object_name", Type: exec.TText}, {Name: "diff_type", Type: exec.TText},
		{Name: "from_definition", Type: exec.TText}, {Name: "to_definition", Type: exec.TText},
	}
	vecs := make([]*exec.Vec, len(defs))
	for i, c := range defs {
		vecs[i] = exec.NewVec(c.Type, len(rows))
	}
	for i, r := range rows {
		for c, v := range []string{r.table, r.fromTable, r.toTable, r.objType, r.objName, r.kind, r.fromDef, r.toDef} {
			if v == "" {
				vecs[c].SetNull(i)
				continue
			}
			vecs[c].S[i] = v
		}
	}
	return &exec.TableDef{Schema: "graph", Name: "schema_diff", Columns: defs, Source: exec.MemTableFromVecs(defs, vecs)}, nil
}

// schemaDiffRow is one row of graph.schema_diff.
type schemaDiffRow struct {
	table, fromTable, toTable string
	objType, objName, kind    string
	fromDef, toDef            string
}

// tableSchemaDiff lists the changes of one table (f or t nil: it exists
// on one side only).
func tableSchemaDiff(f, t *graph.TableEntry, fm, tm *ddl.TableMeta) []schemaDiffRow {
	base := schemaDiffRow{}
	switch {
	case f == nil:
		base.table, base.toTable = t.Name, t.Name
		return []schemaDiffRow{withObject(base, "table", t.Name, "added", "", tableDefinition(t, tm))}
	case t == nil:
		base.table, base.fromTable = f.Name, f.Name
		return []schemaDiffRow{withObject(base, "table", f.Name, "dropped", tableDefinition(f, fm), "")}
	}
	base.table, base.fromTable, base.toTable = t.Name, f.Name, t.Name
	var out []schemaDiffRow
	if f.Name != t.Name {
		out = append(out, withObject(base, "table", t.Name, "renamed", f.Name, t.Name))
	}
	// columns by column id
	fcols := map[uint64]int{}
	for i, c := range f.Def.Columns {
		fcols[c.ID] = i
	}
	seen := map[uint64]bool{}
	for _, c := range t.Def.Columns {
		seen[c.ID] = true
		td := columnDefinition(c, tm)
		i, ok := fcols[c.ID]
		if !ok {
			out = append(out, withObject(base, "column", c.Name, "added", "", td))
			continue
		}
		fc := f.Def.Columns[i]
		fd := columnDefinition(fc, fm)
		switch {
		case fc.Name != c.Name:
			out = append(out, withObject(base, "column", c.Name, "renamed", fd, td))
		case fd != td:
			out = append(out, withObject(base, "column", c.Name, "modified", fd, td))
		}
	}
	for _, c := range f.Def.Columns {
		if !seen[c.ID] {
			out = append(out, withObject(base, "column", c.Name, "dropped", columnDefinition(c, fm), ""))
		}
	}
	// constraints, indexes and triggers by name
	for _, kind := range []string{"constraint", "index", "trigger"} {
		fo, to := namedObjects(kind, fm), namedObjects(kind, tm)
		names := map[string]bool{}
		for n := range fo {
			names[n] = true
		}
		for n := range to {
			names[n] = true
		}
		sorted := make([]string, 0, len(names))
		for n := range names {
			sorted = append(sorted, n)
		}
		sort.Strings(sorted)
		for _, n := range sorted {
			a, inF := fo[n]
			b, inT := to[n]
			switch {
			case !inF:
				out = append(out, withObject(base, kind, n, "added", "", b))
			case !inT:
				out = append(out, withObject(base, kind, n, "dropped", a, ""))
			case a != b:
				out = append(out, withObject(base, kind, n, "modified", a, b))
			}
		}
	}
	if len(out) == 0 {
		// something else of the definition changed (a comment, grants,
		// storage options)
		out = append(out, withObject(base, "table", t.Name, "modified", "", ""))
	}
	return out
}

func withObject(r schemaDiffRow, typ, name, kind, from, to string) schemaDiffRow {
	r.objType, r.objName, r.kind, r.fromDef, r.toDef = typ, name, kind, from, to
	return r
}

// columnDefinition is a column as CREATE TABLE writes it: name, SQL type,
// NOT NULL, DEFAULT.
func columnDefinition(c graph.ColumnDef, m *ddl.TableMeta) string {
	typ := c.Type
	var dflt string
	if m != nil {
		for _, cm := range m.Columns {
			if cm.Name == c.Name {
				typ, dflt = cm.Type.String(), cm.Default
			}
		}
	}
	s := exec.QuoteIdent(c.Name) + " " + typ
	if !c.Nullable {
		s += " NOT NULL"
	}
	if dflt != "" {
		s += " DEFAULT " + dflt
	}
	return s
}

// tableDefinition is a table's columns as CREATE TABLE lists them.
func tableDefinition(e *graph.TableEntry, m *ddl.TableMeta) string {
	cols := make([]string, 0, len(e.Def.Columns))
	for _, c := range e.Def.Columns {
		cols = append(cols, columnDefinition(c, m))
	}
	return "(" + strings.Join(cols, ", ") + ")"
}

// namedObjects are a table's constraints, indexes or triggers by name,
// each as its SQL definition.
func namedObjects(kind string, m *ddl.TableMeta) map[string]string {
	out := map[string]string{}
	if m == nil {
		return out
	}
	cols := func(c []string) string {
		q := make([]string, len(c))
		for i, n := range c {
			q[i] = exec.QuoteIdent(n)
		}
		return "(" + strings.Join(q, ", ") + ")"
	}
	switch kind {
	case "constraint":
		if pk := m.PrimaryKey; pk != nil {
			out[pk.Name] = "PRIMARY KEY " + cols(pk.Columns)
		}
		for _, u := range m.Uniques {
			out[u.Name] = "UNIQUE " + cols(u.Columns)
		}
		for _, c := range m.Checks {
			out[c.Name] = "CHECK (" + c.Expr + ")"
		}
		for _, fk := range m.ForeignKeys {
			d := "FOREIGN KEY " + cols(fk.Columns) + " REFERENCES " + fk.RefTable + cols(fk.RefColumns)
			for _, a := range []struct{ on, action string }{{"DELETE", fk.OnDelete}, {"UPDATE", fk.OnUpdate}} {
				if a.action != "" && a.action != "NoAction" {
					d += " ON " + a.on + " " + fkActionSQL(a.action)
				}
			}
			out[fk.Name] = d
		}
	case "index":
		for _, ix := range m.Indexes {
			if ix.Constraint != "" {
				continue // its constraint's row says it
			}
			d := "INDEX"
			if ix.Unique {
				d = "UNIQUE INDEX"
			}
			if ix.Method != "" {
				d += " USING " + ix.Method
			}
			d += " " + cols(ix.Columns)
			if ix.Where != "" {
				d += " WHERE " + ix.Where
			}
			out[ix.Name] = d
		}
	case "trigger":
		for _, tr := range m.Triggers {
			out[tr.Name] = triggerDefinition(tr)
		}
	}
	return out
}

// fkActionSQL spells a foreign key action as SQL (SetNull → SET NULL).
func fkActionSQL(a string) string {
	var b strings.Builder
	for i, r := range a {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String())
}

// triggerDefinition is a trigger as CREATE TRIGGER writes it after its
// name (and the table).
func triggerDefinition(tr ddl.Trigger) string {
	when := "AFTER"
	if tr.Before {
		when = "BEFORE"
	}
	events := make([]string, len(tr.Events))
	for i, e := range tr.Events {
		events[i] = e
		if e == "UPDATE" && len(tr.Columns) > 0 {
			events[i] += " OF " + strings.Join(tr.Columns, ", ")
		}
	}
	each := "STATEMENT"
	if tr.Row {
		each = "ROW"
	}
	d := fmt.Sprintf("%s %s FOR EACH %s", when, strings.Join(events, " OR "), each)
	if tr.When != "" {
		d += " WHEN (" + tr.When + ")"
	}
	args := make([]string, len(tr.Args))
	for i, a := range tr.Args {
		args[i] = "'" + strings.ReplaceAll(a, "'", "''") + "'"
	}
	d += " EXECUTE FUNCTION " + tr.Function + "(" + strings.Join(args, ", ") + ")"
	if tr.Disabled {
		d += " (disabled)"
	}
	return d
}
