package exec

import (
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// SQL views (CREATE VIEW): a view is a TableDef whose View is set. It
// stores no rows; the binder expands a reference to it into its query,
// bound as a subquery in a scope of its own (no outer columns, no outer
// CTEs), so filters, joins and aggregates over a view run on the same
// operators as over any subquery. The query text is the normalized form
// AnalyzeView produced when the view was created (view_analyze.go):
// relations schema-qualified, column references qualified, * expanded,
// NATURAL joins spelled as USING, every output named, so it binds to the
// same columns whatever was added to the catalog later.

// ViewDef is the definition of a SQL view.
type ViewDef struct {
	// Query is the stored SELECT (normalized SQL text).
	Query string
	// Depends lists the user relations the query reads and, for each,
	// the columns it references (pg_depend, DROP … CASCADE, read sets).
	Depends []ViewDependency
}

// ViewDependency is one relation a view reads.
type ViewDependency struct {
	Schema  string
	Name    string
	Columns []string // referenced columns; none when only the relation is (count(*))
}

// IsSQLView reports whether t is a SQL view (not a generated graph.* view).
func (t *TableDef) IsSQLView() bool { return t != nil && t.View != nil }

// ViewSource is the Source of a SQL view: the binder never scans it
// (references expand into the query), so a scan is an internal error.
type ViewSource struct{ Name string }

// Scan implements TableSource.
func (s ViewSource) Scan(context.Context, ScanRequest, func(arrow.RecordBatch, []uint64) error) error {
	return errf(CodeInternalError, "view \"%s\" cannot be scanned directly", s.Name)
}

// RowCount implements TableSource.
func (ViewSource) RowCount() int64 { return 0 }

// parseViewQuery parses a stored view query (cached by text; read-only).
func parseViewQuery(td *TableDef) (*q.SelectStmt, error) {
	tree, err := q.Parse(td.View.Query)
	if err != nil || len(tree.Stmts) != 1 || tree.Stmts[0].Stmt.GetSelectStmt() == nil {
		return nil, errf(CodeInternalError, "view \"%s\" has an unreadable definition", td.Name)
	}
	return tree.Stmts[0].Stmt.GetSelectStmt(), nil
}

// bindView expands a reference to a SQL view: its query is bound on its
// own and its outputs take the view's column names and types (fixed
// when the view was created).
func (b *binder) bindView(rv *q.RangeVar, td *TableDef, alias string, sc *scope) (plan, []scopeCol, error) {
	if slices.Contains(b.viewStack, td.OID) {
		return nil, nil, errf(CodeInvalidObjectDefinition, "infinite recursion detected in rules for relation \"%s\"", td.Name)
	}
	sel, err := parseViewQuery(td)
	if err != nil {
		return nil, nil, err
	}
	if err := b.addAlias(sc, alias); err != nil {
		return nil, nil, err
	}
	// The view's query sees the catalog only: the referencing query's
	// CTEs and columns are out of scope, its text is not the statement's
	// (no error positions), and its references are not the statement's
	// dependencies (a view over a view depends on that view only).
	ctes, sql, keep, trace, stack := b.ctes, b.sql, b.keepUnknown, b.trace, b.viewStack
	b.ctes, b.sql, b.keepUnknown, b.trace = nil, "", false, nil
	b.viewStack = append(slices.Clone(stack), td.OID)
	bd, err := b.bindSelect(sel, nil)
	b.ctes, b.sql, b.keepUnknown, b.trace, b.viewStack = ctes, sql, keep, trace, stack
	if err != nil {
		return nil, nil, err
	}
	if len(bd.cols) != len(td.Columns) {
		return nil, nil, errf(CodeInternalError, "view \"%s\" has %d columns but its query returns %d", td.Name, len(td.Columns), len(bd.cols))
	}
	exprs := make([]Expr, len(td.Columns))
	ci := make([]colInfo, len(td.Columns))
	cols := make([]scopeCol, len(td.Columns))
	for i, c := range td.Columns {
		var e Expr = &colRef{idx: i, t: bd.cols[i].t, name: c.Name}
		if got := bd.cols[i].t; got.OID != c.Type.OID || (c.Type.Mod >= 0 && got.Mod != c.Type.Mod) {
			// the columns' types are the view's; a dependency keeps them
			// from changing, so this cast is only a safety net
			if e, err = b.coerce(e, c.Type, castExplicit, ""); err != nil {
				return nil, nil, err
			}
		}
		exprs[i] = e
		ci[i] = colInfo{name: c.Name, t: c.Type, tableOID: td.OID, attnum: int16(i + 1)}
		cols[i] = scopeCol{name: c.Name, t: c.Type, idx: i, tableOID: td.OID, attnum: int16(i + 1), table_: td, from: rv}
	}
	cols, err = applyAlias(cols, rv.Alias, alias)
	if err != nil {
		return nil, nil, err
	}
	return &projectNode{input: bd.plan, exprs: exprs, cols: ci}, cols, nil
}
