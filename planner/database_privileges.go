package planner

import (
	"github.com/pggraph/pggraph/access"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/wire"
)

// What the database privileges CREATE and TEMPORARY guard, a database
// being a branch (branch_privileges.go keeps them): CREATE SCHEMA, and
// renaming a schema or giving it to another role, need CREATE on the
// branch (PostgreSQL's CreateSchemaCommand, RenameSchema,
// AlterSchemaOwner); a session's temporary schema needs TEMPORARY when
// its first temporary object is created, and every later one while it
// lives (pg_namespace_aclmask of a backend's temporary namespace).
// Superusers hold both.

// errDatabaseACL is aclcheck_error's message for a database (its name
// unquoted, unlike the login refusal's).
func errDatabaseACL(branch string) *wire.Error {
	return wire.Errorf(wire.CodeInsufficientPrivilege, "permission denied for database %s", branch)
}

// schemaDatabaseChecks refuses CREATE SCHEMA, ALTER SCHEMA … RENAME TO
// and ALTER SCHEMA … OWNER TO by a role without CREATE on the branch;
// CREATE SCHEMA … AUTHORIZATION and OWNER TO also need membership in
// the role named. Ownership of an existing schema is schemaOwnerCheck's
// (search_path.go), checked before.
func (w *writer) schemaDatabaseChecks(pc *privCtx, n *q.Node) error {
	if pc == nil || pc.c.Bootstrap() {
		return nil
	}
	rc := &roleChange{s: w.s, c: pc.c}
	if rc.isSuper() {
		return nil
	}
	mayCreate := func() error {
		if held, _ := pc.c.BranchPrivileges(pc.role, w.s.branch()); held&access.PrivCreate == 0 {
			return errDatabaseACL(w.s.branch())
		}
		return nil
	}
	memberOf := func(spec *q.RoleSpec) error {
		r, _, err := rc.spec(spec)
		if err != nil {
			return err
		}
		if !pc.c.MemberOf(pc.role, r.OID, false) {
			return wire.Errorf(wire.CodeInsufficientPrivilege, "must be member of role \"%s\"", r.Name)
		}
		return nil
	}
	switch x := n.Node.(type) {
	case *q.Node_CreateSchemaStmt:
		if err := mayCreate(); err != nil {
			return err
		}
		if x.CreateSchemaStmt.Authrole != nil {
			return memberOf(x.CreateSchemaStmt.Authrole)
		}
	case *q.Node_RenameStmt:
		if x.RenameStmt.RenameType == q.ObjectType_OBJECT_SCHEMA {
			if _, ok := w.v.base.schemaDef(x.RenameStmt.Subname); ok {
				return mayCreate()
			}
		}
	case *q.Node_AlterOwnerStmt:
		if x.AlterOwnerStmt.ObjectType != q.ObjectType_OBJECT_SCHEMA {
			return nil
		}
		d, ok := w.v.base.schemaDef(x.AlterOwnerStmt.Object.GetString_().GetSval())
		if !ok {
			return nil
		}
		r, _, err := rc.spec(x.AlterOwnerStmt.Newowner)
		if err != nil || r.OID == access.OwnerOID(d.Owner) {
			return err
		}
		if err := memberOf(x.AlterOwnerStmt.Newowner); err != nil {
			return err
		}
		return mayCreate()
	}
	return nil
}

// tempPrivilege refuses a temporary object to a role without TEMPORARY
// on the branch: PostgreSQL's message when the session's temporary
// schema would be made (first), else the one for the schema ns.
func (w *writer) tempPrivilege(first bool, ns string) error {
	c, err := w.s.roleCatalog(w.ctx)
	if err != nil || c.Bootstrap() {
		return err
	}
	if branchPrivilege(c, w.s.currentRole(), w.s.branch(), access.PrivTemporary) == nil {
		return nil
	}
	if first {
		return wire.Errorf(wire.CodeInsufficientPrivilege, "permission denied to create temporary tables in database \"%s\"", w.s.branch())
	}
	return errPermission("schema", ns)
}
