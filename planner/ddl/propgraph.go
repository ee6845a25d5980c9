package ddl

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/internal/pgq"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
)

// Property graphs (CREATE [OR REPLACE] / ALTER / DROP PROPERTY GRAPH,
// PostgreSQL 19's SQL/PGQ schema objects).
//
// The SQL parser's grammar has no property graph statements:
// internal/pgq.Splice checks their syntax and hands their text over as
// DO LANGUAGE pggraph_property_graph '<text>', which Plan recognises and
// plans here from the text (pgq.ParseGraphDDL).
//
// A property graph is one manifest entry, like an enum type: the view
// placeholder as its definition, Relkind RelPropGraph and the graph's
// element tables, keys, edge endpoints, labels and property expressions
// in its meta (PropGraph, metadata version 5). So a graph is per branch,
// time-travels, merges as one schema entry, and is created, changed and
// dropped in the statement's graph commit. The entry's name is
// PropGraphEntryPrefix + the graph's name; the prefix keeps it out of
// every relation lookup. Element tables are named by their table names;
// DROP TABLE of a table a graph uses answers 2BP01 (CASCADE: 0A000).

// RelPropGraph is the relation kind of a property graph's entry.
const RelPropGraph = "property graph"

// PropGraphEntryPrefix starts the manifest name of a property graph.
const PropGraphEntryPrefix = "propgraph:"

// metaVersionPropGraph is the metadata version of property graph
// entries: a build that predates them refuses them.
const metaVersionPropGraph = 5

// PropGraphMeta is a property graph's definition.
type PropGraphMeta struct {
	Elements []PGElement `json:"elements"`
}

// PGElement is one vertex or edge table of a property graph.
type PGElement struct {
	Alias string   `json:"alias"`
	Edge  bool     `json:"edge,omitempty"`
	Table string   `json:"table"`
	Key   []string `json:"key"`
	// Edges: the source and destination vertex aliases, the edge's
	// columns and the vertex table's columns they equal.
	Src    string    `json:"src,omitempty"`
	SrcKey []string  `json:"src_key,omitempty"`
	SrcRef []string  `json:"src_ref,omitempty"`
	Dst    string    `json:"dst,omitempty"`
	DstKey []string  `json:"dst_key,omitempty"`
	DstRef []string  `json:"dst_ref,omitempty"`
	Labels []PGLabel `json:"labels"`
}

// PGLabel is one label of an element table and the properties it
// exposes there.
type PGLabel struct {
	Name  string   `json:"name"`
	Props []PGProp `json:"props"`
}

// PGProp is one property: its name, its SQL expression over the element
// table's columns (unqualified) and its type.
type PGProp struct {
	Name string `json:"name"`
	Expr string `json:"expr"`
	Type PGType `json:"type"`
}

// PropGraphName returns the graph name of a manifest entry name.
func PropGraphName(entry string) (string, bool) {
	return strings.CutPrefix(entry, PropGraphEntryPrefix)
}

// ExecPropGraph is the executor's description of a property graph entry.
func ExecPropGraph(e graph.TableEntry, name string, m TableMeta) *exec.PropGraphDef {
	d := &exec.PropGraphDef{Schema: "public", Name: name, Owner: m.Owner, Comment: m.Comment}
	d.OID = e.RelOID()
	if m.PropGraph == nil {
		return d
	}
	for _, el := range m.PropGraph.Elements {
		x := exec.PropGraphElement{Alias: el.Alias, Edge: el.Edge, Table: el.Table, Key: el.Key,
			Src: el.Src, SrcKey: el.SrcKey, SrcRef: el.SrcRef, Dst: el.Dst, DstKey: el.DstKey, DstRef: el.DstRef}
		for _, l := range el.Labels {
			xl := exec.PropGraphLabel{Name: l.Name}
			for _, p := range l.Props {
				xl.Props = append(xl.Props, exec.PropGraphProp{Name: p.Name, Expr: p.Expr, Type: p.Type.Exec()})
			}
			x.Labels = append(x.Labels, xl)
		}
		d.Elements = append(d.Elements, x)
	}
	return d
}

// IsPropGraphStmt reports a DO statement carrying a property graph
// statement (see above), and returns its text.
func IsPropGraphStmt(n *q.Node) (string, bool) {
	do := n.GetDoStmt()
	if do == nil {
		return "", false
	}
	var lang, body string
	for _, a := range do.Args {
		de := a.GetDefElem()
		if de == nil {
			continue
		}
		switch de.Defname {
		case "language":
			lang = de.Arg.GetString_().GetSval()
		case "as":
			body = de.Arg.GetString_().GetSval()
		}
	}
	return body, lang == pgq.DDLLanguage
}

// propGraphError gives a pgq error its SQLSTATE.
func propGraphError(err error) error {
	if pe, ok := err.(*pgq.Error); ok {
		return errorf(pe.Code, "%s", pe.Message)
	}
	return err
}

// propGraph resolves a property graph by name.
func (pc *planCtx) propGraph(name string) (graph.TableEntry, TableMeta, bool, error) {
	e, m, ok, err := pc.v.table(PropGraphEntryPrefix + name)
	if err != nil || !ok || m.Relkind != RelPropGraph || m.PropGraph == nil {
		return graph.TableEntry{}, TableMeta{}, false, err
	}
	return e, cloneMeta(m), true, nil
}

// graphName checks a graph name's schema (public or none).
func graphName(schema, name string) (string, error) {
	return publicRelName(&q.RangeVar{Schemaname: schema, Relname: name})
}

// planPropGraph plans one property graph statement from its text.
func (pc *planCtx) planPropGraph(text string) ([]Change, error) {
	d, err := pgq.ParseGraphDDL(text)
	if err != nil {
		return nil, propGraphError(err)
	}
	switch d.Verb {
	case "CREATE":
		return pc.createPropGraph(d)
	case "DROP":
		return pc.dropPropGraphs(d)
	}
	return pc.alterPropGraph(d)
}

func (pc *planCtx) createPropGraph(d *pgq.GraphDDL) ([]Change, error) {
	name, err := graphName(d.Schema, d.Name)
	if err != nil {
		return nil, err
	}
	e, old, exists, err := pc.propGraph(name)
	if err != nil {
		return nil, err
	}
	if exists && !d.OrReplace {
		return nil, errorf(CodeDuplicateTable, "relation \"%s\" already exists", name)
	}
	if !exists {
		if _, _, rel, err := pc.v.table(name); err != nil {
			return nil, err
		} else if rel {
			return nil, errorf(CodeDuplicateTable, "relation \"%s\" already exists", name)
		}
	}
	g := &PropGraphMeta{}
	if err := pc.addElements(g, d); err != nil {
		return nil, err
	}
	if err := checkPropGraph(g); err != nil {
		return nil, err
	}
	m := TableMeta{Relkind: RelPropGraph, Graph: GraphMeta{Kind: graph.RelationTable}, PropGraph: g}
	if exists {
		m.Owner, m.ACL, m.Comment = old.Owner, old.ACL, old.Comment
		def := e.Def
		def.Extra = m.Encode()
		return []Change{&AlterTable{Name: e.Name, Def: def, Meta: m, CommandTag: "CREATE PROPERTY GRAPH"}}, nil
	}
	return []Change{&CreateTable{Name: PropGraphEntryPrefix + name, Kind: graph.RelationTable, Def: viewDef(m, 0), Meta: m}}, nil
}

// addElements adds d's vertex and edge table definitions to g.
func (pc *planCtx) addElements(g *PropGraphMeta, d *pgq.GraphDDL) error {
	for k, set := range [][]*pgq.ElementDef{d.Vertices, d.Edges} {
		for _, ed := range set {
			el, err := pc.element(g, d, ed, k == 1)
			if err != nil {
				return err
			}
			g.Elements = append(g.Elements, *el)
		}
	}
	return nil
}

// element resolves one element table definition against the catalog and
// the graph's elements so far.
func (pc *planCtx) element(g *PropGraphMeta, d *pgq.GraphDDL, ed *pgq.ElementDef, edge bool) (*PGElement, error) {
	table, err := graphName(ed.Schema, ed.Table)
	if err != nil {
		return nil, err
	}
	_, tm, ok, err := pc.v.table(table)
	if err != nil {
		return nil, err
	}
	if !ok || tm.Relkind == RelSequence {
		return nil, errorf(CodeUndefinedTable, "relation \"%s\" does not exist", table)
	}
	if tm.Relkind != RelTable {
		return nil, notSupported("a %s as a property graph element table", tm.Relkind)
	}
	if slices.ContainsFunc(g.Elements, func(x PGElement) bool { return x.Alias == ed.Alias }) {
		if d.Verb == "ALTER" {
			return nil, errorf(CodeInvalidObjectDefinition, "alias \"%s\" already exists in property graph \"%s\"", ed.Alias, d.Name)
		}
		return nil, errorf(CodeDuplicateTable, "alias \"%s\" used more than once as element table", ed.Alias)
	}
	el := &PGElement{Alias: ed.Alias, Edge: edge, Table: table}
	if el.Key, err = columnsOf(tm, table, ed.Key); err != nil {
		return nil, err
	}
	if ed.Key == nil {
		if tm.PrimaryKey == nil {
			return nil, errorf(CodeInvalidObjectDefinition, "no key specified and no suitable primary key exists for definition of element \"%s\"", ed.Alias)
		}
		el.Key = slices.Clone(tm.PrimaryKey.Columns)
	}
	if edge {
		for _, end := range []struct {
			word       string
			alias      string
			key, ref   []string
			outV       *string
			outK, outR *[]string
		}{
			{"SOURCE", ed.Src, ed.SrcKey, ed.SrcRef, &el.Src, &el.SrcKey, &el.SrcRef},
			{"DESTINATION", ed.Dst, ed.DstKey, ed.DstRef, &el.Dst, &el.DstKey, &el.DstRef},
		} {
			vi := slices.IndexFunc(g.Elements, func(x PGElement) bool { return !x.Edge && x.Alias == end.alias })
			if vi < 0 {
				return nil, errorf(CodeInvalidObjectDefinition, "%s vertex \"%s\" of edge \"%s\" does not exist", strings.ToLower(end.word), end.alias, ed.Alias)
			}
			v := g.Elements[vi]
			_, vm, _, err := pc.v.table(v.Table)
			if err != nil {
				return nil, err
			}
			*end.outV = v.Alias
			if end.key != nil {
				if len(end.key) != len(end.ref) {
					return nil, errorf(CodeInvalidObjectDefinition, "mismatching number of columns in %s vertex definition of edge \"%s\"", end.word, ed.Alias)
				}
				if *end.outK, err = columnsOf(tm, table, end.key); err != nil {
					return nil, err
				}
				if *end.outR, err = columnsOf(vm, v.Table, end.ref); err != nil {
					return nil, err
				}
				continue
			}
			var fk *ForeignKey
			for i := range tm.ForeignKeys {
				if tm.ForeignKeys[i].RefTable != v.Table {
					continue
				}
				if fk != nil {
					return nil, errorf(CodeSyntaxError, "more than one suitable foreign key exists for %s key of edge \"%s\"", end.word, ed.Alias)
				}
				fk = &tm.ForeignKeys[i]
			}
			if fk == nil {
				return nil, errorf(CodeSyntaxError, "no %s key specified and no suitable foreign key exists for definition of edge \"%s\"", end.word, ed.Alias)
			}
			*end.outK = slices.Clone(fk.Columns)
			*end.outR = slices.Clone(fk.RefColumns)
			if len(fk.RefColumns) == 0 && vm.PrimaryKey != nil {
				*end.outR = slices.Clone(vm.PrimaryKey.Columns)
			}
		}
	}
	labels := ed.Labels
	if labels == nil {
		labels = []*pgq.LabelDef{{Default: true}}
	}
	for _, ld := range labels {
		l, err := pc.label(tm, table, ed.Alias, ld)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(el.Labels, func(x PGLabel) bool { return x.Name == l.Name }) {
			return nil, errorf(CodeDuplicateObject, "label \"%s\" already exists", l.Name)
		}
		el.Labels = append(el.Labels, *l)
	}
	return el, nil
}

// columnsOf checks names are columns of table (no repeats).
func columnsOf(tm TableMeta, table string, names []string) ([]string, error) {
	for i, n := range names {
		if c, _ := tm.Column(n); c == nil {
			return nil, errorf(CodeUndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", n, table)
		}
		if slices.Contains(names[:i], n) {
			return nil, errorf(CodeInvalidObjectDefinition, "graph key columns list must not contain duplicates")
		}
	}
	return slices.Clone(names), nil
}

// label resolves one label definition's properties on table.
func (pc *planCtx) label(tm TableMeta, table, alias string, ld *pgq.LabelDef) (*PGLabel, error) {
	l := &PGLabel{Name: ld.Name}
	if ld.Default || l.Name == "" {
		l.Name = alias
	}
	props, err := pc.properties(tm, table, ld.Props)
	if err != nil {
		return nil, err
	}
	l.Props = props
	return l, nil
}

// properties resolves a properties clause: every column (nil or ALL
// COLUMNS), none, or expressions typed by binding them over the table.
func (pc *planCtx) properties(tm TableMeta, table string, pd *pgq.PropsDef) ([]PGProp, error) {
	if pd == nil || pd.All {
		out := []PGProp{}
		for _, c := range tm.Columns {
			out = append(out, PGProp{Name: c.Name, Expr: quoteIdent(c.Name), Type: c.Type})
		}
		return out, nil
	}
	out := []PGProp{}
	if pd.None {
		return out, nil
	}
	var sel []string
	for _, it := range pd.Items {
		if it.Name == "" {
			return nil, errorf(CodeSyntaxError, "property name required")
		}
		if slices.ContainsFunc(out, func(p PGProp) bool { return p.Name == it.Name }) {
			return nil, errorf(CodeDuplicateObject, "property \"%s\" specified more than once", it.Name)
		}
		expr := it.Expr
		if n, ok := pgq.LoneIdent(expr); ok {
			expr = quoteIdent(n) // as PROPERTIES ALL COLUMNS spells a column
		}
		out = append(out, PGProp{Name: it.Name, Expr: expr})
		sel = append(sel, "("+it.Expr+") AS "+quoteIdent(it.Name))
	}
	if pc.p.Views == nil {
		return nil, notSupported("PROPERTIES (expression …) here")
	}
	tree, err := q.Parse("SELECT " + strings.Join(sel, ", ") + " FROM " + quoteIdent(table))
	if err != nil || len(tree.Stmts) != 1 {
		if err == nil {
			err = errorf(CodeSyntaxError, "syntax error in PROPERTIES")
		}
		return nil, err
	}
	va, err := pc.p.Views.AnalyzeView(tree.Stmts[0].Stmt, nil)
	if err != nil {
		return nil, err
	}
	if len(va.Columns) != len(out) {
		return nil, errorf(CodeSyntaxError, "syntax error in PROPERTIES")
	}
	for i, c := range va.Columns {
		out[i].Type = pgType(c.Type)
	}
	return out, nil
}

// checkPropGraph checks a graph's consistency as PostgreSQL 19 does: a
// property has one type in the whole graph, an element's property has one
// expression in all its labels, and a label has the same property names
// on every element that carries it.
func checkPropGraph(g *PropGraphMeta) error {
	types := map[string]PGType{}
	labels := map[string][]string{}
	for _, el := range g.Elements {
		exprs := map[string]string{}
		for _, l := range el.Labels {
			var names []string
			for _, p := range l.Props {
				if t, ok := types[p.Name]; ok && t != p.Type {
					return errorf(CodeSyntaxError, "property \"%s\" data type mismatch: %s vs. %s", p.Name,
						exec.FormatType(t.Exec().OID, t.Mod), exec.FormatType(p.Type.Exec().OID, p.Type.Mod)).
						WithDetail("In a property graph, a property of the same name has to have the same data type in each label.")
				}
				types[p.Name] = p.Type
				if x, ok := exprs[p.Name]; ok && x != p.Expr {
					a, b := min(x, p.Expr), max(x, p.Expr)
					return errorf(CodeSyntaxError, "element \"%s\" property \"%s\" expression mismatch: %s vs. %s", el.Alias, p.Name, a, b).
						WithDetail("In a property graph element, a property of the same name has to have the same expression in each label.")
				}
				exprs[p.Name] = p.Expr
				names = append(names, p.Name)
			}
			slices.Sort(names)
			if ref, ok := labels[l.Name]; ok {
				if len(ref) != len(names) {
					return errorf(CodeInvalidObjectDefinition, "mismatching number of properties in definition of label \"%s\"", l.Name)
				}
				if !slices.Equal(ref, names) {
					return errorf(CodeInvalidObjectDefinition, "mismatching property names in definition of label \"%s\"", l.Name)
				}
			}
			labels[l.Name] = names
		}
	}
	return nil
}

func (pc *planCtx) dropPropGraphs(d *pgq.GraphDDL) ([]Change, error) {
	var out []Change
	var ns []*pgerr.Error
	var lines, cascaded, views []string
	gone := map[string]bool{}
	for _, n := range d.Drops {
		name, err := graphName(n[0], n[1])
		if err != nil {
			return nil, err
		}
		_, _, ok, err := pc.propGraph(name)
		if err != nil {
			return nil, err
		}
		if !ok {
			if !d.IfExists {
				return nil, errorf(CodeUndefinedTable, "property graph \"%s\" does not exist", name)
			}
			ns = append(ns, notice(pgerr.SuccessfulCompletion, "property graph \"%s\" does not exist, skipping", name))
			continue
		}
		out = append(out, &DropTable{Name: PropGraphEntryPrefix + name, Cascade: d.Cascade, CommandTag: "DROP PROPERTY GRAPH"})
		// views whose GRAPH_TABLE reads the graph (and views over those)
		// need CASCADE, which drops them too (2BP01 otherwise)
		deps, err := pc.dependentViews(PropGraphEntryPrefix+name, "", "property graph "+name, gone)
		if err != nil {
			return nil, err
		}
		for _, v := range deps {
			lines = append(lines, v.line)
			cascaded = append(cascaded, "drop cascades to view "+v.name)
			views = append(views, v.name)
		}
		if len(deps) > 0 && !d.Cascade {
			return nil, errorf(CodeDependentObjects, "cannot drop property graph %s because other objects depend on it", name).
				WithDetail(strings.Join(lines, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
	}
	if len(out) == 0 {
		return []Change{&NoOp{CommandTag: "DROP PROPERTY GRAPH", notes: notes{ns}}}, nil
	}
	for _, v := range views {
		out = append(out, &DropTable{Name: v, Cascade: true, CommandTag: "DROP PROPERTY GRAPH"})
	}
	out[0].(*DropTable).Notice = append(ns, cascadeNotices(cascaded)...)
	return out, nil
}

func (pc *planCtx) alterPropGraph(d *pgq.GraphDDL) ([]Change, error) {
	name, err := graphName(d.Schema, d.Name)
	if err != nil {
		return nil, err
	}
	e, m, ok, err := pc.propGraph(name)
	if err != nil {
		return nil, err
	}
	if !ok {
		if d.IfExists {
			return []Change{&NoOp{CommandTag: "ALTER PROPERTY GRAPH", notes: notes{[]*pgerr.Error{
				notice(pgerr.SuccessfulCompletion, "relation \"%s\" does not exist, skipping", name)}}}}, nil
		}
		return nil, errorf(CodeUndefinedTable, "property graph \"%s\" does not exist", name)
	}
	g := m.PropGraph
	newName := ""
	switch {
	case len(d.Vertices) > 0 || len(d.Edges) > 0:
		if err := pc.addElements(g, d); err != nil {
			return nil, err
		}
	case d.DropVertices != nil || d.DropEdges != nil:
		if err := dropElements(g, d); err != nil {
			return nil, err
		}
	case d.RenameTo != "":
		if _, _, taken, err := pc.propGraph(d.RenameTo); err != nil {
			return nil, err
		} else if taken {
			return nil, errorf(CodeDuplicateTable, "relation \"%s\" already exists", d.RenameTo)
		}
		if _, _, rel, err := pc.v.table(d.RenameTo); err != nil {
			return nil, err
		} else if rel {
			return nil, errorf(CodeDuplicateTable, "relation \"%s\" already exists", d.RenameTo)
		}
		// a view's stored GRAPH_TABLE names its graph as text
		if deps, err := pc.v.viewDependents(PropGraphEntryPrefix+name, "", false); err != nil {
			return nil, err
		} else if len(deps) > 0 {
			return nil, errorf(CodeFeatureNotSupported, "renaming property graph \"%s\" is not supported while view \"%s\" reads it", name, deps[0].Name)
		}
		newName = PropGraphEntryPrefix + d.RenameTo
	case d.AlterAlias != "":
		if err := pc.alterElement(g, d); err != nil {
			return nil, err
		}
	}
	if err := checkPropGraph(g); err != nil {
		return nil, err
	}
	def := e.Def
	def.Extra = m.Encode()
	return []Change{&AlterTable{Name: e.Name, NewName: newName, Def: def, Meta: m, CommandTag: "ALTER PROPERTY GRAPH"}}, nil
}

// dropElements removes vertex and edge tables by alias; edges of a
// dropped vertex go with it under CASCADE and forbid the drop otherwise.
func dropElements(g *PropGraphMeta, d *pgq.GraphDDL) error {
	drop := map[string]bool{}
	for _, set := range []struct {
		aliases []string
		edge    bool
	}{{d.DropVertices, false}, {d.DropEdges, true}} {
		for _, a := range set.aliases {
			if !slices.ContainsFunc(g.Elements, func(x PGElement) bool { return x.Alias == a && x.Edge == set.edge }) {
				kind := "vertex"
				if set.edge {
					kind = "edge"
				}
				return errorf(CodeUndefinedObject, "property graph \"%s\" has no %s \"%s\"", d.Name, kind, a)
			}
			drop[a] = true
		}
	}
	var lines []string
	for _, el := range g.Elements {
		if el.Edge && !drop[el.Alias] && (drop[el.Src] || drop[el.Dst]) {
			v := el.Src
			if !drop[v] {
				v = el.Dst
			}
			lines = append(lines, fmt.Sprintf("edge %s of property graph %s depends on vertex %s of property graph %s", el.Alias, d.Name, v, d.Name))
			if d.Cascade {
				drop[el.Alias] = true
			}
		}
	}
	if len(lines) > 0 && !d.Cascade {
		return errorf(CodeDependentObjects, "cannot drop vertex %s of property graph %s because other objects depend on it", d.DropVertices[0], d.Name).
			WithDetail(strings.Join(lines, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	g.Elements = slices.DeleteFunc(g.Elements, func(x PGElement) bool { return drop[x.Alias] })
	return nil
}

// alterElement plans ALTER VERTEX|EDGE TABLE alias ADD LABEL / DROP
// LABEL / ALTER LABEL … ADD|DROP PROPERTIES.
func (pc *planCtx) alterElement(g *PropGraphMeta, d *pgq.GraphDDL) error {
	i := slices.IndexFunc(g.Elements, func(x PGElement) bool { return x.Alias == d.AlterAlias && x.Edge == d.AlterEdge })
	if i < 0 {
		kind := "vertex"
		if d.AlterEdge {
			kind = "edge"
		}
		return errorf(CodeUndefinedObject, "property graph \"%s\" has no %s \"%s\"", d.Name, kind, d.AlterAlias)
	}
	el := &g.Elements[i]
	_, tm, _, err := pc.v.table(el.Table)
	if err != nil {
		return err
	}
	findLabel := func(n string) (int, error) {
		k := slices.IndexFunc(el.Labels, func(l PGLabel) bool { return l.Name == n })
		if k < 0 {
			return 0, errorf(CodeUndefinedObject, "property graph \"%s\" element \"%s\" has no label \"%s\"", d.Name, el.Alias, n)
		}
		return k, nil
	}
	switch {
	case d.AddLabels != nil:
		for _, ld := range d.AddLabels {
			l, err := pc.label(tm, el.Table, el.Alias, ld)
			if err != nil {
				return err
			}
			if slices.ContainsFunc(el.Labels, func(x PGLabel) bool { return x.Name == l.Name }) {
				return errorf(CodeDuplicateObject, "label \"%s\" already exists", l.Name)
			}
			el.Labels = append(el.Labels, *l)
		}
	case d.DropLabel != "":
		k, err := findLabel(d.DropLabel)
		if err != nil {
			return err
		}
		if len(el.Labels) == 1 {
			return errorf(CodeInvalidObjectDefinition, "cannot drop the last label of element \"%s\"", el.Alias)
		}
		el.Labels = slices.Delete(el.Labels, k, k+1)
	case d.AddProps != nil:
		k, err := findLabel(d.AlterLabel)
		if err != nil {
			return err
		}
		props, err := pc.properties(tm, el.Table, d.AddProps)
		if err != nil {
			return err
		}
		for _, p := range props {
			if slices.ContainsFunc(el.Labels[k].Props, func(x PGProp) bool { return x.Name == p.Name }) {
				return errorf(CodeDuplicateObject, "property \"%s\" already exists", p.Name)
			}
			el.Labels[k].Props = append(el.Labels[k].Props, p)
		}
	case d.DropProps != nil:
		k, err := findLabel(d.AlterLabel)
		if err != nil {
			return err
		}
		for _, n := range d.DropProps {
			j := slices.IndexFunc(el.Labels[k].Props, func(x PGProp) bool { return x.Name == n })
			if j < 0 {
				return errorf(CodeUndefinedObject, "property graph \"%s\" element \"%s\" label \"%s\" has no property \"%s\"", d.Name, el.Alias, d.AlterLabel, n)
			}
			el.Labels[k].Props = slices.Delete(el.Labels[k].Props, j, j+1)
		}
	}
	return nil
}

// storedGraph is a property graph's manifest entry and its metadata.
type storedGraph struct {
	name  string // the graph's SQL name
	entry graph.TableEntry
	meta  TableMeta // meta.PropGraph is set
}

// propGraphs lists the property graphs stored on the branch.
func (pc *planCtx) propGraphs() ([]storedGraph, error) {
	es, ms, err := pc.v.all()
	if err != nil {
		return nil, err
	}
	var out []storedGraph
	for i, e := range es {
		if g, ok := PropGraphName(e.Name); ok && ms[i].PropGraph != nil {
			out = append(out, storedGraph{name: g, entry: e, meta: ms[i]})
		}
	}
	return out, nil
}

// propGraphsUsing lists "element e of property graph g depends on table
// t" for the graphs that use table t.
func (pc *planCtx) propGraphsUsing(table string) ([]string, error) {
	gs, err := pc.propGraphs()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, sg := range gs {
		for _, el := range sg.meta.PropGraph.Elements {
			if el.Table == table {
				out = append(out, fmt.Sprintf("element %s of property graph %s depends on table %s", el.Alias, sg.name, table))
			}
		}
	}
	return out, nil
}

// followRenameInGraphs keeps the property graphs that use table in step
// with a rename of the table (col "") or of its column col: element
// tables, keys, endpoint columns and property expressions name the new
// name, as PostgreSQL's graphs (which reference by OID) follow renames.
func (pc *planCtx) followRenameInGraphs(table, col, newName string) ([]Change, error) {
	gs, err := pc.propGraphs()
	if err != nil {
		return nil, err
	}
	rename := func(cols []string) {
		for i := range cols {
			if cols[i] == col {
				cols[i] = newName
			}
		}
	}
	var out []Change
	for _, sg := range gs {
		e := sg.entry
		m := cloneMeta(sg.meta)
		changed := false
		alias := map[string]string{}
		for _, el := range m.PropGraph.Elements {
			alias[el.Alias] = el.Table
		}
		for k := range m.PropGraph.Elements {
			el := &m.PropGraph.Elements[k]
			if col == "" {
				if el.Table == table {
					el.Table, changed = newName, true
				}
				continue
			}
			if el.Edge && alias[el.Src] == table && slices.Contains(el.SrcRef, col) {
				rename(el.SrcRef)
				changed = true
			}
			if el.Edge && alias[el.Dst] == table && slices.Contains(el.DstRef, col) {
				rename(el.DstRef)
				changed = true
			}
			if el.Table != table {
				continue
			}
			for _, cols := range [][]string{el.Key, el.SrcKey, el.DstKey} {
				if slices.Contains(cols, col) {
					rename(cols)
					changed = true
				}
			}
			for li := range el.Labels {
				for pi := range el.Labels[li].Props {
					p := &el.Labels[li].Props[pi]
					if x := pgq.RenameIdent(p.Expr, col, newName); x != p.Expr {
						p.Expr, changed = x, true
					}
				}
			}
		}
		if changed {
			def := e.Def
			def.Extra = m.Encode()
			out = append(out, &AlterTable{Name: e.Name, Def: def, Meta: m, CommandTag: "ALTER TABLE"})
		}
	}
	return out, nil
}

// propGraphsUsingColumn lists "property graph g depends on column c of
// table t" for the graphs whose keys, endpoints or properties read it.
func (pc *planCtx) propGraphsUsingColumn(table, col string) ([]string, error) {
	gs, err := pc.propGraphs()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, sg := range gs {
		g := sg.name
		alias := map[string]string{}
		for _, el := range sg.meta.PropGraph.Elements {
			alias[el.Alias] = el.Table
		}
		uses := false
		for _, el := range sg.meta.PropGraph.Elements {
			if el.Edge && (alias[el.Src] == table && slices.Contains(el.SrcRef, col) || alias[el.Dst] == table && slices.Contains(el.DstRef, col)) {
				uses = true
			}
			if el.Table != table {
				continue
			}
			if slices.Contains(el.Key, col) || slices.Contains(el.SrcKey, col) || slices.Contains(el.DstKey, col) {
				uses = true
			}
			for _, l := range el.Labels {
				for _, p := range l.Props {
					if pgq.UsesIdent(p.Expr, col) {
						uses = true
					}
				}
			}
		}
		if uses {
			out = append(out, fmt.Sprintf("property graph %s depends on column %s of table %s", g, col, table))
		}
	}
	return out, nil
}
