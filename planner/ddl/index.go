package ddl

import (
	"slices"

	"google.golang.org/protobuf/reflect/protoreflect"

	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
)

// metaVersionIndexExprs is the metadata version of a table with an
// expression index or a partial unique index: a build that predates them
// would read the key's empty column names, or enforce a partial unique
// index on every row, so it refuses the table instead (Index.Exprs,
// Index.Where).
const metaVersionIndexExprs = 7

// createIndex plans CREATE [UNIQUE] INDEX on columns and expressions,
// optionally partial (WHERE). The index is
// catalog metadata the executor's key-lookup path uses; a unique index
// is a uniqueness rule like a UNIQUE constraint (validated on the
// existing rows, enforced on writes, usable as a foreign key target).
func (pc *planCtx) createIndex(st *q.IndexStmt) ([]Change, error) {
	table, err := pc.relName(st.Relation)
	if err != nil {
		return nil, err
	}
	if _, m, ok, err := pc.v.table(table); err == nil && ok && m.Relkind == RelView {
		return nil, errorf(CodeWrongObjectType, "cannot create index on relation \"%s\"", table).WithDetail("This operation is not supported for views.")
	}
	a, ok, err := pc.startAlter(table, "CREATE INDEX")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errorf(CodeUndefinedTable, "relation \"%s\" does not exist", table)
	}
	if a.b.meta.Relkind != RelTable {
		return nil, errorf(CodeWrongObjectType, "cannot create index on relation \"%s\"", table).WithDetail("This operation is not supported for sequences.")
	}
	method := st.AccessMethod
	if method == "" {
		method = "btree"
	}
	if st.Unique && method != "btree" {
		return nil, errorf(CodeFeatureNotSupported, "access method \"%s\" does not support unique indexes", method)
	}
	var cols, exprs, labels []string
	hasCol := func(n string) bool { return a.b.col(n) != nil }
	for _, p := range st.IndexParams {
		el := p.GetIndexElem()
		if el == nil {
			return nil, errorf(CodeSyntaxError, "invalid index column")
		}
		if el.Expr != nil {
			if method != "btree" && method != "hash" {
				return nil, notSupported("expression indexes using access method \"%s\"", method)
			}
			sql, err := indexExpr(el.Expr, "index expression", hasCol)
			if err != nil {
				return nil, err
			}
			for len(exprs) < len(cols) {
				exprs = append(exprs, "")
			}
			cols, exprs = append(cols, ""), append(exprs, sql)
			labels = append(labels, exprLabel(el.Expr))
			continue
		}
		c := a.b.col(el.Name)
		if c == nil {
			return nil, errorf(CodeUndefinedColumn, "column \"%s\" does not exist", el.Name)
		}
		if st.Unique && (c.meta.Type.IsVector() || c.meta.Type.OID == 114) {
			return nil, errorf(CodeUndefinedObject, "data type %s has no default operator class for access method \"btree\"", c.meta.Type)
		}
		cols = append(cols, el.Name)
		labels = append(labels, el.Name)
	}
	if len(cols) == 0 {
		return nil, errorf(CodeSyntaxError, "an index needs at least one column")
	}
	if exprs != nil {
		for len(exprs) < len(cols) {
			exprs = append(exprs, "")
		}
	}
	if st.WhereClause != nil && method != "btree" && method != "hash" {
		return nil, notSupported("partial indexes using access method \"%s\"", method)
	}
	// Uniqueness over expression or partial keys is not enforced by the
	// write path yet (docs/sql.md): refused rather than accepted unchecked.
	if st.Unique && exprs != nil {
		return nil, notSupported("unique expression indexes")
	}
	if st.Unique && st.WhereClause != nil {
		return nil, notSupported("partial unique indexes")
	}
	if (exprs != nil || st.WhereClause != nil) && st.NullsNotDistinct {
		return nil, notSupported("NULLS NOT DISTINCT on expression or partial indexes")
	}
	taken, err := pc.v.relationNames()
	if err != nil {
		return nil, err
	}
	name := st.Idxname
	if name != "" {
		// an index lives in its table's schema
		name = QualifiedName(pc.schemaOf(table), name)
	}
	if name == "" {
		name = chooseName(taken, table, columnsLabel(labels), "idx")
	} else if taken[name] {
		if st.IfNotExists {
			return []Change{&NoOp{CommandTag: "CREATE INDEX", notes: notes{[]*pgerr.Error{notice(CodeDuplicateTable, "relation \"%s\" already exists, skipping", name)}}}}, nil
		}
		return nil, errorf(CodeDuplicateTable, "relation \"%s\" already exists", name)
	}
	ix := Index{Name: name, Columns: cols, Exprs: exprs, Unique: st.Unique, NullsNotDistinct: st.NullsNotDistinct}
	if method != "btree" {
		ix.Method = method
	}
	if st.WhereClause != nil {
		if ix.Where, err = indexExpr(st.WhereClause, "index predicate", hasCol); err != nil {
			return nil, err
		}
	}
	a.b.meta.Indexes = append(a.b.meta.Indexes, ix)
	if st.Unique {
		a.addValidation(Validation{Kind: ValidateUnique, Constraint: name, Columns: ix.KeyColumns()})
	}
	return a.changes()
}

// volatileFuncs are the built-in functions that are not IMMUTABLE, which
// PostgreSQL refuses in index expressions and predicates (their value
// could change while the index entry stays).
var volatileFuncs = map[string]bool{
	"random": true, "now": true, "clock_timestamp": true, "statement_timestamp": true,
	"transaction_timestamp": true, "timeofday": true, "nextval": true, "currval": true,
	"lastval": true, "setval": true, "gen_random_uuid": true, "uuid_generate_v4": true,
	"txid_current": true, "pg_backend_pid": true, "current_setting": true, "to_char": true,
	"age": true,
}

// aggregateFuncs are the aggregates an index expression cannot hold.
var aggregateFuncs = map[string]bool{
	"sum": true, "count": true, "avg": true, "min": true, "max": true, "array_agg": true,
	"string_agg": true, "bool_and": true, "bool_or": true, "every": true, "json_agg": true, "jsonb_agg": true,
}

// indexExpr validates an index expression or predicate (what says which,
// as PostgreSQL's messages do) and returns its stored SQL text: columns
// must exist, no subquery, aggregate, window or set-returning call, only
// immutable functions.
func indexExpr(n *q.Node, what string, hasCol func(string) bool) (string, error) {
	if hasNode(n, isSubquery) {
		return "", errorf(CodeFeatureNotSupported, "cannot use subquery in %s", what)
	}
	var bad *pgerr.Error
	walk(n.ProtoReflect(), func(m protoreflect.Message) bool {
		if bad != nil {
			return false
		}
		switch x := m.Interface().(type) {
		case *q.FuncCall:
			name := ""
			if len(x.Funcname) > 0 {
				name = x.Funcname[len(x.Funcname)-1].GetString_().GetSval()
			}
			switch {
			case x.Over != nil:
				bad = errorf(CodeWindowingError, "window functions are not allowed in %ss", what)
			case aggregateFuncs[name] || x.AggStar:
				bad = errorf(CodeGroupingError, "aggregate functions are not allowed in %ss", what)
			case volatileFuncs[name]:
				bad = errorf(CodeInvalidObjectDefinition, "functions in %s must be marked IMMUTABLE", what)
			}
		case *q.SQLValueFunction:
			bad = errorf(CodeInvalidObjectDefinition, "functions in %s must be marked IMMUTABLE", what)
		}
		return true
	})
	if bad != nil {
		return "", bad
	}
	for _, r := range columnRefs(n) {
		if !hasCol(r) {
			return "", errorf(CodeUndefinedColumn, "column \"%s\" does not exist", r)
		}
	}
	return deparseExpr(n)
}

// exprLabel is the name PostgreSQL gives an index expression's column
// (FigureIndexColname): a function call's name, else "expr"; index names
// are built from it (t_lower_idx).
func exprLabel(n *q.Node) string {
	if fc := n.GetFuncCall(); fc != nil && len(fc.Funcname) > 0 {
		return fc.Funcname[len(fc.Funcname)-1].GetString_().GetSval()
	}
	if tc := n.GetTypeCast(); tc != nil {
		return exprLabel(tc.Arg)
	}
	return "expr"
}

// labels name the index's keys as PostgreSQL's generated index names do:
// a column's name, an expression's label (exprLabel).
func (ix Index) labels() []string {
	out := make([]string, len(ix.Columns))
	for i, c := range ix.Columns {
		out[i] = c
		if c == "" && i < len(ix.Exprs) {
			out[i] = "expr"
			if n, err := parseExpr(ix.Exprs[i]); err == nil {
				out[i] = exprLabel(n)
			}
		}
	}
	return out
}

// HasExprs reports an index with an expression among its keys.
func (ix Index) HasExprs() bool { return len(ix.Exprs) > 0 }

// Computed reports an index whose keys are not plain column values of
// every row: an expression index or a partial index.
func (ix Index) Computed() bool { return ix.HasExprs() || ix.Where != "" }

// KeyColumns are the columns the index's keys and predicate read, each
// once, in order of first use (a plain index: its columns).
func (ix Index) KeyColumns() []string {
	if !ix.Computed() {
		return ix.Columns
	}
	var out []string
	add := func(c string) {
		if c != "" && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	for i, c := range ix.Columns {
		if i < len(ix.Exprs) && ix.Exprs[i] != "" {
			if n, err := parseExpr(ix.Exprs[i]); err == nil {
				for _, r := range columnRefs(n) {
					add(r)
				}
			}
			continue
		}
		add(c)
	}
	if ix.Where != "" {
		if n, err := parseExpr(ix.Where); err == nil {
			for _, r := range columnRefs(n) {
				add(r)
			}
		}
	}
	return out
}
