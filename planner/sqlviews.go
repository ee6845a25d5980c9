package planner

import (
	"strings"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// SQL views in the session. planner/ddl plans CREATE/DROP/ALTER VIEW into
// the same catalog changes as tables (views are catalog entries of kind
// view), binding the view's query through viewBinder against the
// statement's exec catalog, so a view sees the transaction's own earlier
// DDL. Reads expand a view where it is referenced (exec); this file
// keeps writes away from views and puts what a view reads into read sets.

// viewBinder binds view queries for planner/ddl against the writer's view
// of the catalog.
type viewBinder struct{ w *writer }

// AnalyzeView implements ddl.ViewBinder.
func (b viewBinder) AnalyzeView(query *sqlparse.Node, columns []string) (*exec.ViewAnalysis, error) {
	va, err := exec.AnalyzeView(b.w.v, b.w.sql, query, columns)
	if err != nil {
		return nil, err
	}
	return va, nil
}

// RenameInView implements ddl.ViewBinder.
func (b viewBinder) RenameInView(view, query string, cols []exec.ViewColumn, r exec.ViewRename) (*exec.ViewAnalysis, error) {
	va, err := exec.RenameInView(b.w.v, view, query, cols, r)
	if err != nil {
		return nil, err
	}
	return va, nil
}

// sqlView returns the SQL view named by a statement's relation (nil when
// it names something else).
func sqlView(cat exec.Catalog, schema, name string) *exec.TableDef {
	if schema == "pg_catalog" || schema == "information_schema" || schema == "graph" {
		return nil
	}
	if schema != "" && schema != "public" {
		// a created schema's relation is stored as "schema.name"
		if td := cat.Table(schema, schema+"."+name); td.IsSQLView() {
			return td
		}
		return nil
	}
	if td := cat.Table("public", name); td.IsSQLView() {
		return td
	}
	return nil
}

// refuseViewWrite answers INSERT, UPDATE, DELETE and MERGE on a view:
// views are not updatable here (PostgreSQL's automatically updatable
// views and INSTEAD OF triggers are not implemented), so such a
// statement fails with 0A000 instead of changing anything; MERGE on a
// view is 42809 as in PostgreSQL 15.
func refuseViewWrite(v *view, p *plan) error {
	if p.node == nil {
		return nil
	}
	var rv *sqlparse.RangeVar
	var verb string
	switch {
	case p.node.GetInsertStmt() != nil:
		rv, verb = p.node.GetInsertStmt().Relation, "insert into"
	case p.node.GetUpdateStmt() != nil:
		rv, verb = p.node.GetUpdateStmt().Relation, "update"
	case p.node.GetDeleteStmt() != nil:
		rv, verb = p.node.GetDeleteStmt().Relation, "delete from"
	case p.node.GetTruncateStmt() != nil:
		for _, r := range p.node.GetTruncateStmt().Relations {
			if rv := r.GetRangeVar(); rv != nil && sqlView(v, rv.Schemaname, rv.Relname) != nil {
				return wire.Errorf(pgerr.WrongObjectType, "\"%s\" is not a table", rv.Relname)
			}
		}
		return nil
	case p.node.GetMergeStmt() != nil:
		rv = p.node.GetMergeStmt().Relation
		if rv != nil && sqlView(v, rv.Schemaname, rv.Relname) != nil {
			return wire.Errorf(pgerr.WrongObjectType, "cannot execute MERGE on relation \"%s\"", rv.Relname).WithDetail("This operation is not supported for views.")
		}
		return nil
	}
	if rv == nil || sqlView(v, rv.Schemaname, rv.Relname) == nil {
		return nil
	}
	return viewWriteError(verb, rv.Relname)
}

func viewWriteError(verb, name string) *wire.Error {
	return wire.Errorf(wire.CodeFeatureNotSupported, "cannot %s view \"%s\"", verb, name).
		WithDetail("Views are read-only in pggraph unless an INSTEAD OF trigger handles the statement: automatically updatable views are not supported.").
		WithHint("Write to the view's base tables instead.")
}

// copyViewError is PostgreSQL's answer to COPY view TO/FROM (42809); nil
// when the COPY does not name a view.
func copyViewError(cat exec.Catalog, st *wire.Statement) error {
	if (st.Kind != wire.KindCopyTo && st.Kind != wire.KindCopyFrom) || st.Copy.Table == "" {
		return nil
	}
	schema, name := "", st.Copy.Table
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		schema, name = name[:i], name[i+1:]
	}
	if sqlView(cat, schema, name) == nil {
		return nil
	}
	if st.Kind == wire.KindCopyTo {
		return wire.Errorf(pgerr.WrongObjectType, "cannot copy from view \"%s\"", name).WithHint("Try the COPY (SELECT ...) TO variant.")
	}
	return wire.Errorf(pgerr.WrongObjectType, "cannot copy to view \"%s\"", name).WithHint("Views are read-only in pggraph.")
}

// withViewReads adds to a statement's read set what the views among
// names read, transitively: a transaction that read through a view
// conflicts with a change of the tables under it (and of the view).
func withViewReads(cat exec.Catalog, names []string) []string {
	out := append([]string(nil), names...)
	seen := map[string]bool{}
	for _, n := range names {
		seen[n] = true
	}
	// an unqualified name may resolve to a created schema's relation
	// (stored as "schema.name", ddl/schema.go)
	if sc, ok := cat.(exec.SchemaCatalog); ok {
		for _, d := range sc.SchemaDefs() {
			for _, n := range names {
				if k := d.Name + "." + n; !strings.Contains(n, ".") && !seen[k] {
					seen[k] = true
					out = append(out, k)
				}
			}
		}
	}
	for i := 0; i < len(out); i++ {
		td := sqlView(cat, "", out[i])
		if td == nil {
			continue
		}
		for _, d := range td.View.Depends {
			if !seen[d.Name] {
				seen[d.Name] = true
				out = append(out, d.Name)
			}
		}
	}
	return out
}
