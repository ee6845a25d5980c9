package ddl

import (
	"crypto/rand"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/oklog/ulid/v2"

	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// Planner turns DDL parse trees into changes. The zero value is ready to
// use; NewKey overrides how sequence allocator keys are made (tests make
// them deterministic).
type Planner struct {
	// NewKey returns a fresh, globally unique sequence key.
	NewKey func() string
	// Now returns the time a view is defined at (Unix nanoseconds; nil:
	// the clock). It only orders views (ViewMeta.Defined).
	Now func() int64
	// Views binds view queries (CREATE VIEW, renames views follow); nil
	// answers CREATE VIEW with 0A000.
	Views ViewBinder
	// SearchPath is the session's search_path as schema names in order
	// ("$user" resolved; nil: public only). Unqualified names resolve
	// through it and relations are created in its first existing schema
	// (schema.go).
	SearchPath []string
	// CurrentUser names the role CREATE SCHEMA AUTHORIZATION
	// CURRENT_USER means; RoleOID resolves a role name (nil: every role
	// is the bootstrap superuser).
	CurrentUser string
	RoleOID     func(name string) (uint32, bool)
}

// Plan plans one DDL statement against cat with the default Planner.
func Plan(stmt *q.Node, cat Catalog) ([]Change, error) { return Planner{}.Plan(stmt, cat) }

// planCtx is one Plan call.
type planCtx struct {
	p Planner
	v *view
}

// now is the planning time (Unix nanoseconds), for the order of view
// definitions; successive calls never repeat a value in this process.
func (pc *planCtx) now() int64 {
	if pc.p.Now != nil {
		return pc.p.Now()
	}
	for {
		last := lastStamp.Load()
		t := max(time.Now().UnixNano(), last+1)
		if lastStamp.CompareAndSwap(last, t) {
			return t
		}
	}
}

var lastStamp atomic.Int64

func (pc *planCtx) newKey() string {
	if pc.p.NewKey != nil {
		return pc.p.NewKey()
	}
	return ulid.MustNew(ulid.Now(), rand.Reader).String()
}

// Plan plans one DDL statement against cat.
func (p Planner) Plan(stmt *q.Node, cat Catalog) ([]Change, error) {
	if stmt == nil {
		return nil, errorf(CodeSyntaxError, "empty statement")
	}
	pc := &planCtx{p: p, v: newView(cat)}
	switch n := stmt.Node.(type) {
	case *q.Node_CreateStmt:
		return pc.createTable(n.CreateStmt)
	case *q.Node_DropStmt:
		return pc.dropStmt(n.DropStmt)
	case *q.Node_AlterTableStmt:
		return pc.alterTable(n.AlterTableStmt)
	case *q.Node_RenameStmt:
		return pc.rename(n.RenameStmt)
	case *q.Node_TruncateStmt:
		return pc.truncate(n.TruncateStmt)
	case *q.Node_IndexStmt:
		return pc.createIndex(n.IndexStmt)
	case *q.Node_CreateSeqStmt:
		return pc.createSequence(n.CreateSeqStmt)
	case *q.Node_AlterSeqStmt:
		return pc.alterSequence(n.AlterSeqStmt)
	case *q.Node_CommentStmt:
		return pc.comment(n.CommentStmt)
	case *q.Node_CreateSchemaStmt:
		return pc.createSchema(n.CreateSchemaStmt)
	case *q.Node_CreateExtensionStmt:
		return pc.createExtension(n.CreateExtensionStmt)
	case *q.Node_GrantStmt:
		// Object privileges are not enforced: every role holds every
		// privilege on every object, so a GRANT states what already
		// holds, while a REVOKE would be a promise not kept.
		if n.GrantStmt.IsGrant {
			return []Change{&NoOp{CommandTag: "GRANT"}}, nil
		}
		return nil, revokeNotSupported("REVOKE")
	case *q.Node_GrantRoleStmt:
		if n.GrantRoleStmt.IsGrant {
			return []Change{&NoOp{CommandTag: "GRANT ROLE"}}, nil
		}
		return []Change{&NoOp{CommandTag: "REVOKE ROLE"}}, nil
	case *q.Node_AlterDefaultPrivilegesStmt:
		if a := n.AlterDefaultPrivilegesStmt.Action; a != nil && !a.IsGrant {
			return nil, revokeNotSupported("ALTER DEFAULT PRIVILEGES … REVOKE")
		}
		return []Change{&NoOp{CommandTag: "ALTER DEFAULT PRIVILEGES"}}, nil
	case *q.Node_AlterOwnerStmt:
		if n.AlterOwnerStmt.ObjectType == q.ObjectType_OBJECT_SCHEMA {
			return pc.alterSchemaOwner(n.AlterOwnerStmt)
		}
		return []Change{&NoOp{CommandTag: alterTag(n.AlterOwnerStmt.ObjectType)}}, nil
	case *q.Node_CreateTableAsStmt:
		if n.CreateTableAsStmt.Objtype == q.ObjectType_OBJECT_MATVIEW {
			return nil, notSupported("CREATE MATERIALIZED VIEW")
		}
		return nil, notSupported("CREATE TABLE AS")
	case *q.Node_ViewStmt:
		return pc.createView(n.ViewStmt)
	case *q.Node_VacuumStmt:
		return pc.maintenance(n.VacuumStmt)
	case *q.Node_CheckPointStmt:
		return []Change{&NoOp{CommandTag: "CHECKPOINT"}}, nil
	case *q.Node_ClusterStmt:
		if rv := n.ClusterStmt.Relation; rv != nil {
			return pc.noOpOn(rv, false, "CLUSTER")
		}
		return []Change{&NoOp{CommandTag: "CLUSTER"}}, nil
	case *q.Node_ReindexStmt:
		if rv := n.ReindexStmt.Relation; rv != nil {
			return pc.noOpOn(rv, false, "REINDEX")
		}
		return []Change{&NoOp{CommandTag: "REINDEX"}}, nil
	case *q.Node_AlterObjectSchemaStmt:
		return pc.setSchema(n.AlterObjectSchemaStmt)
	case *q.Node_CreateEnumStmt:
		return pc.createEnum(n.CreateEnumStmt)
	case *q.Node_AlterEnumStmt:
		return pc.alterEnum(n.AlterEnumStmt)
	case *q.Node_CreateDomainStmt:
		return pc.createDomain(n.CreateDomainStmt)
	case *q.Node_AlterDomainStmt:
		return pc.alterDomain(n.AlterDomainStmt)
	case *q.Node_CreateFunctionStmt:
		return pc.createFunction(n.CreateFunctionStmt)
	case *q.Node_CreateTrigStmt:
		return pc.createTrigger(n.CreateTrigStmt)
	case *q.Node_DoStmt:
		if text, ok := IsPropGraphStmt(stmt); ok {
			return pc.planPropGraph(text)
		}
	}
	return nil, errorf(CodeFeatureNotSupported, "%s is not supported", statementName(stmt))
}

// IsDDL reports whether Plan handles the statement (schema statements
// and the no-op ones migration tools send). Plan answers 0A000 for
// others it is given.
func IsDDL(stmt *q.Node) bool {
	if stmt == nil {
		return false
	}
	switch stmt.Node.(type) {
	case *q.Node_CreateStmt, *q.Node_DropStmt, *q.Node_AlterTableStmt, *q.Node_RenameStmt, *q.Node_TruncateStmt,
		*q.Node_IndexStmt, *q.Node_CreateSeqStmt, *q.Node_AlterSeqStmt, *q.Node_CommentStmt, *q.Node_CreateSchemaStmt,
		*q.Node_CreateExtensionStmt, *q.Node_GrantStmt, *q.Node_GrantRoleStmt, *q.Node_AlterDefaultPrivilegesStmt,
		*q.Node_AlterOwnerStmt, *q.Node_CreateTableAsStmt, *q.Node_ViewStmt, *q.Node_VacuumStmt, *q.Node_CheckPointStmt,
		*q.Node_ClusterStmt, *q.Node_ReindexStmt, *q.Node_AlterObjectSchemaStmt, *q.Node_CreateEnumStmt, *q.Node_AlterEnumStmt,
		*q.Node_CreateDomainStmt, *q.Node_AlterDomainStmt, *q.Node_CreateFunctionStmt, *q.Node_CreateTrigStmt:
		return true
	}
	_, ok := IsPropGraphStmt(stmt)
	return ok
}

// statementNames spell the statements whose node names do not.
var statementNames = map[string]string{
	"CreateTrigStmt": "CREATE TRIGGER", "CreateEnumStmt": "CREATE TYPE … AS ENUM", "CreatedbStmt": "CREATE DATABASE",
	"DropdbStmt": "DROP DATABASE", "CreatePLangStmt": "CREATE LANGUAGE", "DefineStmt": "CREATE AGGREGATE/OPERATOR/TYPE",
	"CompositeTypeStmt": "CREATE TYPE … AS (…) (composite types)", "CreateRangeStmt": "CREATE TYPE … AS RANGE", "RuleStmt": "CREATE RULE",
	"CreateFunctionStmt": "CREATE FUNCTION", "DoStmt": "DO", "CreateTableSpaceStmt": "CREATE TABLESPACE",
	"CreateForeignTableStmt": "CREATE FOREIGN TABLE", "CreateEventTrigStmt": "CREATE EVENT TRIGGER",
	"CreateRoleStmt": "CREATE ROLE", "AlterRoleStmt": "ALTER ROLE", "DropRoleStmt": "DROP ROLE",
}

// statementName is a human name of a statement kind ("ALTER DOMAIN").
func statementName(n *q.Node) string {
	if s, ok := statementNames[nodeName(n)]; ok {
		return s
	}
	s := strings.TrimSuffix(nodeName(n), "Stmt")
	// CamelCase → upper words
	var b strings.Builder
	for i, r := range s {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String())
}

func nodeName(n *q.Node) string {
	if n == nil || n.Node == nil {
		return "statement"
	}
	s := fmt.Sprintf("%T", n.Node)
	return s[strings.LastIndex(s, "_")+1:]
}
