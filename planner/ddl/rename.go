package ddl

import (
	"slices"
	"strings"

	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
)

// rename plans ALTER TABLE/SEQUENCE/INDEX … RENAME [COLUMN|CONSTRAINT] … TO ….
func (pc *planCtx) rename(st *q.RenameStmt) ([]Change, error) {
	switch st.RenameType {
	case q.ObjectType_OBJECT_TABLE, q.ObjectType_OBJECT_COLUMN, q.ObjectType_OBJECT_TABCONSTRAINT, q.ObjectType_OBJECT_VIEW:
		return pc.renameInTable(st)
	case q.ObjectType_OBJECT_INDEX:
		return pc.renameIndex(st)
	case q.ObjectType_OBJECT_SEQUENCE:
		return pc.renameSequence(st)
	case q.ObjectType_OBJECT_TYPE:
		return pc.renameType(st)
	case q.ObjectType_OBJECT_DOMAIN, q.ObjectType_OBJECT_DOMCONSTRAINT:
		return pc.renameDomain(st) // domain.go
	case q.ObjectType_OBJECT_SCHEMA:
		return pc.alterSchemaRename(st)
	}
	return nil, notSupported("ALTER %s … RENAME", strings.ReplaceAll(strings.TrimPrefix(st.RenameType.String(), "OBJECT_"), "_", " "))
}

func (pc *planCtx) renameInTable(st *q.RenameStmt) ([]Change, error) {
	name, err := pc.relName(st.Relation)
	if err != nil {
		return nil, err
	}
	tag := "ALTER TABLE"
	if st.RenameType == q.ObjectType_OBJECT_VIEW || st.RelationType == q.ObjectType_OBJECT_VIEW {
		tag = "ALTER VIEW"
	}
	if e, m, ok, err := pc.v.table(name); err != nil {
		return nil, err
	} else if ok && m.Relkind == RelView {
		if st.RenameType == q.ObjectType_OBJECT_TABCONSTRAINT {
			return nil, errorf(CodeWrongObjectType, "\"%s\" is not a table, foreign table, or partitioned table", name)
		}
		return pc.renameView(st, e, m, tag)
	} else if ok && st.RenameType == q.ObjectType_OBJECT_VIEW {
		return nil, errorf(CodeWrongObjectType, "\"%s\" is not a view", name)
	}
	a, ok, err := pc.startAlter(name, tag)
	if err != nil {
		return nil, err
	}
	if !ok {
		if st.MissingOk {
			return []Change{&NoOp{CommandTag: tag, notes: notes{[]*pgerr.Error{notice(pgerr.SuccessfulCompletion, "relation \"%s\" does not exist, skipping", name)}}}}, nil
		}
		return nil, errorf(CodeUndefinedTable, "relation \"%s\" does not exist", name)
	}
	if a.b.meta.Relkind != RelTable && st.RenameType != q.ObjectType_OBJECT_TABLE {
		return nil, errorf(CodeWrongObjectType, "\"%s\" is not a table", name)
	}
	var follow []Change
	switch st.RenameType {
	case q.ObjectType_OBJECT_TABLE:
		err = a.renameTable(QualifiedName(pc.schemaOf(name), st.Newname))
		if err == nil && a.newName != "" {
			follow, err = pc.followRename(name, "", a.newName, tag)
		}
		if err == nil && a.newName != "" {
			var gs []Change
			gs, err = pc.followRenameInGraphs(name, "", a.newName)
			follow = append(follow, gs...)
		}
	case q.ObjectType_OBJECT_COLUMN:
		from, to := st.Subname, truncateIdent(st.Newname)
		err = a.renameColumn(from, to)
		if err == nil && from != to {
			follow, err = pc.followRename(name, from, to, tag)
		}
		if err == nil && from != to {
			var gs []Change
			gs, err = pc.followRenameInGraphs(name, from, to)
			follow = append(follow, gs...)
		}
	case q.ObjectType_OBJECT_TABCONSTRAINT:
		err = a.renameConstraint(st.Subname, st.Newname)
	}
	if err != nil {
		return nil, err
	}
	cs, err := a.changes()
	if err != nil {
		return nil, err
	}
	return append(cs, follow...), nil
}

// renameTable renames the relation; foreign keys elsewhere follow it.
func (a *alterState) renameTable(newName string) error {
	newName = truncateIdent(newName)
	if newName == a.entry.Name {
		return nil
	}
	taken, err := a.pc.v.relationNames()
	if err != nil {
		return err
	}
	if taken[newName] {
		return errorf(CodeDuplicateTable, "relation \"%s\" already exists", a.pc.shown(newName))
	}
	old := a.entry.Name
	a.newName = newName
	a.b.name = newName
	m := &a.b.meta
	for i := range m.ForeignKeys {
		if m.ForeignKeys[i].RefTable == old {
			m.ForeignKeys[i].RefTable = newName
		}
	}
	for _, c := range a.b.cols {
		if c.meta.Sequence != nil {
			c.meta.Sequence.OwnedBy = newName + "." + c.meta.Name
		}
	}
	deps, err := a.pc.v.referencing(old)
	if err != nil {
		return err
	}
	for _, d := range deps {
		o, err := a.other(d.Table)
		if err != nil {
			return err
		}
		for i := range o.b.meta.ForeignKeys {
			if o.b.meta.ForeignKeys[i].RefTable == old {
				o.b.meta.ForeignKeys[i].RefTable = newName
			}
		}
	}
	return nil
}

// renameColumn renames a column everywhere it is named: keys, indexes,
// checks, defaults do not reference columns, foreign keys on both sides,
// edge endpoints. The stored field name changes, so the table is
// rewritten (the column keeps its id).
func (a *alterState) renameColumn(from, to string) error {
	to = truncateIdent(to)
	c, err := a.column(from)
	if err != nil {
		return errorf(CodeUndefinedColumn, "column \"%s\" does not exist", from)
	}
	if from == to {
		return nil
	}
	if a.b.col(to) != nil {
		return errorf(CodeDuplicateColumn, "column \"%s\" of relation \"%s\" already exists", to, a.b.name)
	}
	c.meta.Name = to
	if c.meta.Sequence != nil {
		c.meta.Sequence.OwnedBy = a.b.name + "." + to
	}
	ren := func(cols []string) {
		for i := range cols {
			if cols[i] == from {
				cols[i] = to
			}
		}
	}
	m := &a.b.meta
	if m.PrimaryKey != nil {
		ren(m.PrimaryKey.Columns)
	}
	for i := range m.Uniques {
		ren(m.Uniques[i].Columns)
	}
	for i := range m.Indexes {
		ix := &m.Indexes[i]
		ren(ix.Columns)
		for k, e := range ix.Exprs {
			if e == "" {
				continue
			}
			if ix.Exprs[k], err = renameColumnInExpr(e, from, to); err != nil {
				return err
			}
		}
		if ix.Where != "" {
			if ix.Where, err = renameColumnInExpr(ix.Where, from, to); err != nil {
				return err
			}
		}
	}
	for i := range m.ForeignKeys {
		ren(m.ForeignKeys[i].Columns)
		if m.ForeignKeys[i].RefTable == a.entry.Name {
			ren(m.ForeignKeys[i].RefColumns)
		}
	}
	for i := range m.Checks {
		e, err := renameColumnInExpr(m.Checks[i].Expr, from, to)
		if err != nil {
			return err
		}
		m.Checks[i].Expr = e
	}
	if m.Graph.Source == from {
		m.Graph.Source = to
	}
	if m.Graph.Target == from {
		m.Graph.Target = to
	}
	deps, err := a.pc.v.referencing(a.entry.Name)
	if err != nil {
		return err
	}
	for _, d := range deps {
		if !slices.Contains(d.FK.RefColumns, from) {
			continue
		}
		o, err := a.other(d.Table)
		if err != nil {
			return err
		}
		for i := range o.b.meta.ForeignKeys {
			if o.b.meta.ForeignKeys[i].RefTable == a.entry.Name {
				ren(o.b.meta.ForeignKeys[i].RefColumns)
			}
		}
	}
	a.b.syncColumns()
	return nil
}

// renameConstraint renames a constraint (and the index backing a key).
func (a *alterState) renameConstraint(from, to string) error {
	to = truncateIdent(to)
	m := &a.b.meta
	if !slices.Contains(m.constraintNames(), from) {
		return errorf(CodeUndefinedObject, "constraint \"%s\" for table \"%s\" does not exist", from, a.b.name)
	}
	if slices.Contains(m.constraintNames(), to) {
		return errorf(CodeDuplicateObject, "constraint \"%s\" for relation \"%s\" already exists", to, a.b.name)
	}
	isKey := (m.PrimaryKey != nil && m.PrimaryKey.Name == from) || slices.ContainsFunc(m.Uniques, func(k KeyConstraint) bool { return k.Name == from })
	if isKey {
		taken, err := a.pc.v.relationNames()
		if err != nil {
			return err
		}
		if taken[to] {
			return errorf(CodeDuplicateTable, "relation \"%s\" already exists", to)
		}
	}
	renameConstraintIn(m, from, to)
	return nil
}

func renameConstraintIn(m *TableMeta, from, to string) {
	if m.PrimaryKey != nil && m.PrimaryKey.Name == from {
		m.PrimaryKey.Name = to
	}
	for i := range m.Uniques {
		if m.Uniques[i].Name == from {
			m.Uniques[i].Name = to
		}
	}
	for i := range m.Checks {
		if m.Checks[i].Name == from {
			m.Checks[i].Name = to
		}
	}
	for i := range m.ForeignKeys {
		if m.ForeignKeys[i].Name == from {
			m.ForeignKeys[i].Name = to
		}
	}
	for i := range m.Indexes {
		if m.Indexes[i].Name == from {
			m.Indexes[i].Name = to
		}
		if m.Indexes[i].Constraint == from {
			m.Indexes[i].Constraint = to
		}
	}
}

// renameIndex plans ALTER INDEX a RENAME TO b (a key's constraint follows).
func (pc *planCtx) renameIndex(st *q.RenameStmt) ([]Change, error) {
	name, err := pc.relName(st.Relation)
	if err != nil {
		return nil, err
	}
	table, ok, err := pc.indexTable(name)
	if err != nil {
		return nil, err
	}
	if !ok {
		if st.MissingOk {
			return []Change{&NoOp{CommandTag: "ALTER INDEX", notes: notes{[]*pgerr.Error{notice(pgerr.SuccessfulCompletion, "relation \"%s\" does not exist, skipping", name)}}}}, nil
		}
		return nil, errorf(CodeUndefinedTable, "relation \"%s\" does not exist", name)
	}
	a, _, err := pc.startAlter(table, "ALTER INDEX")
	if err != nil {
		return nil, err
	}
	to := QualifiedName(pc.schemaOf(name), truncateIdent(st.Newname))
	taken, err := pc.v.relationNames()
	if err != nil {
		return nil, err
	}
	if taken[to] {
		return nil, errorf(CodeDuplicateTable, "relation \"%s\" already exists", to)
	}
	renameConstraintIn(&a.b.meta, name, to)
	return a.changes()
}

// indexTable finds the table holding an index.
func (pc *planCtx) indexTable(index string) (string, bool, error) {
	es, ms, err := pc.v.all()
	if err != nil {
		return "", false, err
	}
	for i, e := range es {
		for _, ix := range ms[i].Indexes {
			if ix.Name == index {
				return e.Name, true, nil
			}
		}
	}
	return "", false, nil
}
