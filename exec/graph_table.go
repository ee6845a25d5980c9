package exec

import (
	"slices"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/pggraph/pggraph/internal/pgq"
	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// GRAPH_TABLE (SQL/PGQ, docs/sql.md): the parser replaced each clause by
// a call of pg_catalog.pggraph_graph_table('<clause text>')
// (internal/pgq.Splice). Binding that call in FROM rewrites the clause
// over the branch's implicit property graph into a SELECT of joins in
// path order (internal/pgq.Rewrite), parses it and binds it as a
// subquery with a scope of its own, so the pattern runs on the same
// operators as the hand-written join: edge endpoints are lookups on the
// adjacency indexes, quantified edges are recursive CTEs whose every
// iteration is one batched lookup of the frontier.

// ImplicitGraphName names every branch's implicit property graph: all its
// node tables as vertex tables and all its edge tables as edge tables,
// each labelled with its table name and with its columns as properties.
const ImplicitGraphName = "graph"

// graphTableText returns the clause text of a placeholder call ("", false
// for any other range function).
func graphTableText(rf *q.RangeFunction) (string, bool) {
	if rf.IsRowsfrom || len(rf.Functions) != 1 {
		return "", false
	}
	items := rf.Functions[0].GetList().GetItems()
	if len(items) == 0 {
		return "", false
	}
	fc := items[0].GetFuncCall()
	if fc == nil || len(fc.Funcname) == 0 || fc.Funcname[len(fc.Funcname)-1].GetString_().GetSval() != pgq.PlaceholderFunc || len(fc.Args) != 1 {
		return "", false
	}
	c := fc.Args[0].GetAConst()
	if c == nil || c.GetSval() == nil {
		return "", false
	}
	return c.GetSval().Sval, true
}

// graphError gives a pgq error its SQLSTATE.
func graphError(err error) error {
	if pe, ok := err.(*pgq.Error); ok {
		return &Error{Code: pe.Code, Message: pe.Message}
	}
	return err
}

// implicitGraph builds the implicit property graph from the catalog.
func (b *binder) implicitGraph() *pgq.Graph {
	g := &pgq.Graph{Name: ImplicitGraphName}
	byName := map[[2]string]*pgq.ElementTable{}
	element := func(t *TableDef) *pgq.ElementTable {
		et := &pgq.ElementTable{Schema: t.Schema, Table: t.Name, Labels: []string{t.Name},
			Props: map[string]string{}, PropTypes: map[string]string{}}
		for _, c := range t.Columns {
			et.Props[c.Name] = c.Name
			et.PropTypes[c.Name] = FormatType(c.Type.OID, c.Type.Mod)
		}
		return et
	}
	tables := b.cat.userTables()
	for _, t := range tables {
		if t.Kind != "node" || len(t.PrimaryKey) == 0 {
			continue
		}
		et := element(t)
		for _, k := range t.PrimaryKey {
			et.Key = append(et.Key, t.Columns[k].Name)
			et.KeyTypes = append(et.KeyTypes, FormatType(t.Columns[k].Type.OID, t.Columns[k].Type.Mod))
		}
		g.Vertices = append(g.Vertices, et)
		byName[[2]string{t.Schema, t.Name}] = et
	}
	for _, t := range tables {
		if t.Kind != "edge" || len(t.Adjacency) != 2 {
			continue
		}
		endpoint := func(col int) *pgq.Endpoint {
			for _, fk := range t.ForeignKeys {
				if len(fk.Columns) != 1 || fk.Columns[0] != col || len(fk.RefColumns) > 1 {
					continue
				}
				schema := fk.RefSchema
				if schema == "" {
					schema = t.Schema
				}
				if v := byName[[2]string{schema, fk.RefTable}]; v != nil {
					ref := v.Key[0] // REFERENCES t: its primary key
					if len(fk.RefColumns) == 1 {
						ref = fk.RefColumns[0]
					}
					// a NOT NULL column under a foreign key names exactly one
					// vertex row (the rewrite may then skip joining it)
					return &pgq.Endpoint{Columns: []string{t.Columns[col].Name}, Vertex: v, Refs: []string{ref}, Total: t.Columns[col].NotNull}
				}
			}
			return nil
		}
		et := element(t)
		for _, k := range t.PrimaryKey { // an edge table's own key, if any (TRAIL)
			et.Key = append(et.Key, t.Columns[k].Name)
			et.KeyTypes = append(et.KeyTypes, FormatType(t.Columns[k].Type.OID, t.Columns[k].Type.Mod))
		}
		et.Src, et.Dst = endpoint(t.Adjacency[0]), endpoint(t.Adjacency[1])
		if et.Src == nil || et.Dst == nil {
			continue // endpoints not (yet) declared as references
		}
		g.Edges = append(g.Edges, et)
	}
	return g
}

// namedGraph builds a property graph of the catalog (CREATE PROPERTY
// GRAPH) for the rewrite: its element tables with their labels, their
// properties as expressions over the table's columns, keys and edge
// endpoints.
func (b *binder) namedGraph(d *PropGraphDef) (*pgq.Graph, error) {
	g := &pgq.Graph{Name: d.Name}
	byAlias := map[string]*pgq.ElementTable{}
	for _, el := range d.Elements {
		t := b.cat.table(d.Schema, el.Table)
		if t == nil {
			return nil, errf(CodeUndefinedTable, "relation \"%s\" of property graph \"%s\" does not exist", el.Table, d.Name)
		}
		et := &pgq.ElementTable{Schema: t.Schema, Table: t.Name, Key: el.Key,
			Exprs: map[string]string{}, PropTypes: map[string]string{}}
		for _, c := range t.Columns {
			et.Columns = append(et.Columns, c.Name)
		}
		for _, k := range el.Key {
			for _, c := range t.Columns {
				if c.Name == k {
					et.KeyTypes = append(et.KeyTypes, FormatType(c.Type.OID, c.Type.Mod))
				}
			}
		}
		for _, l := range el.Labels {
			et.Labels = append(et.Labels, l.Name)
			for _, p := range l.Props {
				et.Exprs[p.Name] = p.Expr
				et.PropTypes[p.Name] = FormatType(p.Type.OID, p.Type.Mod)
			}
		}
		byAlias[el.Alias] = et
		if !el.Edge {
			g.Vertices = append(g.Vertices, et)
			continue
		}
		et.Src = &pgq.Endpoint{Columns: el.SrcKey, Vertex: byAlias[el.Src], Refs: el.SrcRef}
		et.Dst = &pgq.Endpoint{Columns: el.DstKey, Vertex: byAlias[el.Dst], Refs: el.DstRef}
		if et.Src.Vertex == nil || et.Dst.Vertex == nil {
			return nil, errf(CodeInternalError, "property graph \"%s\": edge \"%s\" has no vertex", d.Name, el.Alias)
		}
		g.Edges = append(g.Edges, et)
	}
	return g, nil
}

// resolveGraph finds the graph a clause names: a property graph of the
// catalog, else the implicit graph.
func (b *binder) resolveGraph(gt *pgq.GraphTable) (*pgq.Graph, error) {
	name := gt.Graph
	if gt.Schema != "" {
		name = gt.Schema + "." + name
	}
	if gt.Schema == "" || gt.Schema == "public" {
		if d := b.cat.propGraph(gt.Graph); d != nil {
			return b.namedGraph(d)
		}
	}
	if gt.Graph != ImplicitGraphName || gt.Schema != "" && (b.cat.user == nil || !slices.Contains(b.cat.user.Schemas(), gt.Schema)) {
		return nil, errf(CodeUndefinedTable, "property graph \"%s\" does not exist", name)
	}
	return b.implicitGraph(), nil
}

// bindGraphTable expands a GRAPH_TABLE clause (see above).
func (b *binder) bindGraphTable(rf *q.RangeFunction, text string, sc *scope) (plan, []scopeCol, error) {
	if rf.Lateral {
		return nil, nil, unsupported("LATERAL GRAPH_TABLE is not supported")
	}
	if rf.Ordinality {
		return nil, nil, errf(CodeSyntaxError, "syntax error at or near \"WITH\"")
	}
	gt, err := pgq.Parse(text)
	if err != nil {
		return nil, nil, graphError(err)
	}
	if err := checkClauseNames(gt); err != nil {
		return nil, nil, err
	}
	g, err := b.resolveGraph(gt)
	if err != nil {
		return nil, nil, err
	}
	sql, err := pgq.Rewrite(gt, g)
	if err != nil {
		return nil, nil, graphError(err)
	}
	tree, err := q.Parse(sql)
	if err != nil || len(tree.Stmts) != 1 || tree.Stmts[0].Stmt.GetSelectStmt() == nil {
		return nil, nil, errf(CodeInternalError, "GRAPH_TABLE rewrite does not parse: %v", err)
	}
	// without an alias the clause is named as the function it became, so
	// a view's stored query (which qualifies columns) binds again
	alias := pgq.PlaceholderFunc
	if rf.Alias != nil {
		alias = rf.Alias.Aliasname
	}
	if err := b.addAlias(sc, alias); err != nil {
		return nil, nil, err
	}
	// The rewritten query sees the catalog only (no outer columns or
	// CTEs; its table names are schema-qualified), and its text is not
	// the statement's (no error positions). Under a view's trace its
	// relations and columns are the view's dependencies (so DROP and
	// ALTER of an element table see the view), and so is a named graph.
	if b.trace != nil && (gt.Schema == "" || gt.Schema == "public") && b.cat.propGraph(gt.Graph) != nil {
		b.trace.graphs = append(b.trace.graphs, gt.Graph)
	}
	ctes, sqlText, keep := b.ctes, b.sql, b.keepUnknown
	b.ctes, b.sql, b.keepUnknown = nil, "", false
	bd, err := b.bindSelect(tree.Stmts[0].Stmt.GetSelectStmt(), nil)
	b.ctes, b.sql, b.keepUnknown = ctes, sqlText, keep
	if err != nil {
		return nil, nil, err
	}
	cols := make([]scopeCol, len(bd.cols))
	for i, c := range bd.cols {
		cols[i] = scopeCol{name: c.name, t: c.t, idx: i}
	}
	cols, err = applyAlias(cols, rf.Alias, alias)
	if err != nil {
		return nil, nil, err
	}
	return bd.plan, cols, nil
}

// checkClauseNames refuses a bare column name in the clause's
// expressions (42703, as PostgreSQL 19): inside GRAPH_TABLE a column is
// read only as a property of an element variable (v.prop), and the
// rewrite would otherwise let the name bind to whichever element table
// has such a column. A lone name that is an element or path variable
// (LABELS(v), path_length(p)) is the variable.
func checkClauseNames(gt *pgq.GraphTable) error {
	vars := map[string]bool{}
	var exprs []*pgq.Expr
	for _, p := range gt.Paths {
		if p.Var != "" {
			vars[p.Var] = true
		}
		for _, el := range p.Elems {
			if el.Var != "" {
				vars[el.Var] = true
			}
			exprs = append(exprs, el.Where)
		}
		exprs = append(exprs, p.Wheres...)
	}
	exprs = append(exprs, gt.Where)
	for _, c := range gt.Columns {
		exprs = append(exprs, c.Expr)
	}
	for _, e := range exprs {
		text := e.Text()
		if text == "" {
			continue
		}
		tree, err := q.Parse("SELECT " + text)
		if err != nil || len(tree.Stmts) != 1 {
			continue // the rewritten query reports it
		}
		var bad string
		walkProto(tree.Stmts[0].Stmt.ProtoReflect(), func(m protoreflect.Message) {
			cr, ok := m.Interface().(*q.ColumnRef)
			if !ok || bad != "" || len(cr.Fields) != 1 {
				return
			}
			if s := cr.Fields[0].GetString_(); s != nil && !vars[s.Sval] {
				bad = s.Sval
			}
		})
		if bad != "" {
			return errf(CodeUndefinedColumn, "column \"%s\" does not exist", bad)
		}
	}
	return nil
}
