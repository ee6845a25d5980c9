package exec

// Created schemas (CREATE SCHEMA): a catalog that implements
// SchemaCatalog lists them with their namespace OIDs and owners, so
// pg_namespace, information_schema.schemata and name resolution know
// them. A relation of a created schema has TableDef.Schema set to it and
// a Name that is the catalog's storage name "schema.name"
// (docs/architecture.md, "Schemas"); RelName is the name SQL shows.

// SchemaDef is one created schema.
type SchemaDef struct {
	Name  string
	OID   uint32
	Owner uint32 // role OID; 0 is the bootstrap superuser
	Temp  bool   // the session's temporary schema (temp_schema.go)
}

// SchemaCatalog is an optional extension of Catalog.
type SchemaCatalog interface {
	SchemaDefs() []SchemaDef
}

// RelName is the relation's name as SQL shows it: without the schema
// prefix of a created schema's storage name.
func (t *TableDef) RelName() string {
	if t.Schema != "" && t.Schema != "public" && len(t.Name) > len(t.Schema)+1 && t.Name[:len(t.Schema)+1] == t.Schema+"." {
		return t.Name[len(t.Schema)+1:]
	}
	return t.Name
}

// storageName is the catalog name of relation name of schema: created
// schemas' relations are stored as "schema.name".
func storageName(schema, name string) string {
	switch schema {
	case "", "public", "pg_catalog", "information_schema", "graph":
		return name
	}
	return schema + "." + name
}

// schemaDefs lists the user catalog's created schemas.
func (c *catalogSet) schemaDefs() []SchemaDef {
	if sc, ok := c.user.(SchemaCatalog); ok && c.user != nil {
		return sc.SchemaDefs()
	}
	return nil
}

// userTableOnPath resolves an unqualified user relation: in the first
// schema of the search path that holds it, as PostgreSQL does. A storage
// name ("s.name", which the planner's own queries use) finds its
// relation too, and a name found on no schema of the path falls back to
// public (whose USAGE is checked by the caller).
func (c *catalogSet) userTableOnPath(name string) *TableDef {
	defs := c.schemaDefs()
	if len(defs) == 0 {
		return c.user.Table("", name)
	}
	for _, s := range c.lookupPath() {
		if s == "public" {
			if t := c.user.Table("", name); t != nil {
				return t
			}
			continue
		}
		for _, d := range defs {
			if d.Name == s && c.schemaUsable(s) {
				if t := c.user.Table(s, s+"."+name); t != nil {
					return t
				}
			}
		}
	}
	for _, d := range defs {
		if len(name) > len(d.Name)+1 && name[:len(d.Name)+1] == d.Name+"." {
			if t := c.user.Table(d.Name, name); t != nil {
				return t
			}
		}
	}
	return c.user.Table("", name)
}

// currentSchema is current_schema(): the first schema of the search path
// that exists (false when none does).
func (c *catalogSet) currentSchema() (string, bool) {
	path, _ := settingValue(c.setting, "search_path")
	ns := c.namespaces()
	for _, s := range SearchPath(path, c.user_) {
		for _, n := range ns {
			if n.name == s {
				return s, true
			}
		}
	}
	return "", false
}

// regclassText is a relation's regclass output: qualified unless public
// (or a built-in schema) holds it.
func regclassText(schema, rel string) string {
	switch schema {
	case "", "public", "pg_catalog", "information_schema", "graph":
		return quoteIdent(rel)
	}
	return quoteIdent(schema) + "." + quoteIdent(rel)
}
