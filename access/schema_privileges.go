package access

import (
	"slices"
	"strings"
)

// Schema privileges (PostgreSQL's nspacl): USAGE (look up objects in
// the schema) and CREATE (create objects in it). They use the table ACL
// rules (aclmask, select_best_grantor, recursive revoke, aclitem text)
// with the ACL bits PostgreSQL gives them, PrivUsage and PrivSchemaCreate.
//
// A schema belongs to a branch (a database), but its ACL is kept here,
// keyed by branch and schema, like the branch's own ACL: GRANT … ON
// SCHEMA changes the role catalog, not the branch's versioned schema,
// so it is not time-travelled or merged. A new branch takes the schema
// ACLs of the branch it is created from (CopySchemaACLs), as CREATE
// DATABASE copies its template's pg_namespace; a deleted branch's are
// forgotten. A schema nobody granted or revoked on has DefaultSchemaACL.
//
// Schema public is owned by pg_database_owner, whose one implicit member
// is the database's owner — here the bootstrap superuser, owner of
// every branch — so only it (and superusers) may create in public
// unless someone grants CREATE, as in PostgreSQL 15.

// DatabaseOwnerOID is PostgreSQL's predefined role pg_database_owner.
const DatabaseOwnerOID uint32 = 6171

// PrivSchemaCreate is a schema's CREATE (PostgreSQL's ACL_CREATE bit).
const PrivSchemaCreate TablePrivs = 1 << 9

// AllSchemaPrivs are the privileges a schema has.
const AllSchemaPrivs = PrivUsage | PrivSchemaCreate

// SchemaACL is the ACL of one schema of one branch.
type SchemaACL struct {
	Branch string   `json:"branch"`
	Schema string   `json:"schema"`
	ACL    TableACL `json:"acl"`
}

// ParseSchemaPriv reads a schema privilege name (USAGE, CREATE).
func ParseSchemaPriv(name string) (TablePrivs, bool) {
	p, ok := parsePriv(name)
	return p, ok && p&AllSchemaPrivs != 0
}

// SchemaOwner is the owner of a schema: pg_database_owner for public,
// the bootstrap superuser for the built-in ones.
func SchemaOwner(schema string) uint32 {
	if schema == "public" {
		return DatabaseOwnerOID
	}
	return BootstrapOID
}

// DefaultSchemaACL is a schema's ACL before any GRANT or REVOKE on it,
// as PostgreSQL 15's initdb leaves public, pg_catalog and
// information_schema: the owner may use and create, PUBLIC may use.
func DefaultSchemaACL(schema string) []TableACLItem {
	owner := SchemaOwner(schema)
	return []TableACLItem{
		{Grantee: owner, Grantor: owner, Privs: AllSchemaPrivs},
		{Grantee: 0, Grantor: owner, Privs: PrivUsage},
	}
}

// SchemaACL is schema's ACL on branch and whether it was ever changed.
func (c *Catalog) SchemaACL(branch, schema string) (*TableACL, bool) {
	if c != nil {
		for i := range c.Schemas {
			if s := &c.Schemas[i]; s.Branch == branch && s.Schema == schema {
				return &TableACL{Items: slices.Clone(s.ACL.Items)}, true
			}
		}
	}
	return &TableACL{Items: DefaultSchemaACL(schema)}, false
}

// SetSchemaACL replaces schema's ACL on branch.
func (c *Catalog) SetSchemaACL(branch, schema string, acl *TableACL) {
	for i := range c.Schemas {
		if c.Schemas[i].Branch == branch && c.Schemas[i].Schema == schema {
			c.Schemas[i].ACL = TableACL{Items: slices.Clone(acl.Items)}
			return
		}
	}
	c.Schemas = append(c.Schemas, SchemaACL{Branch: branch, Schema: schema, ACL: TableACL{Items: slices.Clone(acl.Items)}})
	slices.SortFunc(c.Schemas, func(a, b SchemaACL) int {
		if n := strings.Compare(a.Branch, b.Branch); n != 0 {
			return n
		}
		return strings.Compare(a.Schema, b.Schema)
	})
}

// DropSchemaACLs forgets the schema and built-in function ACLs of a
// deleted branch.
func (c *Catalog) DropSchemaACLs(branch string) bool {
	n, m := len(c.Schemas), len(c.Functions)
	c.Schemas = slices.DeleteFunc(c.Schemas, func(s SchemaACL) bool { return s.Branch == branch })
	c.Functions = slices.DeleteFunc(c.Functions, func(f BuiltinFunctionACL) bool { return f.Branch == branch })
	return len(c.Schemas) != n || len(c.Functions) != m
}

// CopySchemaACLs gives branch the schema and built-in function ACLs of
// from, replacing any it had: a branch is created as a copy of another,
// as CREATE DATABASE copies its template's pg_namespace and pg_proc
// with their ACLs. It reports whether anything changed.
func (c *Catalog) CopySchemaACLs(from, branch string) bool {
	fnsChanged := c.copyBuiltinFunctionACLs(from, branch)
	before := cloneSchemas(c.Schemas)
	c.Schemas = slices.DeleteFunc(c.Schemas, func(s SchemaACL) bool { return s.Branch == branch })
	for _, s := range before {
		if s.Branch == from {
			c.Schemas = append(c.Schemas, SchemaACL{Branch: branch, Schema: s.Schema, ACL: TableACL{Items: slices.Clone(s.ACL.Items)}})
		}
	}
	slices.SortFunc(c.Schemas, func(a, b SchemaACL) int {
		if x := strings.Compare(a.Branch, b.Branch); x != 0 {
			return x
		}
		return strings.Compare(a.Schema, b.Schema)
	})
	return fnsChanged || !slices.EqualFunc(before, c.Schemas, func(a, b SchemaACL) bool {
		return a.Branch == b.Branch && a.Schema == b.Schema && slices.Equal(a.ACL.Items, b.ACL.Items)
	})
}

// SchemaPrivileges are the privileges role holds on schema of branch
// and the grant options it holds (aclmask over nspacl).
func (c *Catalog) SchemaPrivileges(role uint32, branch, schema string) (held, grantable TablePrivs) {
	acl, _ := c.SchemaACL(branch, schema)
	held, grantable = c.TablePrivileges(role, SchemaOwner(schema), acl)
	return held & AllSchemaPrivs, grantable & AllSchemaPrivs
}

// cloneSchemas copies the schema ACLs for a catalog change.
func cloneSchemas(in []SchemaACL) []SchemaACL {
	out := slices.Clone(in)
	for i := range out {
		out[i].ACL.Items = slices.Clone(out[i].ACL.Items)
	}
	return out
}

// Created schemas (CREATE SCHEMA) keep their ACL here too, per branch,
// keyed by the schema's OID (CreatedSchemaKey): a rename keeps it, and a
// schema dropped and created again under the same name starts afresh,
// as in PostgreSQL. Their default is PostgreSQL's for a schema: the
// owner may use and create, PUBLIC nothing.

// CreatedSchemaKey names a created schema's ACL entry.
func CreatedSchemaKey(oid uint32) string { return "#" + itoaU(oid) }

// DefaultCreatedSchemaACL is acldefault for a schema of owner.
func DefaultCreatedSchemaACL(owner uint32) []TableACLItem {
	owner = OwnerOID(owner)
	return []TableACLItem{{Grantee: owner, Grantor: owner, Privs: AllSchemaPrivs}}
}

// CreatedSchemaACL is a created schema's ACL on branch and whether it
// was ever changed.
func (c *Catalog) CreatedSchemaACL(branch string, oid, owner uint32) (*TableACL, bool) {
	key := CreatedSchemaKey(oid)
	if c != nil {
		for i := range c.Schemas {
			if s := &c.Schemas[i]; s.Branch == branch && s.Schema == key {
				return &TableACL{Items: slices.Clone(s.ACL.Items)}, true
			}
		}
	}
	return &TableACL{Items: DefaultCreatedSchemaACL(owner)}, false
}

// CreatedSchemaPrivileges are the privileges role holds on a created
// schema and the grant options it holds.
func (c *Catalog) CreatedSchemaPrivileges(role uint32, branch string, oid, owner uint32) (held, grantable TablePrivs) {
	acl, _ := c.CreatedSchemaACL(branch, oid, owner)
	held, grantable = c.TablePrivileges(role, owner, acl)
	return held & AllSchemaPrivs, grantable & AllSchemaPrivs
}
