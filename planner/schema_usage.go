package planner

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/pggraph/pggraph/access"
	"github.com/pggraph/pggraph/exec"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// Schema USAGE on the names a client's writing, DDL or utility
// statement looks up. PostgreSQL leaves a schema the role may not use
// out of its effective search path: an unqualified name finds nothing
// in public (42P01 "relation … does not exist", or the DROP's own
// "table … does not exist"; IF EXISTS forms skip with a notice), a name
// qualified with public fails with 42501 "permission denied for schema
// public", and creating an unqualified object has no schema to go to
// (3F000). Creating public.x needs CREATE only. Queries bound by exec
// apply the same rule in its binder (exec/schema_usage.go); this walk
// covers what the planner resolves itself, before it resolves anything,
// as PostgreSQL's parse analysis fails first. Error cursors are given
// where PostgreSQL gives them: in statements it parse-analyzes (DML,
// queries, CREATE VIEW/TABLE AS) and for CREATE TABLE's own name.

// usageResult is an IF EXISTS statement whose every name is hidden: it
// changes nothing and says so with notices.
type usageResult struct {
	tag     string
	notices []*wire.Error
}

// checkSchemaUsage refuses a client statement that names objects of
// public when the acting role lacks USAGE on it; a non-nil result is
// the answer of an IF EXISTS statement that found nothing.
func (s *session) checkSchemaUsage(ctx context.Context, p *plan) (wire.Result, error) {
	if p.node == nil || s.access == nil {
		return nil, nil
	}
	pc, err := s.privileges(ctx)
	if err != nil || pc == nil {
		return nil, err
	}
	if err := s.createdSchemaUsage(ctx, pc, p.node); err != nil {
		return nil, err
	}
	if pc.schemaPrivilege(s.branch(), pc.role, access.PrivUsage) {
		return nil, nil
	}
	r, err := usageRefusal(p.node, p.sql)
	if err != nil || r == nil {
		return nil, err
	}
	for _, n := range r.notices {
		if s.info.Notice != nil {
			s.info.Notice(n)
		}
	}
	return &tagResult{tag: r.tag}, nil
}

// analyzed reports statements PostgreSQL parse-analyzes, whose lookup
// errors carry a cursor.
func analyzed(n *q.Node) bool {
	switch n.Node.(type) {
	case *q.Node_SelectStmt, *q.Node_InsertStmt, *q.Node_UpdateStmt, *q.Node_DeleteStmt, *q.Node_MergeStmt,
		*q.Node_ViewStmt, *q.Node_CreateTableAsStmt, *q.Node_ExplainStmt:
		return true
	}
	return false
}

// usageRefusal is the outcome of statement n (text sql) for a role
// without USAGE on public: an error, an IF EXISTS no-op, or nothing
// (the statement names nothing in public).
func usageRefusal(n *q.Node, sql string) (*usageResult, error) {
	cursor := analyzed(n)
	at := func(err *wire.Error, loc int32) error {
		if cursor {
			return positioned(err, sql, loc)
		}
		return err
	}
	noSchema := wire.Errorf(pgerr.InvalidSchemaName, "no schema has been selected to create in")
	// creation targets: checked before the rest (CREATE TABLE, SEQUENCE,
	// TYPE) or after the query (CREATE VIEW, CREATE TABLE AS, SELECT INTO)
	var target *q.RangeVar
	targetFirst := false
	switch x := n.Node.(type) {
	case *q.Node_DropStmt:
		return dropHidden(x.DropStmt)
	case *q.Node_CreateStmt:
		target, targetFirst = x.CreateStmt.Relation, true
		if target != nil && target.Schemaname == "" {
			return nil, positioned(noSchema, sql, target.Location)
		}
	case *q.Node_CreateSeqStmt:
		target, targetFirst = x.CreateSeqStmt.Sequence, true
	case *q.Node_CreateEnumStmt:
		if len(x.CreateEnumStmt.TypeName) == 1 {
			return nil, noSchema
		}
		return nil, nil
	case *q.Node_ViewStmt:
		target = x.ViewStmt.View
	case *q.Node_CreateTableAsStmt:
		target = x.CreateTableAsStmt.GetInto().GetRel()
	case *q.Node_SelectStmt:
		target = x.SelectStmt.GetIntoClause().GetRel()
	case *q.Node_CommentStmt:
		return nil, commentHidden(x.CommentStmt)
	case *q.Node_GrantStmt:
		if x.GrantStmt.Targtype == q.GrantTargetType_ACL_TARGET_ALL_IN_SCHEMA {
			for _, o := range x.GrantStmt.Objects {
				if o.GetString_().GetSval() == "public" {
					return nil, errSchemaUsage()
				}
			}
			return nil, nil
		}
	}
	if targetFirst && target != nil && target.Schemaname == "" {
		return nil, noSchema
	}
	missingOK := false
	switch x := n.Node.(type) {
	case *q.Node_AlterTableStmt:
		missingOK = x.AlterTableStmt.MissingOk
	case *q.Node_RenameStmt:
		missingOK = x.RenameStmt.MissingOk
	case *q.Node_AlterSeqStmt:
		missingOK = x.AlterSeqStmt.MissingOk
	}
	ctes := map[string]bool{}
	// CREATE TABLE s.x (… REFERENCES y): an unqualified referenced table
	// is looked up in the new table's schema
	inTarget := map[*q.RangeVar]bool{}
	walkMessages(n.ProtoReflect(), func(m protoreflect.ProtoMessage) {
		switch x := m.(type) {
		case *q.CommonTableExpr:
			ctes[x.Ctename] = true
		case *q.Constraint:
			if targetFirst && target != nil && target.Schemaname == "public" && x.Pktable != nil {
				inTarget[x.Pktable] = true
			}
		}
	})
	var refusal error
	var skipped *usageResult
	walkMessages(n.ProtoReflect(), func(m protoreflect.ProtoMessage) {
		if refusal != nil || skipped != nil {
			return
		}
		switch x := m.(type) {
		case *q.RangeVar:
			if x == target {
				return
			}
			schema := x.Schemaname
			if inTarget[x] && schema == "" {
				schema = "public"
			}
			switch schema {
			case "public":
				refusal = at(errSchemaUsage(), x.Location)
			case "":
				if ctes[x.Relname] || exec.IsCatalogRelation(x.Relname) {
					return
				}
				missing := wire.Errorf(pgerr.UndefinedTable, "relation \"%s\" does not exist", x.Relname)
				if missingOK {
					skipped = &usageResult{tag: statementTag(n), notices: []*wire.Error{skipNotice(missing)}}
					return
				}
				refusal = at(missing, x.Location)
			}
		case *q.TypeName:
			if names := nameList(x.Names); len(names) == 2 && names[0] == "public" {
				refusal = at(errSchemaUsage(), x.Location)
			}
		case *q.FuncCall:
			if names := nameList(x.Funcname); len(names) == 2 && names[0] == "public" {
				refusal = at(errSchemaUsage(), x.Location)
			}
		}
	})
	if refusal != nil || skipped != nil {
		return skipped, refusal
	}
	if target != nil && target.Schemaname == "" {
		return nil, noSchema
	}
	return nil, nil
}

func errSchemaUsage() *wire.Error {
	return wire.Errorf(wire.CodeInsufficientPrivilege, "permission denied for schema public")
}

// skipNotice turns a missing-object error into IF EXISTS's notice.
func skipNotice(e *wire.Error) *wire.Error {
	return &wire.Error{Severity: "NOTICE", Code: pgerr.SuccessfulCompletion, Message: e.Message + ", skipping"}
}

// nameList reads a list of String nodes (a qualified name).
func nameList(ns []*q.Node) []string {
	out := make([]string, 0, len(ns))
	for _, n := range ns {
		out = append(out, n.GetString_().GetSval())
	}
	return out
}

// dropHidden is DROP TABLE|VIEW|SEQUENCE|INDEX|TYPE for a role without
// USAGE on public: every unqualified name is missing (IF EXISTS skips
// it with a notice), a public-qualified one is refused. Other object
// kinds are left to the statement.
func dropHidden(st *q.DropStmt) (*usageResult, error) {
	kind, code := "", pgerr.UndefinedTable
	tag := "DROP "
	switch st.RemoveType {
	case q.ObjectType_OBJECT_TABLE:
		kind = "table"
	case q.ObjectType_OBJECT_VIEW:
		kind = "view"
	case q.ObjectType_OBJECT_SEQUENCE:
		kind = "sequence"
	case q.ObjectType_OBJECT_INDEX:
		kind, code = "index", wire.CodeUndefinedObject
	case q.ObjectType_OBJECT_TYPE:
		kind, code = "type", wire.CodeUndefinedObject
	default:
		return nil, nil
	}
	tag += strings.ToUpper(kind)
	r := &usageResult{tag: tag}
	for _, o := range st.Objects {
		var names []string
		if tn := o.GetTypeName(); tn != nil {
			names = nameList(tn.Names)
		} else {
			names = nameList(o.GetList().GetItems())
		}
		switch {
		case len(names) == 2 && names[0] == "public":
			return nil, errSchemaUsage()
		case len(names) != 1:
			return nil, nil // another schema: the statement reports it
		}
		missing := wire.Errorf(code, "%s \"%s\" does not exist", kind, names[0])
		if !st.MissingOk {
			return nil, missing
		}
		r.notices = append(r.notices, skipNotice(missing))
	}
	return r, nil
}

// commentHidden is COMMENT ON TABLE|VIEW|SEQUENCE|COLUMN for a role
// without USAGE on public.
func commentHidden(st *q.CommentStmt) error {
	switch st.Objtype {
	case q.ObjectType_OBJECT_TABLE, q.ObjectType_OBJECT_VIEW, q.ObjectType_OBJECT_SEQUENCE, q.ObjectType_OBJECT_COLUMN:
	default:
		return nil
	}
	names := nameList(st.Object.GetList().GetItems())
	if st.Objtype == q.ObjectType_OBJECT_COLUMN && len(names) > 0 {
		names = names[:len(names)-1]
	}
	switch {
	case len(names) == 2 && names[0] == "public":
		return errSchemaUsage()
	case len(names) == 1:
		return wire.Errorf(pgerr.UndefinedTable, "relation \"%s\" does not exist", names[0])
	}
	return nil
}

// statementTag is the command tag of an ALTER that skipped its missing
// relation.
func statementTag(n *q.Node) string {
	switch x := n.Node.(type) {
	case *q.Node_AlterTableStmt:
		return alterTagOf(x.AlterTableStmt.Objtype)
	case *q.Node_RenameStmt:
		return alterTagOf(x.RenameStmt.RelationType)
	case *q.Node_AlterSeqStmt:
		return "ALTER SEQUENCE"
	}
	return fmt.Sprintf("%T", n.Node)
}

// walkMessages calls fn on every message of a parse tree, parents
// first, fields in declaration order.
func walkMessages(msg protoreflect.Message, fn func(protoreflect.ProtoMessage)) {
	fn(msg.Interface())
	msg.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind {
			return true
		}
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				walkMessages(l.Get(i).Message(), fn)
			}
		} else if !fd.IsMap() {
			walkMessages(v.Message(), fn)
		}
		return true
	})
}

// relationUsage checks one relation name a utility statement (COPY …
// FROM, LOCK) looks up against USAGE on public, without a cursor.
func (s *session) relationUsage(ctx context.Context, rv *q.RangeVar) error {
	if s.access == nil || rv == nil || rv.Schemaname != "" && rv.Schemaname != "public" {
		return nil
	}
	if rv.Schemaname == "" && exec.IsCatalogRelation(rv.Relname) {
		return nil
	}
	pc, err := s.privileges(ctx)
	if err != nil || pc == nil || pc.schemaPrivilege(s.branch(), pc.role, access.PrivUsage) {
		return err
	}
	if rv.Schemaname == "public" {
		return errSchemaUsage()
	}
	return wire.Errorf(pgerr.UndefinedTable, "relation \"%s\" does not exist", rv.Relname)
}

// createdSchemaUsage refuses a statement that names an object qualified
// with a created schema (CREATE SCHEMA) the acting role holds no USAGE
// on: 42501 "permission denied for schema s", as PostgreSQL's lookups.
// The name a CREATE makes needs only CREATE on its schema (needCreate).
func (s *session) createdSchemaUsage(ctx context.Context, pc *privCtx, n *q.Node) error {
	_, c, err := s.head(ctx)
	if err != nil || len(c.schemas) == 0 {
		return nil
	}
	created := map[*q.RangeVar]bool{}
	switch x := n.Node.(type) {
	case *q.Node_CreateStmt:
		created[x.CreateStmt.Relation] = true
	case *q.Node_ViewStmt:
		created[x.ViewStmt.View] = true
	case *q.Node_CreateSeqStmt:
		created[x.CreateSeqStmt.Sequence] = true
	case *q.Node_CreateTableAsStmt:
		if x.CreateTableAsStmt.Into != nil {
			created[x.CreateTableAsStmt.Into.Rel] = true
		}
	}
	var denied error
	check := func(schema string) {
		d, ok := c.schemaDef(schema)
		if !ok || denied != nil {
			return
		}
		if held, _ := pc.c.CreatedSchemaPrivileges(pc.role, s.branch(), d.OID, d.Owner); held&access.PrivUsage == 0 {
			denied = errPermission("schema", schema)
		}
	}
	walkMessages(n.ProtoReflect(), func(m protoreflect.ProtoMessage) {
		switch x := m.(type) {
		case *q.RangeVar:
			if !created[x] {
				check(x.Schemaname)
			}
		case *q.DropStmt:
			for _, o := range x.Objects {
				names := nameList(o.GetList().GetItems())
				if tn := o.GetTypeName(); tn != nil {
					names = nameList(tn.Names)
				}
				if len(names) == 2 {
					check(names[0])
				}
			}
		}
	})
	return denied
}
