package exec

import (
	"math"
	"strings"

	"github.com/pggraph/pggraph/access"
	"github.com/pggraph/pggraph/pgerr"
)

// Schema USAGE on name lookups. PostgreSQL leaves a schema the current
// role may not use out of its effective search path and refuses a name
// qualified with it: an unqualified name then finds nothing in it
// (42P01 "relation … does not exist", 42704 for a type) and a qualified
// one fails with 42501 "permission denied for schema …", even when no
// such object exists. Only public can lose USAGE here (the built-in
// schemas' ACLs are fixed, and schema graph is pggraph's own), so the
// binder asks schemaUsable("public") wherever it looks up a relation,
// sequence or type by name. A view's query was resolved when the view
// was created, so lookups made while binding a view's body are not
// checked (the view's owner's table privileges are).

// schemaUsable reports whether the current role holds USAGE on schema
// on the statement's branch: always on a root without roles, for a
// superuser, and for the schemas other than public.
func (c *catalogSet) schemaUsable(schema string) bool {
	if c.rolesFn == nil {
		return true
	}
	if strings.HasPrefix(schema, "pg_temp_") {
		// the session's temporary schema: PostgreSQL's
		// pg_namespace_aclmask gives its backend USAGE on it always
		return true
	}
	if schema != "public" {
		return c.createdSchemaUsable(schema)
	}
	if c.usage == 0 {
		c.usage = 1
		cat := c.roleCatalog()
		if !cat.Bootstrap() {
			role := uint32(math.MaxUint32) // a role dropped meanwhile: PUBLIC's
			if r := cat.Role(c.user_); r != nil {
				role = r.OID
			}
			if held, _ := cat.SchemaPrivileges(role, c.database(), "public"); held&access.PrivUsage == 0 {
				c.usage = 2
			}
		}
	}
	return c.usage == 1
}

// createdSchemaUsable reports whether the current role holds USAGE on a
// created schema (CREATE SCHEMA; its ACL is kept in the role catalog,
// access.CreatedSchemaACL). Other schemas are usable.
func (c *catalogSet) createdSchemaUsable(schema string) bool {
	for _, d := range c.schemaDefs() {
		if d.Name != schema {
			continue
		}
		cat := c.roleCatalog()
		if cat.Bootstrap() {
			return true
		}
		role := uint32(math.MaxUint32)
		if r := cat.Role(c.user_); r != nil {
			role = r.OID
		}
		held, _ := cat.CreatedSchemaPrivileges(role, c.database(), d.OID, d.Owner)
		return held&access.PrivUsage != 0
	}
	return true
}

// errSchemaUsage is PostgreSQL's refusal of a name qualified with a
// schema the role may not use.
func errSchemaUsage(schema string) *Error {
	return errf(pgerr.InsufficientPrivilege, "permission denied for schema %s", schema)
}

// publicHidden reports whether an unqualified lookup must skip schema
// public's objects: the role lacks USAGE on it and the name is not
// part of a view's (already resolved) query.
func (b *binder) publicHidden() bool {
	return !b.inView && !b.cat.schemaUsable("public")
}

// qualifiedDenied is the error for a name qualified with schema when the
// role may not use it (nil when it may, or inside a view's query).
func (b *binder) qualifiedDenied(schema string) error {
	if schema == "" || b.inView || b.cat.schemaUsable(schema) {
		return nil
	}
	return errSchemaUsage(schema)
}

// isPublicUserRelation reports a relation of schema public (a user
// table, view or sequence), as opposed to a system catalog or one of
// schema graph's views.
func isPublicUserRelation(td *TableDef) bool {
	return td.OID >= firstUserOID && (td.Schema == "" || td.Schema == "public")
}

// IsCatalogRelation reports whether an unqualified relation name finds
// a system catalog (pg_catalog is searched before any other schema).
func IsCatalogRelation(name string) bool { return pgCatalogRels[name] != nil }
