package ddl

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
)

// Views are relations of kind RelView, registered in the catalog like
// sequences are: one manifest entry per view, so a view is per branch,
// time-travels, shares the relation namespace and is created, replaced,
// renamed and dropped by the same SchemaApply changes as a table
// (CreateTable, AlterTable catalog-only, DropTable). The entry's
// definition stores no columns (one placeholder of Lance type null: an
// older build that cannot read version-2 metadata falls back to the
// stored schema and refuses to read the relation instead of showing an
// empty table). The meta holds the view's columns (names and exact
// types, fixed at creation), the normalized query and its dependencies
// (exec.AnalyzeView), by name: a rename of a relation or column a view
// reads rewrites the view's query in the same statement (RenameInView).

// ViewMeta is a view's definition (TableMeta.View).
type ViewMeta struct {
	// Query is the stored SELECT (exec.AnalyzeView's normalized text).
	Query string `json:"query"`
	// Depends lists the relations the query reads, with the columns it
	// references (DROP … CASCADE, column drops and type changes).
	Depends []ViewDepend `json:"depends,omitempty"`
	// Created and Defined are when the view was created and when its
	// query was last (re)defined (Unix nanoseconds; CREATE OR REPLACE
	// moves Defined only). They order dependent views as PostgreSQL does:
	// DROP … CASCADE and its DETAIL by creation, the type-change check by
	// definition (the order PostgreSQL's dependency records were
	// written in).
	Created int64 `json:"created,omitempty"`
	Defined int64 `json:"defined,omitempty"`
}

// ViewDepend is one relation (table or view) a view reads.
type ViewDepend struct {
	Relation string   `json:"relation"`
	Columns  []string `json:"columns,omitempty"`
}

// ViewBinder binds view queries for the statement being planned, against
// the executor's catalog of the same state as the planner's Catalog (the
// pinned snapshot plus the transaction's earlier DDL). Without one,
// CREATE VIEW answers 0A000.
type ViewBinder interface {
	// AnalyzeView binds CREATE VIEW's query (exec.AnalyzeView).
	AnalyzeView(query *q.Node, columns []string) (*exec.ViewAnalysis, error)
	// RenameInView rewrites a view's stored query for a rename
	// (exec.RenameInView).
	RenameInView(view, query string, cols []exec.ViewColumn, r exec.ViewRename) (*exec.ViewAnalysis, error)
}

// viewPlaceholder is the only column of a view's stored definition.
var viewPlaceholder = graph.ColumnDef{Name: "?view?", Type: "null", Nullable: true}

func isViewPlaceholder(d graph.TableDef) bool {
	return len(d.Columns) == 1 && d.Columns[0].Name == viewPlaceholder.Name && d.Columns[0].Type == viewPlaceholder.Type && len(d.PrimaryKey) == 0
}

// viewDef is the stored definition of a view (id: the placeholder
// column's id, 0 for a new view).
func viewDef(m TableMeta, id uint64) graph.TableDef {
	c := viewPlaceholder
	c.ID = id
	return graph.TableDef{Columns: []graph.ColumnDef{c}, Extra: m.Encode()}
}

// pgType is the catalog type of an executor type.
func pgType(t exec.Type) PGType {
	if t.OID == exec.OIDVector {
		return PGType{OID: oidFloat4Array, Mod: -1, Dims: t.Mod}
	}
	return PGType{OID: t.OID, Mod: t.Mod}
}

// viewColumns lists a view meta's columns as the binder describes them.
func (m TableMeta) viewColumns() []exec.ViewColumn {
	out := make([]exec.ViewColumn, len(m.Columns))
	for i, c := range m.Columns {
		out[i] = exec.ViewColumn{Name: c.Name, Type: c.Type.Exec()}
	}
	return out
}

// viewOptions are the options CREATE VIEW … WITH (…) knows.
var viewOptions = map[string]bool{"check_option": true, "security_barrier": true, "security_invoker": true}

// createView plans CREATE [OR REPLACE] VIEW: a new view relation, or a
// catalog-only redefinition of an existing view that keeps its columns
// (new ones may be appended), as PostgreSQL allows.
func (pc *planCtx) createView(st *q.ViewStmt) ([]Change, error) {
	if st.View.Relpersistence == "t" {
		// the session makes a temporary view one of its temporary
		// schema (planner/temp_tables.go) before planning
		return nil, notSupported("CREATE TEMPORARY VIEW")
	}
	for _, o := range st.Options {
		d := o.GetDefElem()
		if d == nil {
			continue
		}
		if !viewOptions[d.Defname] {
			return nil, errorf(CodeInvalidParameterValue, "unrecognized parameter \"%s\"", d.Defname)
		}
		return nil, errorf(CodeFeatureNotSupported, "view option %s is not supported", d.Defname).
			WithDetail("pggraph views are read-only and have no row security.")
	}
	if st.WithCheckOption != q.ViewCheckOption_NO_CHECK_OPTION && st.WithCheckOption != q.ViewCheckOption_VIEW_CHECK_OPTION_UNDEFINED {
		return nil, errorf(CodeFeatureNotSupported, "WITH CHECK OPTION is not supported").
			WithDetail("pggraph views are read-only: there are no inserts or updates through a view to check.")
	}
	if pc.p.Views == nil {
		return nil, notSupported("CREATE VIEW")
	}
	// PostgreSQL analyzes the query before it looks at the name
	var names []string
	for _, a := range st.Aliases {
		names = append(names, truncateIdent(a.GetString_().GetSval()))
	}
	va, err := pc.p.Views.AnalyzeView(st.Query, names)
	if err != nil {
		return nil, err
	}
	name, tempNote, err := pc.viewName(st.View, va)
	if err != nil {
		return nil, err
	}
	e, old, exists, err := pc.v.table(name)
	if err != nil {
		return nil, err
	}
	if exists && !st.Replace {
		return nil, errorf(CodeDuplicateTable, "relation \"%s\" already exists", pc.shown(name))
	}
	if exists && old.Relkind != RelView {
		return nil, errorf(CodeWrongObjectType, "\"%s\" is not a view", name)
	}
	if !exists {
		taken, err := pc.v.relationNames()
		if err != nil {
			return nil, err
		}
		if taken[name] {
			return nil, errorf(CodeDuplicateTable, "relation \"%s\" already exists", pc.shown(name))
		}
	}
	m := TableMeta{Relkind: RelView, Graph: GraphMeta{Kind: graph.RelationTable}, View: &ViewMeta{Query: va.Query, Defined: pc.now()}}
	m.View.Created = m.View.Defined
	for _, c := range va.Columns {
		m.Columns = append(m.Columns, ColumnMeta{Name: c.Name, Type: pgType(c.Type)})
	}
	m.View.Depends = viewDepends(va)
	if !exists {
		return []Change{&CreateTable{notes: tempNote, Name: name, Kind: graph.RelationTable, Def: viewDef(m, 0), Meta: m}}, nil
	}
	if len(m.Columns) < len(old.Columns) {
		return nil, errorf(CodeInvalidTableDefinition, "cannot drop columns from view")
	}
	for i, oc := range old.Columns {
		nc := &m.Columns[i]
		if nc.Name != oc.Name {
			return nil, errorf(CodeInvalidTableDefinition, "cannot change name of view column \"%s\" to \"%s\"", oc.Name, nc.Name).
				WithHint("Use ALTER VIEW ... RENAME COLUMN ... to change name of view column instead.")
		}
		if nc.Type != oc.Type {
			return nil, errorf(CodeInvalidTableDefinition, "cannot change data type of view column \"%s\" from %s to %s", oc.Name, oc.Type, nc.Type)
		}
		nc.Comment = oc.Comment
	}
	m.Comment = old.Comment
	m.Owner, m.ACL = old.Owner, old.ACL // a replaced view keeps its owner and grants
	m.Triggers = old.Triggers           // and its INSTEAD OF triggers
	m.View.Created = old.View.Created
	return []Change{&AlterTable{Name: name, Def: viewDef(m, e.Def.Columns[0].ID), Meta: m, CommandTag: "CREATE VIEW"}}, nil
}

// viewName is the relation CREATE VIEW makes: rv's, or, as PostgreSQL
// does for a view that reads a temporary relation, one of the session's
// temporary schema (with the NOTICE saying so).
func (pc *planCtx) viewName(rv *q.RangeVar, va *exec.ViewAnalysis) (string, notes, error) {
	name, err := pc.createName(rv)
	if err != nil || IsTempSchema(rv.Schemaname) {
		return name, notes{}, err
	}
	temp := slices.ContainsFunc(va.Depends, func(d exec.ViewDependency) bool {
		s, _, ok := strings.Cut(d.Name, ".")
		return ok && IsTempSchema(s)
	})
	if !temp {
		return name, notes{}, nil
	}
	if rv.Schemaname != "" {
		return "", notes{}, errorf(CodeInvalidTableDefinition, "cannot create temporary relation in non-temporary schema")
	}
	n := notes{[]*pgerr.Error{notice(pgerr.SuccessfulCompletion, "view \"%s\" will be a temporary view", rv.Relname)}}
	return QualifiedName(pc.tempSchema(), truncateIdent(rv.Relname)), n, nil
}

// viewDependents lists the views that read relation rel (or, when col is
// set, that column of it), in creation order, or with byDefinition in
// the order their queries were last defined.
func (v *view) viewDependents(rel, col string, byDefinition bool) ([]graph.TableEntry, error) {
	es, ms, err := v.all()
	if err != nil {
		return nil, err
	}
	var out []graph.TableEntry
	var defined []int64
	for i, e := range es {
		if ms[i].Relkind != RelView || ms[i].View == nil || e.Name == rel {
			continue
		}
		for _, d := range ms[i].View.Depends {
			if d.Relation == rel && (col == "" || slices.Contains(d.Columns, col)) {
				out = append(out, e)
				if byDefinition {
					defined = append(defined, ms[i].View.Defined)
				} else {
					defined = append(defined, ms[i].View.Created)
				}
				break
			}
		}
	}
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return defined[idx[i]] < defined[idx[j]] })
	sorted := make([]graph.TableEntry, len(out))
	for i, k := range idx {
		sorted[i] = out[k]
	}
	return sorted, nil
}

// viewDrop is a view a drop removes, with why (PostgreSQL's DETAIL line).
type viewDrop struct {
	name, line string
}

// dependentViews collects, depth first, the views that depend on rel
// (or its column col) and on those views, skipping names in gone; each
// comes with the "view v depends on …" line PostgreSQL reports. what is
// how the first level's dependency is worded ("table t", "column a of
// table t", "view v").
func (pc *planCtx) dependentViews(rel, col, what string, gone map[string]bool) ([]viewDrop, error) {
	var out []viewDrop
	var visit func(rel, col, what string) error
	visit = func(rel, col, what string) error {
		deps, err := pc.v.viewDependents(rel, col, false)
		if err != nil {
			return err
		}
		for _, d := range deps {
			if gone[d.Name] {
				continue
			}
			gone[d.Name] = true
			out = append(out, viewDrop{name: d.Name, line: fmt.Sprintf("view %s depends on %s", d.Name, what)})
			if err := visit(d.Name, "", "view "+d.Name); err != nil {
				return err
			}
		}
		return nil
	}
	return out, visit(rel, col, what)
}

// cascadeNotices are the NOTICEs of a drop that took dependent objects
// with it: one line, or a count with the list as DETAIL.
func cascadeNotices(lines []string) []*pgerr.Error {
	switch len(lines) {
	case 0:
		return nil
	case 1:
		return []*pgerr.Error{notice(pgerr.SuccessfulCompletion, "%s", lines[0])}
	}
	return []*pgerr.Error{notice(pgerr.SuccessfulCompletion, "drop cascades to %d other objects", len(lines)).WithDetail(strings.Join(lines, "\n"))}
}

// dropViews plans DROP VIEW. Views that read a dropped view need
// CASCADE, which drops them too (2BP01 otherwise, as PostgreSQL).
func (pc *planCtx) dropViews(st *q.DropStmt, names []string) ([]Change, error) {
	cascade := st.Behavior == q.DropBehavior_DROP_CASCADE
	order, gone, ns, err := pc.dropTargets(names, RelView, "view", st.MissingOk)
	if err != nil {
		return nil, err
	}
	if len(order) == 0 {
		return []Change{&NoOp{CommandTag: "DROP VIEW", notes: notes{ns}}}, nil
	}
	var lines, cascaded []string
	for _, n := range slices.Clone(order) {
		deps, err := pc.dependentViews(n, "", "view "+n, gone)
		if err != nil {
			return nil, err
		}
		for _, d := range deps {
			lines = append(lines, d.line)
			cascaded = append(cascaded, "drop cascades to view "+d.name)
			order = append(order, d.name)
		}
	}
	if len(lines) > 0 && !cascade {
		return nil, errorf(CodeDependentObjects, "cannot drop view %s because other objects depend on it", order[0]).
			WithDetail(strings.Join(lines, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	out := make([]Change, 0, len(order))
	for _, n := range order {
		out = append(out, &DropTable{Name: n, Cascade: cascade, CommandTag: "DROP VIEW"})
	}
	out[0].(*DropTable).Notice = append(ns, cascadeNotices(cascaded)...)
	return out, nil
}

// dropHint is the HINT of DROP <kind> naming a relation of another kind.
func dropHint(m TableMeta) string {
	switch m.Relkind {
	case RelView:
		return "Use DROP VIEW to remove a view."
	case RelSequence:
		return "Use DROP SEQUENCE to remove a sequence."
	}
	return "Use DROP TABLE to remove a table."
}

// viewDepends is what a view's stored query reads: the relations (with
// their columns) and the property graphs, each graph as the catalog
// entry that holds it (PropGraphEntryPrefix), so one lookup finds the
// views that depend on a table, a view or a graph.
func viewDepends(va *exec.ViewAnalysis) []ViewDepend {
	var out []ViewDepend
	for _, d := range va.Depends {
		out = append(out, ViewDepend{Relation: d.Name, Columns: d.Columns})
	}
	for _, g := range va.Graphs {
		out = append(out, ViewDepend{Relation: PropGraphEntryPrefix + g})
	}
	return out
}

// viewRedefinition is the catalog-only change that gives view e the
// stored query and dependencies of va (after a rename it reads).
func viewRedefinition(e graph.TableEntry, m TableMeta, va *exec.ViewAnalysis, tag string) *AlterTable {
	m = cloneMeta(m)
	m.View.Query = va.Query
	m.View.Depends = viewDepends(va)
	return &AlterTable{Name: e.Name, Def: viewDef(m, e.Def.Columns[0].ID), Meta: m, CommandTag: tag}
}

// followRename rewrites the views that read relation rel (or its column
// col) for its rename to newName: one catalog-only change per view.
func (pc *planCtx) followRename(rel, col, newName, tag string) ([]Change, error) {
	deps, err := pc.v.viewDependents(rel, col, false)
	if err != nil || len(deps) == 0 {
		return nil, err
	}
	if pc.p.Views == nil {
		return nil, notSupported("renaming a relation that views read without a view binder")
	}
	var out []Change
	for _, e := range deps {
		m, err := pc.v.meta(e)
		if err != nil {
			return nil, err
		}
		r := exec.ViewRename{Schema: pc.schemaOf(rel), Relation: rel, Column: col, NewName: newName}
		if col == "" {
			r.NewSchema = pc.schemaOf(newName)
		}
		va, err := pc.p.Views.RenameInView(e.Name, m.View.Query, m.viewColumns(), r)
		if err != nil {
			return nil, err
		}
		out = append(out, viewRedefinition(e, m, va, tag))
	}
	return out, nil
}

// renameView plans ALTER VIEW/TABLE v RENAME TO (a view keeps its query;
// views reading it follow) and ALTER VIEW/TABLE v RENAME COLUMN.
func (pc *planCtx) renameView(st *q.RenameStmt, e graph.TableEntry, m TableMeta, tag string) ([]Change, error) {
	name := e.Name
	m = cloneMeta(m)
	to := QualifiedName(pc.schemaOf(name), truncateIdent(st.Newname))
	var out []Change
	switch st.RenameType {
	case q.ObjectType_OBJECT_TABLE, q.ObjectType_OBJECT_VIEW:
		if to == name {
			return []Change{&NoOp{CommandTag: tag}}, nil
		}
		taken, err := pc.v.relationNames()
		if err != nil {
			return nil, err
		}
		if taken[to] {
			return nil, errorf(CodeDuplicateTable, "relation \"%s\" already exists", to)
		}
		return pc.renameViewTo(e, m, to, tag)
	case q.ObjectType_OBJECT_COLUMN:
		c, _ := m.Column(st.Subname)
		if c == nil {
			return nil, errorf(CodeUndefinedColumn, "column \"%s\" does not exist", st.Subname)
		}
		if to == st.Subname {
			return []Change{&NoOp{CommandTag: tag}}, nil
		}
		if x, _ := m.Column(to); x != nil {
			return nil, errorf(CodeDuplicateColumn, "column \"%s\" of relation \"%s\" already exists", to, name)
		}
		follow, err := pc.followRename(name, st.Subname, to, tag)
		if err != nil {
			return nil, err
		}
		c.Name = to
		out = append(out, &AlterTable{Name: name, Def: viewDef(m, e.Def.Columns[0].ID), Meta: m, CommandTag: tag})
		return append(out, follow...), nil
	}
	return nil, errorf(CodeWrongObjectType, "\"%s\" is not a table", name)
}

// renameViewTo gives view e the storage name to (a rename, or a move to
// another schema); the views that read it follow.
func (pc *planCtx) renameViewTo(e graph.TableEntry, m TableMeta, to, tag string) ([]Change, error) {
	out := []Change{&AlterTable{Name: e.Name, NewName: to, Def: viewDef(m, e.Def.Columns[0].ID), Meta: m, CommandTag: tag}}
	follow, err := pc.followRename(e.Name, "", to, tag)
	if err != nil {
		return nil, err
	}
	return append(out, follow...), nil
}

// alterView plans ALTER VIEW subcommands: only those without effect
// (OWNER TO) are accepted; column defaults and options answer 0A000.
func (pc *planCtx) alterView(st *q.AlterTableStmt) ([]Change, error) {
	name, err := pc.relName(st.Relation)
	if err != nil {
		return nil, err
	}
	_, m, ok, err := pc.v.table(name)
	if err != nil {
		return nil, err
	}
	if !ok {
		if st.MissingOk {
			return []Change{&NoOp{CommandTag: "ALTER VIEW", notes: notes{[]*pgerr.Error{notice(pgerr.SuccessfulCompletion, "relation \"%s\" does not exist, skipping", name)}}}}, nil
		}
		return nil, errorf(CodeUndefinedTable, "relation \"%s\" does not exist", name)
	}
	if m.Relkind != RelView {
		return nil, errorf(CodeWrongObjectType, "\"%s\" is not a view", name)
	}
	for _, n := range st.Cmds {
		cmd := n.GetAlterTableCmd()
		if cmd == nil || cmd.Subtype == q.AlterTableType_AT_ChangeOwner {
			continue
		}
		return nil, notSupported("ALTER VIEW %s", atName(cmd.Subtype))
	}
	return []Change{&NoOp{CommandTag: "ALTER VIEW"}}, nil
}

// viewActionError is PostgreSQL's answer to an ALTER TABLE action on a
// view ("ALTER action ADD COLUMN cannot be performed on relation").
func viewActionError(action, name string) *pgerr.Error {
	return errorf(CodeWrongObjectType, "ALTER action %s cannot be performed on relation \"%s\"", action, name).
		WithDetail("This operation is not supported for views.")
}

// commentOnView sets the comment of a view or of one of its columns.
func (pc *planCtx) commentOnView(e graph.TableEntry, m TableMeta, col, text string) ([]Change, error) {
	m = cloneMeta(m)
	if col == "" {
		m.Comment = text
	} else {
		c, _ := m.Column(col)
		if c == nil {
			return nil, errorf(CodeUndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", col, e.Name)
		}
		c.Comment = text
	}
	return []Change{&AlterTable{Name: e.Name, Def: viewDef(m, e.Def.Columns[0].ID), Meta: m, CommandTag: "COMMENT"}}, nil
}
