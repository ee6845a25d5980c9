package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/exec/lancesrc"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/planner/ddl"
	"github.com/pggraph/pggraph/planner/graphsql"
	"github.com/pggraph/pggraph/wire"
)

// firstUserOID is where PostgreSQL starts user object OIDs; table OIDs are
// derived from the stable table id so they survive renames.
const firstUserOID = 16384

// catKey identifies one immutable snapshot: a catalog built for it never
// goes stale.
type catKey struct {
	branch, incarnation string
	version             uint64
	asOf                bool // built for SET graph.as_of (views of that history)
	// roles is the role catalog version plans were bound with (pg_roles
	// rows are bound into a plan); set by readCatalog, never part of a
	// cached catalog's key.
	roles uint64
	// role is the current role (current_user, pg_has_role's default)
	role string
	// head is the branch head's version under SET graph.as_of once roles
	// exist: the head's grants apply to reads of history too
	// (table_privileges.go), so a plan is checked again when they move
	head uint64
	// txRoles counts the transaction's role statements (roles_txn.go):
	// a plan bound before one of them is bound again
	txRoles int
	// temp is the session's temporary tables' state (temp_tables.go)
	temp uint64
}

// catalog is the exec view of one snapshot.
type catalog struct {
	exec.Catalog
	views  []*exec.TableDef // schema graph
	sn     *graph.Snapshot
	tables map[string]*tableInfo // live user tables by name (SQL views are only in Catalog)
	store  objstore.Store        // the graph root's store (sequence sizes)
	enums  []*exec.EnumDef       // enum types (CREATE TYPE … AS ENUM)
	exts   []exec.ExtensionDef   // created extensions
	graphs []*exec.PropGraphDef  // property graphs (CREATE PROPERTY GRAPH)
	doms   []*exec.DomainDef     // domains (CREATE DOMAIN)
	funcs  []*exec.FuncDef       // user functions (CREATE FUNCTION)
	// schemas are the created schemas (CREATE SCHEMA; public and graph
	// are built in)
	schemas     []ddl.SchemaDef
	execSchemas []exec.SchemaDef // schemas as exec sees them
	// ddlBase is what DDL plans against when it is not the snapshot's
	// catalog (the session's temporary tables added: temp_tables.go)
	ddlBase ddl.Catalog
}

// setSchemas records the created schemas among entries.
func (c *catalog) setSchemas(entries []graph.TableEntry) {
	c.schemas = ddl.SchemaDefs(entries)
	c.execSchemas = nil
	for _, s := range c.schemas {
		c.execSchemas = append(c.execSchemas, exec.SchemaDef{Name: s.Name, OID: s.OID, Owner: s.Owner, Temp: ddl.IsTempSchema(s.Name)})
	}
}

// SchemaDefs implements exec.SchemaCatalog.
func (c *catalog) SchemaDefs() []exec.SchemaDef { return c.execSchemas }

// Schemas implements exec.Catalog: the built-in schemas with relations
// and every created schema, sorted.
func (c *catalog) Schemas() []string {
	out := c.Catalog.Schemas()
	for _, s := range c.schemas {
		if !slices.Contains(out, s.Name) {
			out = append(out, s.Name)
		}
	}
	slices.Sort(out)
	return out
}

// inSchema places a relation whose manifest name is "s.name" in created
// schema s (ddl/schema.go); the definition stays shared with the table
// cache, so it is copied when its schema changes.
func (c *catalog) inSchema(td *exec.TableDef) *exec.TableDef {
	if len(c.schemas) == 0 {
		return td
	}
	schema, _ := ddl.SplitQualified(td.Name, c.hasSchema)
	refs := slices.ContainsFunc(td.ForeignKeys, func(fk exec.ForeignKey) bool {
		s, _ := ddl.SplitQualified(fk.RefTable, c.hasSchema)
		return s != "public"
	})
	if !refs && (schema == td.Schema || (td.Schema == "" && schema == "public")) {
		return td
	}
	cp := *td
	cp.Schema = schema
	// constraint and index names are shown without the schema prefix
	// their storage names carry
	strip := func(n string) string { return strings.TrimPrefix(n, schema+".") }
	if schema != "public" {
		cp.PrimaryKeyName = strip(cp.PrimaryKeyName)
		cp.UniqueNames = slices.Clone(cp.UniqueNames)
		for i := range cp.UniqueNames {
			cp.UniqueNames[i] = strip(cp.UniqueNames[i])
		}
		cp.Checks = slices.Clone(cp.Checks)
		for i := range cp.Checks {
			cp.Checks[i].Name = strip(cp.Checks[i].Name)
		}
		cp.Indexes = slices.Clone(cp.Indexes)
		for i := range cp.Indexes {
			cp.Indexes[i].Name = strip(cp.Indexes[i].Name)
		}
	}
	cp.ForeignKeys = slices.Clone(cp.ForeignKeys)
	for i := range cp.ForeignKeys {
		fk := &cp.ForeignKeys[i]
		if schema != "public" {
			fk.Name = strip(fk.Name)
		}
		if s, n := ddl.SplitQualified(fk.RefTable, c.hasSchema); s != "public" {
			fk.RefSchema, fk.RefTable = s, n
		}
	}
	return &cp
}

// hasSchema reports whether s is a created schema.
func (c *catalog) hasSchema(s string) bool {
	return slices.ContainsFunc(c.schemas, func(d ddl.SchemaDef) bool { return d.Name == s })
}

// Domains implements exec.DomainCatalog.
func (c *catalog) Domains() []*exec.DomainDef { return c.doms }

// Functions implements exec.FunctionCatalog.
func (c *catalog) Functions() []*exec.FuncDef { return c.funcs }

// PropGraphs implements exec.PropGraphCatalog.
func (c *catalog) PropGraphs() []*exec.PropGraphDef { return c.graphs }

// Extensions implements exec.ExtensionCatalog.
func (c *catalog) Extensions() []exec.ExtensionDef { return c.exts }

// Enums implements exec.EnumCatalog.
func (c *catalog) Enums() []*exec.EnumDef { return c.enums }

// markUncommittedLabels sets each enum's Uncommitted labels: those
// neither the snapshot's version of the type nor the transaction's own
// CREATE TYPE had (ALTER TYPE … ADD VALUE in the open transaction).
func markUncommittedLabels(enums, committed []*exec.EnumDef, changes []ddl.Change) {
	for _, d := range enums {
		var base []string
		for _, r := range committed {
			if r.OID == d.OID {
				base = r.Labels
			}
		}
		for _, ch := range changes {
			if c, ok := ch.(*ddl.CreateTable); ok && c.Meta.Enum != nil && c.Meta.Enum.OID == d.OID {
				base = nil
				for _, l := range c.Meta.Enum.Labels {
					base = append(base, l.Label)
				}
			}
		}
		for _, l := range d.Labels {
			if !slices.Contains(base, l) {
				if d.Uncommitted == nil {
					d.Uncommitted = map[string]bool{}
				}
				d.Uncommitted[l] = true
			}
		}
	}
}

// addEnum registers an enum type's entry (e is one when its name has
// ddl.TypeEntryPrefix), a created extension's (ddl.ExtensionEntryPrefix)
// or a property graph's (ddl.PropGraphEntryPrefix) and reports whether it
// was one of them: none is a relation.
func (c *catalog) addEnum(e graph.TableEntry) bool {
	if name, ok := ddl.PropGraphName(e.Name); ok {
		if m, err := ddl.DecodeMeta(e.Name, e.Def); err == nil {
			c.graphs = append(c.graphs, ddl.ExecPropGraph(e, name, m))
		}
		return true
	}
	if name, ok := ddl.FuncName(e.Name); ok {
		if m, err := ddl.DecodeMeta(e.Name, e.Def); err == nil && m.Function != nil {
			c.funcs = append(c.funcs, ddl.ExecFunction(e, name, m))
		}
		return true
	}
	if name, ok := ddl.ExtensionName(e.Name); ok {
		if m, err := ddl.DecodeMeta(e.Name, e.Def); err == nil {
			c.exts = append(c.exts, ddl.ExecExtension(e, name, m))
		}
		return true
	}
	name, ok := ddl.TypeName(e.Name)
	if !ok {
		return false
	}
	if m, err := ddl.DecodeMeta(e.Name, e.Def); err == nil && m.Enum != nil {
		d := ddl.ExecEnum(name, m)
		exec.RegisterEnum(d.OID, d.Name)
		c.enums = append(c.enums, d)
	} else if err == nil && m.Domain != nil {
		d := ddl.ExecDomain(name, m)
		exec.RegisterDomain(d.OID, d.Name, d.Base)
		c.doms = append(c.doms, d)
	}
	return true
}

// tableInfo is one table of a snapshot as the planner writes it.
type tableInfo struct {
	def    *exec.TableDef
	entry  graph.TableEntry
	schema *arrow.Schema  // the stored Arrow schema (what inserts must carry)
	meta   *ddl.TableMeta // nil when the definition's metadata is unreadable
	// sqlDef marks a table read through its SQL metadata with a Lance
	// source (tableDef's first case): its other versions copy def
	// (tableCache.info)
	sqlDef bool
}

// columnTypes lists exec types in preference order; a stored Arrow type
// maps to the first whose Arrow form matches it.
var columnTypes = []exec.Type{
	exec.TInt8, exec.TInt4, exec.TInt2, exec.TFloat8, exec.TFloat4, exec.TBool,
	exec.TText, exec.TBytea, exec.TNumeric, exec.TDate, exec.TTime,
	exec.TTimestamptz, exec.TTimestamp, exec.TInterval, exec.TUUID, exec.TJSONB,
}

// execType maps an Arrow column type to the exec type that reads it.
func execType(dt arrow.DataType) (exec.Type, bool) {
	for _, t := range columnTypes {
		if arrow.TypeEqual(exec.ArrowType(t), dt) {
			return t, true
		}
	}
	switch dt.ID() {
	case arrow.LARGE_STRING:
		return exec.TText, true
	case arrow.LARGE_BINARY:
		return exec.TBytea, true
	}
	return exec.Type{}, false
}

// buildCatalog opens every live table of sn at its pinned version.
func buildCatalog(ctx context.Context, root *graph.Root, sn *graph.Snapshot, views []*exec.TableDef, cache *tableCache) (*catalog, error) {
	mc := exec.NewMemCatalog()
	c := &catalog{Catalog: graphsql.WithViews(mc, views), views: views, sn: sn, tables: map[string]*tableInfo{}, store: root.Store()}
	c.setSchemas(sn.Catalog().Tables())
	for _, e := range sn.Catalog().Tables() {
		if _, ok := ddl.SchemaName(e.Name); ok {
			continue
		}
		if c.addEnum(e) {
			continue
		}
		ti, err := cache.info(ctx, root, e)
		if err != nil {
			return nil, err
		}
		if ti.meta != nil && ti.meta.Relkind == ddl.RelSequence {
			continue
		}
		mc.Add(c.inSchema(ti.def))
		if ti.def.View == nil { // views are relations of the exec catalog, not write targets
			c.tables[e.Name] = ti
		}
	}
	return c, nil
}

// tableCache shares the exec definitions (and their Lance sources, with
// the key indexes they build) of unchanged table versions across
// snapshots and sessions: a commit to one table does not make every
// other table's source start over.
type tableCache struct {
	mu sync.Mutex
	m  map[string]*tableInfo
	// defs holds, per table definition (any version), the last table
	// version built from it: a commit that changed only a table's rows
	// makes its next version's definition a copy of that one with a
	// source on the new version, instead of decoding the SQL metadata
	// again (three JSON decodes and a schema conversion per commit).
	defs map[string]*tableInfo
}

const tableCacheMax = 1024

func (c *tableCache) get(key string) *tableInfo {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[key]
}

func (c *tableCache) put(key string, ti *tableInfo) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= tableCacheMax {
		c.m = map[string]*tableInfo{}
	}
	c.m[key] = ti
	if ti.sqlDef {
		if c.defs == nil || len(c.defs) >= tableCacheMax {
			c.defs = map[string]*tableInfo{}
		}
		c.defs[defCacheKey(key)] = ti
	}
}

// template returns a version built from the definition key names (nil
// when none is cached).
func (c *tableCache) template(key string) *tableInfo {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.defs[defCacheKey(key)]
}

// info returns the (cached) exec definition of one table version.
func (c *tableCache) info(ctx context.Context, root *graph.Root, e graph.TableEntry) (*tableInfo, error) {
	key := tableCacheKey(e)
	if ti := c.get(key); ti != nil {
		return ti, nil
	}
	var ti *tableInfo
	if t := c.template(key); t != nil {
		ds, err := root.OpenTable(ctx, e) // this process's own commit's handle when it has one
		if err != nil {
			return nil, storageFailed(err, "could not open table %q at version %d", e.Name, e.Version)
		}
		// the definition (columns, constraints, metadata) depends only on
		// what the key's hash covers; the source alone is per version
		td := *t.def
		td.Source = lancesrc.New(ds, td.Columns, ddl.LookupColumns(&td))
		ti = &tableInfo{def: &td, entry: e, schema: t.schema, meta: t.meta, sqlDef: true}
	} else {
		td, sqlDef, err := tableDef(ctx, root, e)
		if err != nil {
			return nil, err
		}
		ti = newTableInfo(e, td)
		ti.sqlDef = sqlDef
	}
	c.put(key, ti)
	return ti, nil
}

// tableCacheKey identifies a table version with its definition: the
// definition's part (defCacheKey) first, the version last.
func tableCacheKey(e graph.TableEntry) string {
	def, _ := json.Marshal(e.Def)
	h := fnv.New64a()
	h.Write(def)
	// the OID too: a merge can give a table another OID on the target
	// than on the branch whose entry it copies (graph.TableEntry.OID)
	return fmt.Sprintf("%s|%s|%s|%d|%d|%x|%d", e.Location, e.Branch, e.Name, e.ID, e.RelOID(), h.Sum64(), e.Version)
}

// defCacheKey is a tableCacheKey without its version.
func defCacheKey(key string) string { return key[:strings.LastIndexByte(key, '|')] }

// newTableInfo pairs a table's exec definition with its stored schema and
// SQL metadata.
func newTableInfo(e graph.TableEntry, td *exec.TableDef) *tableInfo {
	schema, _ := e.Def.ArrowSchema()
	ti := &tableInfo{def: td, entry: e, schema: schema}
	if m, err := ddl.DecodeMeta(e.Name, e.Def); err == nil {
		ti.meta = &m
	}
	return ti
}

// sqlTableDef is the exec definition of a table from its SQL metadata
// (exact PostgreSQL types, defaults, constraints), without Source; ok is
// false when the metadata cannot be used (the storage types then rule).
func sqlTableDef(e graph.TableEntry) (*exec.TableDef, bool) {
	td, err := ddl.ExecTable(e)
	if err != nil {
		return nil, false
	}
	m, err := ddl.DecodeMeta(e.Name, e.Def)
	if err != nil {
		return td, true
	}
	// constraint details ExecTable may not carry (yet)
	if m.PrimaryKey != nil && td.PrimaryKeyName == "" {
		td.PrimaryKeyName = m.PrimaryKey.Name
	}
	if len(td.UniqueNames) == 0 {
		for _, u := range m.Uniques {
			td.UniqueNames = append(td.UniqueNames, u.Name)
		}
	}
	if len(td.Checks) == 0 {
		for _, c := range m.Checks {
			td.Checks = append(td.Checks, exec.CheckDef{Name: c.Name, Expr: c.Expr})
		}
	}
	for i := range td.ForeignKeys {
		if td.ForeignKeys[i].OnDelete != exec.RefNoAction || i >= len(m.ForeignKeys) {
			continue
		}
		switch m.ForeignKeys[i].OnDelete {
		case ddl.Restrict:
			td.ForeignKeys[i].OnDelete = exec.RefRestrict
		case ddl.Cascade:
			td.ForeignKeys[i].OnDelete = exec.RefCascade
		case ddl.SetNull:
			td.ForeignKeys[i].OnDelete = exec.RefSetNull
		case ddl.SetDefault:
			td.ForeignKeys[i].OnDelete = exec.RefSetDefault
		}
	}
	return td, true
}

// tableDef builds the exec definition of one table version; sqlDef
// reports one read through its SQL metadata with a Lance source (the
// first case), whose other versions differ only in their source.
func tableDef(ctx context.Context, root *graph.Root, e graph.TableEntry) (_ *exec.TableDef, sqlDef bool, _ error) {
	if td, ok := sqlTableDef(e); ok {
		if td.View != nil {
			return td, false, nil // a view's rows are its query's: nothing to open
		}
		ds, err := root.OpenTable(ctx, e) // this process's own commit's handle when it has one
		if err != nil {
			return nil, false, storageFailed(err, "could not open table %q at version %d", e.Name, e.Version)
		}
		// every UNIQUE / indexed column gets the key-lookup path (the
		// index is shared across versions: exec/lancesrc)
		td.Source = lancesrc.New(ds, td.Columns, ddl.LookupColumns(td))
		return td, true, nil
	}
	schema, err := e.Def.ArrowSchema()
	if err != nil {
		return nil, false, wire.Errorf(pgerr.DataCorrupted, "table %q has an unreadable definition", e.Name).WithDetail(err.Error())
	}
	td := &exec.TableDef{OID: e.RelOID(), Schema: "public", Name: e.Name}
	var unsupported []string
	for i, f := range schema.Fields() {
		t, ok := execType(f.Type)
		if !ok {
			unsupported = append(unsupported, fmt.Sprintf("%s (%s)", f.Name, f.Type))
			t = exec.TText
		}
		notNull := i < len(e.Def.Columns) && !e.Def.Columns[i].Nullable
		td.Columns = append(td.Columns, exec.ColumnDef{Name: f.Name, Type: t, NotNull: notNull})
	}
	for _, k := range e.Def.PrimaryKey {
		if i := slices.IndexFunc(td.Columns, func(c exec.ColumnDef) bool { return c.Name == k }); i >= 0 {
			td.PrimaryKey = append(td.PrimaryKey, i)
		}
	}
	if len(unsupported) > 0 {
		td.Source = failingSource{wire.Errorf(wire.CodeFeatureNotSupported, "reading table %q is not supported yet: column types %v", e.Name, unsupported)}
		return td, false, nil
	}
	ds, err := root.OpenTable(ctx, e) // this process's own commit's handle when it has one
	if err != nil {
		return nil, false, storageFailed(err, "could not open table %q at version %d", e.Name, e.Version)
	}
	td.Source = lancesrc.New(ds, td.Columns, td.PrimaryKey)
	return td, false, nil
}

// failingSource stands for a table the executor cannot read: naming it
// in a query fails with its error; catalog queries still list it.
type failingSource struct{ err error }

func (f failingSource) Scan(context.Context, exec.ScanRequest, func(arrow.RecordBatch, []uint64) error) error {
	return f.err
}
func (failingSource) RowCount() int64 { return 0 }
