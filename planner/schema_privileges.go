package planner

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/pggraph/pggraph/access"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/planner/ddl"
	"github.com/pggraph/pggraph/wire"
)

// Schema privileges: GRANT/REVOKE … ON SCHEMA public and the CREATE
// check of statements that create or rename relations. The ACL lives in
// the role catalog per branch (access/schema_privileges.go), so GRANT …
// ON SCHEMA is a role statement; its default is PostgreSQL 15's: only
// pg_database_owner (the branch owner, the bootstrap superuser) and
// superusers may create in public, everyone may use it.
//
// USAGE is enforced on name lookups (schema_usage.go and
// exec/schema_usage.go).

// grantOnSchemas runs GRANT/REVOKE privileges ON SCHEMA s.
func (rc *roleChange) grantOnSchemas(st *q.GrantStmt) error {
	if err := rc.checkGrantedBy(st.Grantor, rc.actorOID()); err != nil { // type_privileges.go
		return err
	}
	var schemas, builtin []string
	created := map[string]ddl.SchemaDef{}
	for _, n := range st.Objects {
		name := n.GetString_().GetSval()
		switch name {
		case "public":
		case "pg_catalog", "information_schema", "pg_toast":
			builtin = append(builtin, name)
			continue
		default:
			d, ok := rc.createdSchema(name)
			if !ok {
				return errRole(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", name)
			}
			created[name] = d
		}
		schemas = append(schemas, name)
	}
	grantees, err := rc.granteeOIDs(st.Grantees)
	if err != nil {
		return err
	}
	allPrivs := len(st.Privileges) == 0
	var privs access.TablePrivs
	if allPrivs {
		privs = access.AllSchemaPrivs
	}
	for _, n := range st.Privileges {
		ap := n.GetAccessPriv()
		if ap == nil {
			continue
		}
		if len(ap.Cols) > 0 {
			return errRole(pgerr.InvalidGrantOperation, "column privileges are only valid for relations")
		}
		p, ok := access.ParseSchemaPriv(ap.PrivName)
		if !ok {
			if _, known := access.ParseTablePriv(ap.PrivName); known || isPrivilegeName(ap.PrivName) {
				return errRole(pgerr.InvalidGrantOperation, "invalid privilege type %s for schema", strings.ToUpper(ap.PrivName))
			}
			return errRole(wire.CodeSyntaxError, "unrecognized privilege type \"%s\"", ap.PrivName)
		}
		privs |= p
	}
	// the built-in schemas' ACLs are fixed: a GRANT of what their
	// default already gives (pg_dump's GRANT USAGE ON SCHEMA pg_catalog
	// TO PUBLIC) changes nothing; anything else is not supported
	for _, schema := range builtin {
		acl := &access.TableACL{Items: access.DefaultSchemaACL(schema)}
		for _, g := range grantees {
			var held access.TablePrivs
			if g == 0 {
				for _, it := range acl.Items {
					if it.Grantee == 0 {
						held |= it.Privs
					}
				}
			} else {
				held, _ = rc.c.TablePrivileges(g, access.SchemaOwner(schema), acl)
			}
			if !st.IsGrant || st.GrantOption || schema == "pg_toast" || privs&^held != 0 {
				return notSupported("GRANT or REVOKE on schema " + schema)
			}
		}
	}
	actor := rc.actorOID()
	branch := rc.s.branch()
	for _, schema := range schemas {
		owner, key := access.SchemaOwner(schema), schema
		acl, _ := rc.c.SchemaACL(branch, schema)
		if d, ok := created[schema]; ok {
			owner, key = access.OwnerOID(d.Owner), access.CreatedSchemaKey(d.OID)
			acl, _ = rc.c.CreatedSchemaACL(branch, d.OID, d.Owner)
		}
		grantor, options := rc.c.TableGrantor(actor, owner, acl, privs)
		options &= access.AllSchemaPrivs
		if options == 0 {
			if held, _ := rc.c.TablePrivileges(grantor, owner, acl); held&access.AllSchemaPrivs == 0 {
				return errPermission("schema", schema)
			}
		}
		this := privs & options
		what := "were granted"
		if !st.IsGrant {
			what = "could be revoked"
		}
		if this == 0 {
			rc.notice(&wire.Error{Severity: "WARNING", Code: pgerr.WarningPrivilegeNotGranted, Message: fmt.Sprintf("no privileges %s for \"%s\"", what, schema)})
			continue
		}
		if !allPrivs && this != privs {
			rc.notice(&wire.Error{Severity: "WARNING", Code: pgerr.WarningPrivilegeNotGranted, Message: fmt.Sprintf("not all privileges %s for \"%s\"", what, schema)})
		}
		for _, g := range grantees {
			if st.IsGrant {
				acl = access.GrantTable(acl, owner, g, grantor, this, st.GrantOption)
				continue
			}
			next, err := rc.c.RevokeTable(acl, owner, g, grantor, this, st.GrantOption, st.Behavior == q.DropBehavior_DROP_CASCADE)
			if err != nil {
				return errRole(pgerr.DependentObjectsStillExist, "dependent privileges exist").WithHint("Use CASCADE to revoke them too.")
			}
			acl = next
		}
		rc.c.SetSchemaACL(branch, key, acl)
	}
	return nil
}

// createdSchemaByKey finds the created schema whose ACL is kept under
// key on the session's branch (false on another branch).
func createdSchemaByKey(s *session, branch, key string) (ddl.SchemaDef, bool) {
	if branch != s.branch() {
		return ddl.SchemaDef{}, false
	}
	_, c, err := s.head(context.Background())
	if err != nil {
		return ddl.SchemaDef{}, false
	}
	for _, d := range c.schemas {
		if access.CreatedSchemaKey(d.OID) == key {
			return d, true
		}
	}
	return ddl.SchemaDef{}, false
}

// createdSchema finds a schema made by CREATE SCHEMA on the session's
// branch: in the transaction's catalog (its own CREATE SCHEMA too), else
// the head's.
func (rc *roleChange) createdSchema(name string) (ddl.SchemaDef, bool) {
	s := rc.s
	if s.tx != nil && s.tx.pinned != nil {
		if d, ok := s.tx.pinned.schemaDef(name); ok {
			return d, ok
		}
	}
	_, c, err := s.head(context.Background())
	if err != nil {
		return ddl.SchemaDef{}, false
	}
	return c.schemaDef(name)
}

// schemaPrivilege reports whether role holds p on schema public of the
// session's branch.
func (pc *privCtx) schemaPrivilege(branch string, role uint32, p access.TablePrivs) bool {
	if pc == nil {
		return true
	}
	held, _ := pc.c.SchemaPrivileges(role, branch, "public")
	return held&p == p
}

// needCreate refuses the acting role without CREATE on public (the
// schema every relation is created in) with PostgreSQL's message.
func (w *writer) needCreate(pc *privCtx, schema string) error {
	if pc == nil {
		return nil
	}
	if schema == "" {
		// the creation schema: the first existing one of the path
		for _, s := range w.s.searchPath() {
			if s == "public" || w.v.base.hasSchema(s) {
				schema = s
				break
			}
		}
	}
	if ddl.IsTempSchema(schema) {
		return nil // the session's own temporary schema (temp_tables.go)
	}
	if d, ok := w.v.base.schemaDef(schema); ok {
		// a created schema: CREATE as its ACL gives
		if held, _ := pc.c.CreatedSchemaPrivileges(pc.role, w.s.branch(), d.OID, d.Owner); held&access.PrivSchemaCreate == 0 {
			return errPermission("schema", schema)
		}
		return nil
	}
	if schema != "" && schema != "public" {
		return nil // the statement reports a schema that does not exist
	}
	if !pc.schemaPrivilege(w.s.branch(), pc.role, access.PrivSchemaCreate) {
		return errPermission("schema", "public")
	}
	return nil
}

// createsIn is the schema a statement creates a relation, function or
// type in ("" for the search path) and whether it creates one; PostgreSQL checks CREATE on
// it before anything else (RangeVarGetAndCheckCreationNamespace).
func createsIn(n *q.Node) (string, bool) {
	switch x := n.Node.(type) {
	case *q.Node_CreateStmt:
		return x.CreateStmt.GetRelation().GetSchemaname(), x.CreateStmt.Relation != nil
	case *q.Node_ViewStmt:
		return x.ViewStmt.GetView().GetSchemaname(), x.ViewStmt.View != nil
	case *q.Node_CreateSeqStmt:
		return x.CreateSeqStmt.GetSequence().GetSchemaname(), x.CreateSeqStmt.Sequence != nil
	case *q.Node_CreateFunctionStmt:
		return qualifierOf(x.CreateFunctionStmt.Funcname), true
	case *q.Node_CreateEnumStmt:
		return qualifierOf(x.CreateEnumStmt.TypeName), true
	case *q.Node_CreateDomainStmt:
		return qualifierOf(x.CreateDomainStmt.Domainname), true
	}
	return "", false
}

// qualifierOf is the schema of a qualified name ("" when unqualified).
func qualifierOf(names []*q.Node) string {
	parts := nameList(names)
	if len(parts) < 2 {
		return ""
	}
	return parts[len(parts)-2]
}

// renamesOrIndexesIn is the schema of the relation a RENAME or CREATE
// INDEX names: PostgreSQL checks CREATE on it after ownership (renaming
// a relation or index; renaming a column or constraint needs none).
func renamesOrIndexesIn(n *q.Node) (string, bool) {
	switch x := n.Node.(type) {
	case *q.Node_RenameStmt:
		switch x.RenameStmt.RenameType {
		case q.ObjectType_OBJECT_TABLE, q.ObjectType_OBJECT_VIEW, q.ObjectType_OBJECT_SEQUENCE, q.ObjectType_OBJECT_INDEX:
			return x.RenameStmt.GetRelation().GetSchemaname(), x.RenameStmt.Relation != nil
		}
	case *q.Node_IndexStmt:
		return x.IndexStmt.GetRelation().GetSchemaname(), x.IndexStmt.Relation != nil
	}
	return "", false
}

// renameOrIndexCreateCheck requires CREATE on the schema of an existing
// relation a RENAME or CREATE INDEX names (a missing one is left to the
// statement to report).
func (w *writer) renameOrIndexCreateCheck(pc *privCtx, n *q.Node) error {
	schema, ok := renamesOrIndexesIn(n)
	if !ok || pc == nil {
		return nil
	}
	var name string
	isIndex := false
	switch x := n.Node.(type) {
	case *q.Node_RenameStmt:
		name, isIndex = x.RenameStmt.Relation.Relname, x.RenameStmt.RenameType == q.ObjectType_OBJECT_INDEX
	case *q.Node_IndexStmt:
		name = x.IndexStmt.Relation.Relname
	}
	exists := false
	if _, _, ok := w.relationOf(name); ok {
		exists = true
	} else if _, owned := w.sequencePriv(name); owned {
		exists = true
	} else if isIndex {
		for _, e := range w.ddlCatalog().Tables() {
			if m, err := ddl.DecodeMeta(e.Name, e.Def); err == nil && hasIndex(m, name) {
				exists = true
			}
		}
	}
	if !exists {
		return nil
	}
	return w.needCreate(pc, schema)
}

// schemaDependents describes the schema privileges role holds or
// granted, for DROP ROLE's refusal: "privileges for schema public" on
// the session's branch, an object counted on another.
func (rc *roleChange) schemaDependents(role *access.Role) []string {
	var out []string
	for _, s := range rc.c.Schemas {
		name := s.Schema
		if strings.HasPrefix(name, "#") {
			// a created schema's ACL: named by its schema on this
			// branch; one dropped since (or on another branch, where it
			// cannot be looked up here) holds nothing back
			d, ok := createdSchemaByKey(rc.s, s.Branch, name)
			if !ok {
				continue
			}
			name = d.Name
		}
		for _, it := range s.ACL.Items {
			if it.Grantee != role.OID && it.Grantor != role.OID {
				continue
			}
			if s.Branch == rc.s.branch() {
				out = append(out, "privileges for schema "+name)
			} else {
				out = append(out, "1 object in database "+s.Branch)
			}
			break
		}
	}
	return out
}

// dropOwnedSchemas is DROP OWNED's part for schemas: the privileges the
// roles hold on the branch's schemas are revoked by the acting role's
// best grantor, with CASCADE (RemoveRoleFromObjectACL).
func dropOwnedSchemas(s0 *session, c *access.Catalog, branch string, actor uint32, oids map[uint32]bool) (bool, error) {
	changed := false
	for _, s := range slices.Clone(c.Schemas) {
		if s.Branch != branch {
			continue
		}
		owner := access.SchemaOwner(s.Schema)
		if strings.HasPrefix(s.Schema, "#") { // a created schema's
			d, ok := createdSchemaByKey(s0, branch, s.Schema)
			if !ok {
				continue
			}
			owner = access.OwnerOID(d.Owner)
		}
		acl := &access.TableACL{Items: slices.Clone(s.ACL.Items)}
		touched := false
		for oid := range oids {
			if !slices.ContainsFunc(acl.Items, func(it access.TableACLItem) bool { return it.Grantee == oid }) {
				continue
			}
			grantor, _ := c.TableGrantor(actor, owner, acl, access.AllSchemaPrivs)
			next, err := c.RevokeTable(acl, owner, oid, grantor, access.AllSchemaPrivs, false, true)
			if err != nil {
				return false, err
			}
			acl, touched = next, true
		}
		if touched {
			c.SetSchemaACL(branch, s.Schema, acl)
			changed = true
		}
	}
	return changed, nil
}

// onlyBuiltinSchemas reports a GRANT/REVOKE ON SCHEMA naming only the
// built-in schemas, whose ACLs never change.
func onlyBuiltinSchemas(st *q.GrantStmt) bool {
	if st.Objtype != q.ObjectType_OBJECT_SCHEMA || len(st.Objects) == 0 {
		return false
	}
	for _, n := range st.Objects {
		switch n.GetString_().GetSval() {
		case "pg_catalog", "information_schema", "pg_toast":
		default:
			return false
		}
	}
	return true
}

// grantOnBuiltinSchemas checks a GRANT on built-in schemas against the
// current role catalog without publishing one: it is accepted only when
// it grants what their fixed ACL already gives.
func (s *session) grantOnBuiltinSchemas(ctx context.Context, p *plan, tag string) (wire.Result, error) {
	c, err := s.roleCatalog(ctx)
	if err != nil {
		return nil, err
	}
	rc := &roleChange{s: s, c: c, sql: p.sql, notice: func(e *wire.Error) {
		if s.info.Notice != nil {
			s.info.Notice(e)
		}
	}}
	if err := rc.apply(p.node); err != nil {
		return nil, err
	}
	return &tagResult{tag: tag}, nil
}
