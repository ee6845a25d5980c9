package exec

import (
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
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

// maxViewNesting bounds how many views deep one reference may expand:
// each level binds the next view's query on the Go stack, and a chain of
// views created one by one is not bounded by any one statement's text.
const maxViewNesting = 1000

// bindView expands a reference to a SQL view: its query is bound on its
// own and its outputs take the view's column names and types (fixed
// when the view was created).
func (b *binder) bindView(rv *q.RangeVar, td *TableDef, alias string, sc *scope) (plan, []scopeCol, error) {
	if len(b.viewStack) >= maxViewNesting {
		return nil, nil, &Error{Code: CodeStackDepthExceeded, Message: "stack depth limit exceeded", Hint: q.StackDepthHint}
	}
	if slices.Contains(b.viewStack, td.OID) {
		e := errf(CodeInvalidObjectDefinition, "infinite recursion detected in rules for relation \"%s\"", td.Name)
		e.Placement = pgerr.Unplaced
		return nil, nil, e
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
	// the view's relations are read with its owner's privileges
	inView, viewOwner := b.inView, b.viewOwner
	b.inView, b.viewOwner = true, td.Owner
	bd, err := b.bindSelect(sel, nil)
	b.ctes, b.sql, b.keepUnknown, b.trace, b.viewStack = ctes, sql, keep, trace, stack
	b.inView, b.viewOwner = inView, viewOwner
	if err != nil {
		return nil, nil, err
	}
	if len(bd.cols) != len(td.Columns) {
		return nil, nil, errf(CodeInternalError, "view \"%s\" has %d columns but its query returns %d", td.Name, len(td.Columns), len(bd.cols))
	}
	exprs := make([]Expr, len(td.Columns))
	ci := make([]colInfo, len(td.Columns))
	cols := make([]scopeCol, len(td.Columns))
	vu := &viewUse{used: make([]bool, len(td.Columns)), read: make([]bool, len(td.Columns))}
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
		cols[i] = scopeCol{name: c.Name, t: c.Type, idx: i, tableOID: td.OID, attnum: int16(i + 1), table_: td, from: rv, used: &vu.used[i], read: &vu.read[i]}
	}
	cols, err = applyAlias(cols, rv.Alias, alias)
	if err != nil {
		return nil, nil, err
	}
	vu.pn = &projectNode{input: bd.plan, exprs: exprs, cols: ci, view: true}
	b.views = append(b.views, vu)
	return vu.pn, cols, nil
}

// pushIntoView moves a filter on a view's columns into the view's query
// when that query is a plain filtered scan (under projections of its
// columns): the condition then reaches the scan, so key lookups, filter
// hints and late materialization work through a view as on the table.
// It runs after the view's own WHERE (AND evaluates the view's condition
// first), so it is evaluated for no row the view excludes. Conditions
// with subqueries, and views with aggregates, DISTINCT, LIMIT, windows,
// set operations or computed columns under the filter stay above.
func (b *binder) pushIntoView(pn *projectNode, pred Expr) (plan, bool) {
	if sideOf(pred, len(pn.cols)) < 0 {
		return nil, false // a subquery: its correlation is by position
	}
	var mapped Expr = pred
	var in plan = pn
	var stack []*projectNode // the projections the filter moves below
	for {
		p, ok := in.(*projectNode)
		if !ok {
			break
		}
		var err error
		ok = true
		mapped, err = rewriteCols(mapped, func(c *colRef) Expr {
			x, isCol := p.exprs[c.idx].(*colRef)
			if !isCol || x.t.OID != c.t.OID || x.t.Mod != c.t.Mod {
				ok = false
				return c
			}
			return &colRef{idx: x.idx, t: x.t, name: x.name}
		})
		if err != nil || !ok {
			return nil, false
		}
		stack = append(stack, p)
		in = p.input
	}
	var below plan
	switch x := in.(type) {
	case *scanNode:
		below = b.pushFilter(x, mapped)
	case *filterNode:
		s, ok := x.input.(*scanNode)
		if !ok {
			return nil, false
		}
		b.deriveScanHints(s, mapped)
		below = &filterNode{input: s, pred: &boolExpr{op: "AND", args: []Expr{x.pred, mapped}}}
	default:
		return nil, false
	}
	// the projections stay, over the filtered input
	for i := len(stack) - 1; i >= 0; i-- {
		stack[i].input = below
		below = stack[i]
	}
	return below, true
}

// viewUse is one expanded view reference: which of its columns the
// referencing query reads.
type viewUse struct {
	used []bool
	read []bool // the columns the statement reads (privileges; scope.go)
	pn   *projectNode
}

// pruneViews narrows the scans under expanded views to the columns the
// statement reads through them, once the whole statement is bound (a
// view's query marks every column it selects; the statement may read
// few of them). Only views that are plain filtered scans (under
// projections of columns) are narrowed: others read what their query
// reads.
func (b *binder) pruneViews() {
	for _, vu := range b.views {
		vu.prune()
	}
}

func (vu *viewUse) prune() {
	need := vu.used
	ok := true
	mark := func(e Expr, into []bool) {
		walkExpr(e, func(x Expr) {
			switch c := x.(type) {
			case *colRef:
				if c.idx < len(into) {
					into[c.idx] = true
				} else {
					ok = false
				}
			case *subqueryExpr, *outerRef:
				ok = false // what it reads of this level is not visible here
			}
		})
	}
	var in plan = vu.pn
	for {
		p, isProject := in.(*projectNode)
		if !isProject {
			break
		}
		next := make([]bool, len(p.input.columns()))
		for i, e := range p.exprs {
			if i < len(need) && need[i] {
				mark(e, next)
			}
		}
		need, in = next, p.input
	}
	if f, isFilter := in.(*filterNode); isFilter {
		mark(f.pred, need)
		in = f.input
	}
	s, isScan := in.(*scanNode)
	if !ok || !isScan || len(s.used) != len(need) {
		return
	}
	for j := range s.used {
		s.used[j] = s.used[j] && need[j]
	}
}
