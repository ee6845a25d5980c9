package planner

import (
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/planner/ddl"
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
	p := ddl.Planner{Views: viewBinder{w}, SearchPath: w.s.searchPath(), CurrentUser: w.s.currentRole()}
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
	switch {
	case schema == "public":
		return name, true
	case schema == "":
		if len(c.schemas) == 0 {
			return name, true
		}
		for _, s := range w.s.searchPath() {
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
