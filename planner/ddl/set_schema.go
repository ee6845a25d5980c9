package ddl

import (
	"strings"

	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
)

// ALTER TABLE | VIEW | SEQUENCE … SET SCHEMA moves a relation to another
// schema. A created schema's relations are stored as "schema.name"
// (schema.go), so a move is a rename of the storage name, and what
// follows a rename follows it: the views that read the relation, the
// defaults that call a sequence. A table takes its indexes, the
// constraints they back and its serial/identity sequences along, as
// PostgreSQL's AlterTableNamespace does. Other objects (types,
// functions) live in public only: SET SCHEMA public is a no-op, any
// other schema 0A000.

// setSchema plans ALTER … SET SCHEMA.
func (pc *planCtx) setSchema(st *q.AlterObjectSchemaStmt) ([]Change, error) {
	tag := alterTag(st.ObjectType)
	if st.Relation == nil {
		if err := pc.targetSchema(st.Newschema); err != nil {
			return nil, err
		}
		if st.Newschema != "public" {
			return nil, notSupported("%s … SET SCHEMA", tag)
		}
		return []Change{&NoOp{CommandTag: tag}}, nil
	}
	name, err := pc.relName(st.Relation)
	if err != nil {
		return nil, err
	}
	e, m, found, err := pc.v.table(name)
	if err != nil {
		return nil, err
	}
	found = found && (m.Relkind == RelTable || m.Relkind == RelView || m.Relkind == RelSequence)
	ref, isSeq, err := pc.v.lookupSequence(name) // owned sequences are no entries of their own
	if err != nil {
		return nil, err
	}
	if !found && !isSeq {
		if st.MissingOk {
			return []Change{&NoOp{CommandTag: tag, notes: notes{[]*pgerr.Error{notice(pgerr.SuccessfulCompletion, "relation \"%s\" does not exist, skipping", st.Relation.Relname)}}}}, nil
		}
		return nil, errorf(CodeUndefinedTable, "relation \"%s\" does not exist", st.Relation.Relname)
	}
	isView := found && m.Relkind == RelView
	switch {
	case st.ObjectType == q.ObjectType_OBJECT_VIEW && !isView:
		return nil, errorf(CodeWrongObjectType, "\"%s\" is not a view", st.Relation.Relname)
	case st.ObjectType == q.ObjectType_OBJECT_SEQUENCE && !isSeq:
		return nil, errorf(CodeWrongObjectType, "\"%s\" is not a sequence", st.Relation.Relname)
	}
	if isSeq && (ref.Column != "" || ref.OwnedBy != "") {
		table := ref.Table
		if ref.Column == "" { // OWNED BY table.column
			table = ref.OwnedBy[:strings.LastIndexByte(ref.OwnedBy, '.')]
		}
		return nil, errorf(CodeFeatureNotSupported, "cannot move an owned sequence into another schema").
			WithDetail("Sequence \"" + pc.shown(name) + "\" is linked to table \"" + pc.shown(table) + "\".")
	}
	if st.Newschema == "pg_temp" || IsTempSchema(st.Newschema) || IsTempSchema(pc.schemaOf(name)) {
		if err := pc.targetSchema(st.Newschema); err != nil && st.Newschema != "pg_temp" {
			return nil, err
		}
		return nil, errorf(CodeFeatureNotSupported, "cannot move objects into or out of temporary schemas")
	}
	if err := pc.targetSchema(st.Newschema); err != nil {
		return nil, err
	}
	from := pc.schemaOf(name)
	if from == st.Newschema {
		return []Change{&NoOp{CommandTag: tag}}, nil
	}
	move := func(n string) string {
		if from != "public" {
			n = strings.TrimPrefix(n, from+".")
		}
		return QualifiedName(st.Newschema, n)
	}
	to := move(name)
	taken, err := pc.v.relationNames()
	if err != nil {
		return nil, err
	}
	if taken[to] {
		return nil, errorf(CodeDuplicateTable, "relation \"%s\" already exists in schema \"%s\"", pc.shown(name), st.Newschema)
	}
	switch {
	case isView:
		return pc.renameViewTo(e, cloneMeta(m), to, tag)
	case isSeq:
		return pc.renameSequenceTo(name, ref, to, tag)
	}
	return pc.moveTable(name, to, move, taken, st.Newschema, tag)
}

// targetSchema checks the schema SET SCHEMA moves to (3F000 when it does
// not exist or holds no user relations).
func (pc *planCtx) targetSchema(s string) error {
	ok, err := pc.schemaExists(s)
	if err != nil {
		return err
	}
	if !ok || s == "pg_catalog" || s == "information_schema" || s == "graph" {
		return errorf(CodeInvalidSchemaName, "schema \"%s\" does not exist", s)
	}
	return nil
}

// moveTable moves table name to storage name to: its indexes, the
// constraints they back and its serial/identity sequences move along
// (move maps a name of the old schema to the new one's), and the views
// reading it, the foreign keys naming it and the defaults calling its
// sequences follow.
func (pc *planCtx) moveTable(name, to string, move func(string) string, taken map[string]bool, schema, tag string) ([]Change, error) {
	a, _, err := pc.startAlter(name, tag)
	if err != nil {
		return nil, err
	}
	m := &a.b.meta
	for _, ix := range m.Indexes {
		if taken[move(ix.Name)] {
			return nil, errorf(CodeDuplicateTable, "relation \"%s\" already exists in schema \"%s\"", pc.shown(ix.Name), schema)
		}
	}
	// indexes and the constraints backed by them move with the table
	if m.PrimaryKey != nil {
		m.PrimaryKey.Name = move(m.PrimaryKey.Name)
	}
	for i := range m.Uniques {
		m.Uniques[i].Name = move(m.Uniques[i].Name)
	}
	for i := range m.Indexes {
		m.Indexes[i].Name = move(m.Indexes[i].Name)
	}
	// so do its sequences, and every default that calls one
	calls := map[string]string{}
	for _, c := range a.b.cols {
		if s := c.meta.Sequence; s != nil {
			if taken[move(s.Name)] {
				return nil, errorf(CodeDuplicateTable, "relation \"%s\" already exists in schema \"%s\"", pc.shown(s.Name), schema)
			}
			calls[nextvalSQL(s.Name)] = nextvalSQL(move(s.Name))
			s.Name = move(s.Name)
		}
	}
	if len(calls) > 0 {
		es, ms, err := pc.v.all()
		if err != nil {
			return nil, err
		}
		for i, e := range es {
			for _, c := range ms[i].Columns {
				for old, repl := range calls {
					if !strings.Contains(c.Default, old) {
						continue
					}
					o, err := a.other(e.Name)
					if err != nil {
						return nil, err
					}
					oc := o.b.col(c.Name)
					oc.meta.Default = strings.ReplaceAll(oc.meta.Default, old, repl)
				}
			}
		}
	}
	if err := a.renameTable(to); err != nil {
		return nil, err
	}
	follow, err := pc.followRename(name, "", to, tag)
	if err != nil {
		return nil, err
	}
	gs, err := pc.followRenameInGraphs(name, "", to)
	if err != nil {
		return nil, err
	}
	cs, err := a.changes()
	if err != nil {
		return nil, err
	}
	return append(append(cs, follow...), gs...), nil
}
