package exec

// pggraph's own schema "graph" and its generated views (graph.commits,
// graph.branches, ...) are members of a built-in extension "pggraph",
// as a PostgreSQL extension's objects are: pg_dump leaves out built-in
// extensions (OID below 16384, like plpgsql) and everything that belongs
// to them, so a dump re-creates the user's objects and not the server's
// (docs/operations.md, "Dump and restore").

// oidPggraphExtension is the pggraph extension's OID, below
// FirstNormalObjectId (16384) like every built-in object's.
const oidPggraphExtension = 16099

// pggraphExtensionRows is pg_extension's row of the pggraph extension.
func (c *catalogSet) pggraphExtensionRows() [][]any {
	if c.nsOID("graph") == oidPublic {
		return nil
	}
	return [][]any{{uint32(oidPggraphExtension), "pggraph", uint32(oidPostgresRole), c.nsOID("graph"), false, "1.0", nil, nil}}
}

// pggraphExtensionDepends are pg_depend's 'e' rows of the graph schema
// and the generated views in it.
func (c *catalogSet) pggraphExtensionDepends() [][]any {
	ns := c.nsOID("graph")
	if ns == oidPublic { // no graph schema (nsOID's fallback)
		return nil
	}
	rows := [][]any{{uint32(oidPgNamespaceRel), ns, 0, uint32(oidPgExtensionRel), uint32(oidPggraphExtension), 0, "e"}}
	for _, t := range c.userTables() {
		if t.Schema == "graph" && relkindOf(t) == "v" && t.View == nil {
			rows = append(rows, []any{uint32(oidPgClassRel), t.OID, 0, uint32(oidPgExtensionRel), uint32(oidPggraphExtension), 0, "e"})
		}
	}
	return rows
}
