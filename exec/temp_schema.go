package exec

import "strings"

// A session's temporary schema (pg_temp_N, SchemaDef.Temp): PostgreSQL
// searches it before every schema of search_path unless the path names
// pg_temp (or the schema itself) somewhere, where it is then searched
// instead; its relations are relpersistence 't'.

// tempSchema is the session's temporary schema, "" when it has none.
func (c *catalogSet) tempSchema() string {
	for _, d := range c.schemaDefs() {
		if d.Temp {
			return d.Name
		}
	}
	return ""
}

// lookupPath is the search path unqualified relation names resolve
// through: search_path with the temporary schema placed (WithTempSchema).
func (c *catalogSet) lookupPath() []string {
	path, _ := settingValue(c.setting, "search_path")
	return WithTempSchema(SearchPath(path, c.user_), c.tempSchema())
}

// WithTempSchema places a session's temporary schema temp in path as
// PostgreSQL searches it: where the path names pg_temp (or temp), else
// first. Without one, pg_temp names nothing and is dropped.
func WithTempSchema(path []string, temp string) []string {
	out := make([]string, 0, len(path)+1)
	named := false
	for _, s := range path {
		if s == "pg_temp" || (temp != "" && s == temp) {
			if temp != "" && !named {
				out = append(out, temp)
			}
			named = true
			continue
		}
		out = append(out, s)
	}
	if temp != "" && !named {
		out = append([]string{temp}, out...)
	}
	return out
}

// relPersistence is pg_class.relpersistence of a user relation of
// schema.
func relPersistence(schema string) string {
	if strings.HasPrefix(schema, "pg_temp_") {
		return "t"
	}
	return "p"
}

// RegisterTempNames makes regnamespace print a session's temporary
// schema and regclass its relations: unqualified, as PostgreSQL prints a
// relation its search path finds (the temporary schema is searched
// first).
func RegisterTempNames(nsOID uint32, ns string, defs []*TableDef) {
	rememberRegName(OIDRegnamespace, nsOID, quoteIdent(ns))
	for _, t := range defs {
		rememberRegName(OIDRegclass, t.OID, quoteIdent(t.RelName()))
	}
}
