package planner

import (
	"strings"

	"github.com/pggraph/pggraph/access"
	"github.com/pggraph/pggraph/exec"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/planner/ddl"
)

// Ownership checks for the objects that are not relations: types
// (enums, domains), functions and procedures, triggers and indexes named
// by COMMENT. PostgreSQL lets only an object's owner (or a member of
// the owning role, or a superuser) drop, alter, replace or comment on
// it, creating a trigger needs TRIGGER on its table, and CREATE TABLE
// (LIKE src) needs SELECT on src. Objects that do
// not exist are left to the statement, which reports them (or skips
// them under IF EXISTS). Relations are checked by ownerChecks
// (table_privileges.go).

// objectOwnerChecks refuses n when the acting role may not run it on
// the objects it names.
func (w *writer) objectOwnerChecks(pc *privCtx, n *q.Node) error {
	if pc == nil {
		return nil
	}
	switch x := n.Node.(type) {
	case *q.Node_DropStmt:
		return w.dropObjectOwnerCheck(pc, x.DropStmt)
	case *q.Node_CreateStmt:
		// CREATE TABLE (LIKE src): SELECT on src, as PostgreSQL's
		// transformTableLikeClause asks
		for _, el := range x.CreateStmt.TableElts {
			like := el.GetTableLikeClause()
			if like == nil {
				continue
			}
			if td := w.tableDefOf(like.Relation); td != nil {
				if err := pc.need(pc.role, td, access.PrivSelect); err != nil {
					return err
				}
			}
		}
		return nil
	case *q.Node_CreateTrigStmt:
		td := w.tableDefOf(x.CreateTrigStmt.Relation)
		if td == nil {
			return nil
		}
		return pc.need(pc.role, td, access.PrivTrigger)
	case *q.Node_CreateFunctionStmt:
		if !x.CreateFunctionStmt.Replace {
			return nil
		}
		owa := &q.ObjectWithArgs{Objname: x.CreateFunctionStmt.Funcname}
		for _, p := range x.CreateFunctionStmt.Parameters {
			fp := p.GetFunctionParameter()
			if fp == nil || fp.Mode == q.FunctionParameterMode_FUNC_PARAM_OUT || fp.Mode == q.FunctionParameterMode_FUNC_PARAM_TABLE {
				continue
			}
			owa.Objargs = append(owa.Objargs, &q.Node{Node: &q.Node_TypeName{TypeName: fp.ArgType}})
		}
		return w.functionOwnerCheck(pc, owa)
	case *q.Node_AlterFunctionStmt:
		return w.functionOwnerCheck(pc, x.AlterFunctionStmt.Func)
	case *q.Node_RenameStmt:
		switch x.RenameStmt.RenameType {
		case q.ObjectType_OBJECT_FUNCTION, q.ObjectType_OBJECT_PROCEDURE, q.ObjectType_OBJECT_ROUTINE:
			return w.functionOwnerCheck(pc, x.RenameStmt.Object.GetObjectWithArgs())
		case q.ObjectType_OBJECT_TYPE, q.ObjectType_OBJECT_DOMAIN:
			return w.typeOwnerCheck(pc, x.RenameStmt.Object.GetList().GetItems())
		case q.ObjectType_OBJECT_TRIGGER:
			return w.triggerTableOwnerCheck(pc, x.RenameStmt.Relation)
		}
	case *q.Node_AlterEnumStmt:
		return w.typeOwnerCheck(pc, x.AlterEnumStmt.TypeName)
	case *q.Node_AlterDomainStmt:
		return w.typeOwnerCheck(pc, x.AlterDomainStmt.TypeName)
	case *q.Node_CommentStmt:
		return w.commentOwnerCheck(pc, x.CommentStmt)
	}
	return nil
}

func (w *writer) dropObjectOwnerCheck(pc *privCtx, st *q.DropStmt) error {
	for _, o := range st.Objects {
		var err error
		switch st.RemoveType {
		case q.ObjectType_OBJECT_TYPE, q.ObjectType_OBJECT_DOMAIN:
			err = w.typeOwnerCheck(pc, o.GetTypeName().GetNames())
		case q.ObjectType_OBJECT_FUNCTION, q.ObjectType_OBJECT_PROCEDURE, q.ObjectType_OBJECT_ROUTINE:
			err = w.functionOwnerCheck(pc, o.GetObjectWithArgs())
		case q.ObjectType_OBJECT_TRIGGER:
			// DROP TRIGGER name ON table: the list is table's name, then
			// the trigger's
			parts := nameList(o.GetList().GetItems())
			if len(parts) < 2 {
				continue
			}
			rv := &q.RangeVar{Relname: parts[len(parts)-2]}
			if len(parts) > 2 {
				rv.Schemaname = parts[len(parts)-3]
			}
			err = w.triggerTableOwnerCheck(pc, rv)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// tableDefOf is the relation rv names, or nil when there is none.
func (w *writer) tableDefOf(rv *q.RangeVar) *exec.TableDef {
	if rv == nil {
		return nil
	}
	key, known := w.relKey(rv.Schemaname, rv.Relname)
	if !known {
		return nil
	}
	e, _, ok := w.relationOf(key)
	if !ok {
		return nil
	}
	td, err := ddl.ExecTable(e)
	if err != nil {
		return nil
	}
	return td
}

// triggerTableOwnerCheck: a trigger is its table's; dropping or renaming
// it takes owning the table (PostgreSQL names it a relation here).
func (w *writer) triggerTableOwnerCheck(pc *privCtx, rv *q.RangeVar) error {
	td := w.tableDefOf(rv)
	if td == nil || pc.c.IsOwner(pc.role, td.Owner) {
		return nil
	}
	return errNotOwner("relation", td.RelName())
}

// functionOwnerCheck: only a function's owner may drop, alter, rename
// or replace it.
func (w *writer) functionOwnerCheck(pc *privCtx, owa *q.ObjectWithArgs) error {
	if owa == nil {
		return nil
	}
	_, m, missing, err := ddl.LookupFunction(owa, w.ddlCatalog())
	if err != nil || missing != nil {
		return nil
	}
	if pc.c.IsOwner(pc.role, m.Owner) {
		return nil
	}
	names := nameList(owa.Objname)
	return errNotOwner("function", names[len(names)-1])
}

// typeOwnerCheck: only a type's owner may drop or alter it.
func (w *writer) typeOwnerCheck(pc *privCtx, names []*q.Node) error {
	parts := nameList(names)
	if len(parts) == 0 || len(parts) > 2 || (len(parts) == 2 && parts[0] != "public") {
		return nil
	}
	name := parts[len(parts)-1]
	e, ok := w.ddlCatalog().Table(ddl.TypeEntryPrefix + name)
	if !ok {
		return nil
	}
	m, err := ddl.DecodeMeta(e.Name, e.Def)
	if err != nil || (m.Relkind != ddl.RelEnum && m.Relkind != ddl.RelDomain) || pc.c.IsOwner(pc.role, m.Owner) {
		return nil
	}
	return errNotOwner("type", name)
}

// commentOwnerCheck covers COMMENT ON INDEX, FUNCTION, TYPE, DOMAIN and
// TRIGGER (relations and columns are ownerChecks').
func (w *writer) commentOwnerCheck(pc *privCtx, st *q.CommentStmt) error {
	switch st.Objtype {
	case q.ObjectType_OBJECT_INDEX:
		parts := nameList(st.Object.GetList().GetItems())
		if len(parts) == 0 {
			return nil
		}
		schema, name := "", parts[len(parts)-1]
		if len(parts) > 1 {
			schema = parts[len(parts)-2]
		}
		key, known := w.relKey(schema, name)
		if !known {
			return nil
		}
		for _, e := range w.ddlCatalog().Tables() {
			m, err := ddl.DecodeMeta(e.Name, e.Def)
			if err != nil || !hasIndex(m, key) {
				continue
			}
			if !pc.c.IsOwner(pc.role, m.Owner) {
				return errNotOwner("index", name)
			}
			return nil
		}
	case q.ObjectType_OBJECT_FUNCTION, q.ObjectType_OBJECT_PROCEDURE, q.ObjectType_OBJECT_ROUTINE:
		return w.functionOwnerCheck(pc, st.Object.GetObjectWithArgs())
	case q.ObjectType_OBJECT_TYPE, q.ObjectType_OBJECT_DOMAIN:
		return w.typeOwnerCheck(pc, st.Object.GetTypeName().GetNames())
	case q.ObjectType_OBJECT_TRIGGER:
		parts := nameList(st.Object.GetList().GetItems())
		if len(parts) < 2 {
			return nil
		}
		return w.triggerTableOwnerCheck(pc, &q.RangeVar{Relname: parts[len(parts)-2], Schemaname: strings.Join(parts[:len(parts)-2], ".")})
	}
	return nil
}
