package ddl

import (
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
)

// createIndex plans CREATE [UNIQUE] INDEX on plain columns. The index is
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
	if st.WhereClause != nil && st.Unique {
		return nil, notSupported("partial unique indexes")
	}
	var cols []string
	for _, p := range st.IndexParams {
		el := p.GetIndexElem()
		if el == nil {
			return nil, errorf(CodeSyntaxError, "invalid index column")
		}
		if el.Expr != nil || el.Name == "" {
			return nil, notSupported("indexes on expressions")
		}
		c := a.b.col(el.Name)
		if c == nil {
			return nil, errorf(CodeUndefinedColumn, "column \"%s\" does not exist", el.Name)
		}
		if st.Unique && (c.meta.Type.IsVector() || c.meta.Type.OID == 114) {
			return nil, errorf(CodeUndefinedObject, "data type %s has no default operator class for access method \"btree\"", c.meta.Type)
		}
		cols = append(cols, el.Name)
	}
	if len(cols) == 0 {
		return nil, errorf(CodeSyntaxError, "an index needs at least one column")
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
		name = chooseName(taken, table, columnsLabel(cols), "idx")
	} else if taken[name] {
		if st.IfNotExists {
			return []Change{&NoOp{CommandTag: "CREATE INDEX", notes: notes{[]*pgerr.Error{notice(CodeDuplicateTable, "relation \"%s\" already exists, skipping", name)}}}}, nil
		}
		return nil, errorf(CodeDuplicateTable, "relation \"%s\" already exists", name)
	}
	ix := Index{Name: name, Columns: cols, Unique: st.Unique, NullsNotDistinct: st.NullsNotDistinct}
	if method != "btree" {
		ix.Method = method
	}
	if st.WhereClause != nil {
		if ix.Where, err = deparseExpr(st.WhereClause); err != nil {
			return nil, err
		}
	}
	a.b.meta.Indexes = append(a.b.meta.Indexes, ix)
	if st.Unique {
		a.addValidation(Validation{Kind: ValidateUnique, Constraint: name, Columns: cols})
	}
	return a.changes()
}
