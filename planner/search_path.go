package planner

import (
	"context"
	"strings"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/planner/ddl"
	"github.com/pggraph/pggraph/wire"
)

// searchPath is the session's search_path as schema names in order
// ("$user" resolved to the current role), the order unqualified names
// resolve in and the first existing one the schema new relations go to
// (ddl/schema.go).
func (s *session) searchPath() []string {
	path := `"$user", public`
	if s.info.Settings != nil {
		if v, ok := s.info.Settings.Get("search_path"); ok {
			path = v
		}
	}
	return exec.SearchPath(path, s.currentRole())
}

// ddlPlanner is the DDL planner of one statement of the session.
func (w *writer) ddlPlanner(pc *privCtx) ddl.Planner {
	p := ddl.Planner{Views: viewBinder{w}, SearchPath: w.s.lookupPath(), CurrentUser: w.s.currentRole()}
	if pc != nil {
		p.RoleOID = func(name string) (uint32, bool) {
			if r := pc.c.Role(name); r != nil {
				return r.OID, true
			}
			return 0, false
		}
	}
	return p
}

// relKey is the catalog (storage) name of the relation schema.name names
// (ddl/schema.go: a created schema's relations are stored as
// "schema.name"): an unqualified name resolves through the search path
// (a name found nowhere stays as written, for the caller's 42P01), and
// ok is false for a schema that holds no user relations (pg_catalog,
// information_schema, graph, or one that does not exist).
func (w *writer) relKey(schema, name string) (string, bool) {
	c := w.v.base
	if schema == "pg_temp" && w.s.temp != nil {
		schema = w.s.temp.ns // the session's temporary schema (temp_tables.go)
	}
	switch {
	case schema == "public":
		return name, true
	case schema == "":
		if len(c.schemas) == 0 {
			return name, true
		}
		for _, s := range w.s.lookupPath() {
			if s == "public" {
				if c.hasRelation("public", name) {
					return name, true
				}
			} else if c.hasSchema(s) && c.hasRelation(s, s+"."+name) {
				return s + "." + name, true
			}
		}
		return name, true
	case c.hasSchema(schema):
		return schema + "." + name, true
	}
	return "", false
}

// hasRelation reports whether the catalog holds a table or view stored
// under key in schema.
func (c *catalog) hasRelation(schema, key string) bool {
	if _, ok := c.tables[key]; ok {
		return true
	}
	return c.Catalog.Table(schema, key) != nil
}

// unqualifyError shows an integrity error about a created schema's
// relation as PostgreSQL does: the schema in field s, the relation and
// constraint names without the "schema." of their storage names (in the
// fields, the message and the detail).
func (s *session) unqualifyError(ctx context.Context, err error) error {
	we, ok := err.(*wire.Error)
	if !ok || !strings.HasPrefix(we.Code, "23") || !strings.Contains(we.Table, ".") {
		return err
	}
	_, c, herr := s.head(ctx)
	if herr != nil || len(c.schemas) == 0 {
		return err
	}
	schema, table := ddl.SplitQualified(we.Table, c.hasSchema)
	if schema == "public" {
		return err
	}
	out := *we
	out.Schema, out.Table = schema, table
	out.Constraint = strings.TrimPrefix(out.Constraint, schema+".")
	for _, d := range c.schemas {
		out.Message = strings.ReplaceAll(out.Message, `"`+d.Name+".", `"`)
		out.Detail = strings.ReplaceAll(out.Detail, `"`+d.Name+".", `"`)
	}
	return &out
}

// Table implements exec.Catalog. A storage name "s.name" of a created
// schema's relation (ddl/schema.go), which the planner's own lookups
// use with schema public or "", finds that relation.
func (c *catalog) Table(schema, name string) *exec.TableDef {
	if (schema == "public" || schema == "") && len(c.schemas) > 0 {
		if s, _ := ddl.SplitQualified(name, c.hasSchema); s != "public" {
			return c.Catalog.Table(s, name)
		}
	}
	return c.Catalog.Table(schema, name)
}

// schemaDef is the created schema named name.
func (c *catalog) schemaDef(name string) (ddl.SchemaDef, bool) {
	for _, d := range c.schemas {
		if d.Name == name {
			return d, true
		}
	}
	return ddl.SchemaDef{}, false
}

// schemaOwnerCheck refuses DROP SCHEMA, ALTER SCHEMA … RENAME TO and
// ALTER SCHEMA … OWNER TO of a created schema by a role that does not
// own it (PostgreSQL's "must be owner of schema s").
func (w *writer) schemaOwnerCheck(pc *privCtx, n *sqlparse.Node) error {
	if pc == nil {
		return nil
	}
	var names []string
	switch x := n.Node.(type) {
	case *sqlparse.Node_DropStmt:
		if x.DropStmt.RemoveType == sqlparse.ObjectType_OBJECT_SCHEMA {
			for _, o := range x.DropStmt.Objects {
				names = append(names, o.GetString_().GetSval())
			}
		}
	case *sqlparse.Node_RenameStmt:
		if x.RenameStmt.RenameType == sqlparse.ObjectType_OBJECT_SCHEMA {
			names = append(names, x.RenameStmt.Subname)
		}
	case *sqlparse.Node_AlterOwnerStmt:
		if x.AlterOwnerStmt.ObjectType == sqlparse.ObjectType_OBJECT_SCHEMA {
			names = append(names, x.AlterOwnerStmt.Object.GetString_().GetSval())
		}
	}
	for _, s := range names {
		if d, ok := w.v.base.schemaDef(s); ok && !pc.c.IsOwner(pc.role, d.Owner) {
			return errNotOwner("schema", s)
		}
	}
	return nil
}
