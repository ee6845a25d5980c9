package exec

// Relation visibility (pg_table_is_visible): a user relation is visible
// when its schema is on the session's search_path, as in PostgreSQL.
// psql's \dt and \d without a pattern list only visible relations, so a
// schema such as graph (not on the default path) stays out of them
// until the user qualifies it or adds it to the path.

// searchPathSchemas returns the schemas of the session's search_path
// ("$user" resolved to the session user), plus pg_catalog, which
// PostgreSQL always searches.
func (c *catalogSet) searchPathSchemas() map[string]bool {
	out := map[string]bool{"pg_catalog": true}
	for _, name := range c.lookupPath() {
		out[name] = true
	}
	return out
}

// relationVisibility returns a visibility test for relation OIDs,
// computed once per statement. Relations that are not user relations
// (the system catalogs) are visible, except information_schema's, which
// is not on the path.
func (c *catalogSet) relationVisibility() func(oid uint32) bool {
	onPath := c.searchPathSchemas()
	visible := map[uint32]bool{}
	for _, t := range c.userTables() {
		visible[t.OID] = onPath[schemaOrPublic(t.Schema)]
	}
	for _, s := range c.sequences() {
		visible[s.OID] = onPath[s.schema()]
	}
	for _, r := range infoSchemaRels {
		visible[r.oid] = onPath["information_schema"]
	}
	return func(oid uint32) bool {
		v, ok := visible[oid]
		return !ok || v
	}
}

func schemaOrPublic(s string) string {
	if s == "" {
		return "public"
	}
	return s
}

// relkindOf is pg_class.relkind of a user relation: 'v' for views (the
// graph.* views), 'r' for tables.
func relkindOf(t *TableDef) string {
	if t.Kind == "view" {
		return "v"
	}
	return "r"
}
