package ddl

import (
	"strings"

	"github.com/pggraph/pggraph/graph"
)

// Temporary tables (docs/architecture.md, "Temporary tables") live in a
// session's own schema pg_temp_N. The planner plans their DDL like any
// other against a catalog that holds the session's temporary entries;
// none of them is ever part of a graph commit (the session keeps them).

// TempSchemaPrefix starts the name of every session's temporary schema.
const TempSchemaPrefix = "pg_temp_"

// IsTempSchema reports a session's temporary schema (pg_temp_N).
func IsTempSchema(name string) bool { return strings.HasPrefix(name, TempSchemaPrefix) }

// tempSchema is the session's temporary schema (the one the search path
// holds), "pg_temp" when it has none (which then does not exist).
func (pc *planCtx) tempSchema() string {
	for _, s := range pc.searchPath() {
		if IsTempSchema(s) {
			return s
		}
	}
	return "pg_temp"
}

// tempSchemaName is the session's temporary schema, "" when it has
// none.
func (pc *planCtx) tempSchemaName() string {
	if s := pc.tempSchema(); s != "pg_temp" {
		return s
	}
	return ""
}

// TempSchema is the change that creates a session's temporary schema
// entry (owned by the bootstrap superuser, as PostgreSQL's are).
func TempSchema(name string, oid uint32) *CreateTable {
	m := TableMeta{Version: metaVersionSchemas, Relkind: RelSchema, Graph: GraphMeta{Kind: graph.RelationTable}, Schema: &SchemaMeta{OID: oid}}
	return &CreateTable{Name: SchemaEntryPrefix + name, Kind: graph.RelationTable, Def: viewDef(m, 0), Meta: m}
}

// TempCatalog is base with extra entries (a session's temporary schema
// and relations) added.
type TempCatalog struct {
	Base  Catalog
	Extra []graph.TableEntry
}

// Table implements Catalog.
func (c TempCatalog) Table(name string) (graph.TableEntry, bool) {
	for _, e := range c.Extra {
		if e.Name == name {
			return e, true
		}
	}
	return c.Base.Table(name)
}

// Tables implements Catalog.
func (c TempCatalog) Tables() []graph.TableEntry {
	return append(c.Base.Tables(), c.Extra...)
}
