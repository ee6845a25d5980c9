package ddl

import (
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/pggraph/pggraph/graph"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
)

// Schemas (CREATE SCHEMA, DROP SCHEMA, ALTER SCHEMA … RENAME TO / OWNER
// TO) and the names of the relations they hold (docs/architecture.md,
// "Schemas").
//
// A schema other than public is one manifest entry, like an enum type:
// its name is SchemaEntryPrefix + the schema's name, its definition the
// view placeholder and its meta (Relkind RelSchema) the namespace OID and
// the owner. So a schema branches, merges and time-travels with the rest
// of the catalog, and is created and dropped in the statement's graph
// commit.
//
// A relation of schema s (tables, views, sequences, indexes) is the
// manifest entry named "s.name" (QualifiedName); public's relations keep
// their bare names. Every name-keyed mechanism (read sets, row locks,
// pending writes, merges, table storage) therefore works unchanged, and
// two schemas may hold relations of the same name. A relation of public
// whose own name contains a dot can collide with that form: such a name
// answers 42P07 like any duplicate.

// RelSchema is the relation kind of a schema's entry.
const RelSchema = "schema"

// SchemaEntryPrefix starts the manifest name of a schema's entry.
const SchemaEntryPrefix = "schema:"

// metaVersionSchemas is the metadata version of schema entries.
const metaVersionSchemas = 6

// SchemaMeta is a schema's definition.
type SchemaMeta struct {
	OID uint32 `json:"oid"`
}

// builtinSchemas exist in every database and are no manifest entries.
var builtinSchemas = []string{"public", "pg_catalog", "information_schema", "pg_toast", "graph"}

// SchemaName returns the schema name of a manifest entry name, and
// whether the entry is a schema's.
func SchemaName(entry string) (string, bool) { return strings.CutPrefix(entry, SchemaEntryPrefix) }

// QualifiedName is the manifest name of relation name in schema (public
// and "" keep the bare name).
func QualifiedName(schema, name string) string {
	if schema == "" || schema == "public" {
		return name
	}
	return schema + "." + name
}

// SplitQualified splits a manifest name into schema and relation name
// when its prefix is one of schemas; otherwise the relation is public's.
func SplitQualified(entry string, schemas func(string) bool) (string, string) {
	if i := strings.IndexByte(entry, '.'); i > 0 && schemas(entry[:i]) {
		return entry[:i], entry[i+1:]
	}
	return "public", entry
}

// schemaEntry resolves a user schema's entry.
func (pc *planCtx) schemaEntry(name string) (graph.TableEntry, TableMeta, bool, error) {
	e, m, ok, err := pc.v.table(SchemaEntryPrefix + name)
	if err != nil || !ok || m.Relkind != RelSchema || m.Schema == nil {
		return graph.TableEntry{}, TableMeta{}, false, err
	}
	return e, m, true, nil
}

// schemaExists reports whether a schema of that name exists (built-in or
// created).
func (pc *planCtx) schemaExists(name string) (bool, error) {
	if slices.Contains(builtinSchemas, name) {
		return true, nil
	}
	_, _, ok, err := pc.schemaEntry(name)
	return ok, err
}

// searchPath is the session's search_path as schema names ("$user"
// resolved), public when the planner was given none.
func (pc *planCtx) searchPath() []string {
	if pc.p.SearchPath == nil {
		return []string{"public"}
	}
	return pc.p.SearchPath
}

// relName resolves the manifest name of an existing relation rv names: a
// qualified name is looked up in its schema (3F000 when the schema does
// not exist), an unqualified one in the first schema of the search path
// that holds it. A name found nowhere is public's (the caller answers
// 42P01 with the name as written).
func (pc *planCtx) relName(rv *q.RangeVar) (string, error) {
	if rv.GetSchemaname() == "pg_temp" {
		// the session's temporary schema (temp.go)
		rv = &q.RangeVar{Catalogname: rv.Catalogname, Schemaname: pc.tempSchema(), Relname: rv.Relname, Inh: rv.Inh,
			Relpersistence: rv.Relpersistence, Alias: rv.Alias, Location: rv.Location}
	}
	if _, err := publicRelName(&q.RangeVar{Catalogname: rv.GetCatalogname(), Schemaname: builtinOnly(rv.GetSchemaname()), Relname: rv.GetRelname()}); err != nil {
		return "", err
	}
	if s := rv.Schemaname; s != "" && s != "public" {
		ok, err := pc.schemaExists(s)
		if err != nil {
			return "", err
		}
		if !ok {
			return "", errorf(CodeInvalidSchemaName, "schema \"%s\" does not exist", s)
		}
		return QualifiedName(s, rv.Relname), nil
	}
	if rv.Schemaname == "" {
		taken, err := pc.v.relationNames()
		if err != nil {
			return "", err
		}
		for _, s := range pc.searchPath() {
			if k := QualifiedName(s, rv.Relname); taken[k] {
				return k, nil
			}
		}
	}
	return rv.Relname, nil
}

// builtinOnly keeps the schema qualifiers publicRelName checks itself.
func builtinOnly(s string) string {
	if s == "pg_catalog" || s == "information_schema" {
		return s
	}
	return ""
}

// createName is the manifest name of a relation a statement creates: in
// the schema rv names, or the first existing schema of the search path
// (3F000 when none), as PostgreSQL chooses the creation namespace.
func (pc *planCtx) createName(rv *q.RangeVar) (string, error) {
	if rv.GetSchemaname() != "" {
		return pc.relName(rv)
	}
	if _, err := publicRelName(rv); err != nil {
		return "", err
	}
	for _, s := range pc.searchPath() {
		if s == "pg_catalog" || s == "information_schema" || IsTempSchema(s) {
			continue
		}
		ok, err := pc.schemaExists(s)
		if err != nil {
			return "", err
		}
		if ok {
			return QualifiedName(s, rv.Relname), nil
		}
	}
	return "", errorf(CodeInvalidSchemaName, "no schema has been selected to create in")
}

// schemaOf is the schema a manifest name's relation lives in.
func (pc *planCtx) schemaOf(entry string) string {
	s, _ := SplitQualified(entry, func(s string) bool {
		ok, _ := pc.schemaExists(s)
		return ok
	})
	return s
}

// shown is a relation's name as messages show it: without the schema
// prefix of a created schema's storage name.
func (pc *planCtx) shown(entry string) string {
	s := pc.schemaOf(entry)
	if s == "public" {
		return entry
	}
	return strings.TrimPrefix(entry, s+".")
}

// createSchema plans CREATE SCHEMA [IF NOT EXISTS] [name] [AUTHORIZATION role].
func (pc *planCtx) createSchema(st *q.CreateSchemaStmt) ([]Change, error) {
	if len(st.SchemaElts) > 0 {
		return nil, notSupported("CREATE SCHEMA with schema elements")
	}
	name := st.Schemaname
	var owner uint32
	if st.Authrole != nil {
		role, oid, err := pc.roleSpec(st.Authrole)
		if err != nil {
			return nil, err
		}
		owner = oid
		if name == "" {
			name = role
		}
	}
	if strings.HasPrefix(name, "pg_") {
		return nil, errorf(pgerr.ReservedName, "unacceptable schema name \"%s\"", name).WithDetail("The prefix \"pg_\" is reserved for system schemas.")
	}
	exists, err := pc.schemaExists(name)
	if err != nil {
		return nil, err
	}
	if exists {
		if st.IfNotExists {
			return []Change{&NoOp{CommandTag: "CREATE SCHEMA", notes: notes{[]*pgerr.Error{notice(CodeDuplicateSchema, "schema \"%s\" already exists, skipping", name)}}}}, nil
		}
		return nil, errorf(CodeDuplicateSchema, "schema \"%s\" already exists", name)
	}
	m := TableMeta{Version: metaVersionSchemas, Relkind: RelSchema, Graph: GraphMeta{Kind: graph.RelationTable}, Schema: &SchemaMeta{OID: pc.schemaOID(name)}, Owner: owner}
	return []Change{&CreateTable{Name: SchemaEntryPrefix + name, Kind: graph.RelationTable, Def: viewDef(m, 0), Meta: m}}, nil
}

// roleSpec resolves AUTHORIZATION's role (the planner's Roles hook; the
// bootstrap superuser when there is none).
func (pc *planCtx) roleSpec(r *q.RoleSpec) (string, uint32, error) {
	name := r.Rolename
	switch r.Roletype {
	case q.RoleSpecType_ROLESPEC_CURRENT_USER, q.RoleSpecType_ROLESPEC_CURRENT_ROLE, q.RoleSpecType_ROLESPEC_SESSION_USER:
		name = pc.p.CurrentUser
	}
	if pc.p.RoleOID == nil {
		return name, 0, nil
	}
	oid, ok := pc.p.RoleOID(name)
	if !ok {
		return "", 0, errorf(CodeUndefinedObject, "role \"%s\" does not exist", name)
	}
	return name, oid, nil
}

// schemaOID picks a new schema's namespace OID: from its name, in the
// range exec reserves for user namespaces, and not one an existing
// schema of this catalog has.
func (pc *planCtx) schemaOID(name string) uint32 {
	used := map[uint32]bool{}
	if es, ms, err := pc.v.all(); err == nil {
		for i := range es {
			if ms[i].Schema != nil {
				used[ms[i].Schema.OID] = true
			}
		}
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	const base, span = 0x3E00_0000, 1 << 20
	oid := base + h.Sum32()%span
	for used[oid] {
		oid = base + (oid-base+1)%span
	}
	return oid
}

// schemaMembers lists the manifest names of the relations (tables,
// views, sequences; not types or graphs) of schema s in creation order
// (PostgreSQL lists dependents in OID order).
func (pc *planCtx) schemaMembers(s string) ([]string, map[string]TableMeta, error) {
	es, ms, err := pc.v.all()
	if err != nil {
		return nil, nil, err
	}
	var out []string
	ids := map[string]uint64{}
	metas := map[string]TableMeta{}
	for i, e := range es {
		if (s == "public" && pc.schemaOf(e.Name) == "public" || strings.HasPrefix(e.Name, s+".")) && !strings.Contains(e.Name, ":") {
			out = append(out, e.Name)
			metas[e.Name] = ms[i]
			ids[e.Name] = uint64(e.RelOID())
			if e.ID == 0 { // created in the open transaction: after the others
				ids[e.Name] = math.MaxUint64
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return ids[out[i]] < ids[out[j]] })
	return out, metas, nil
}

// dropSchemas plans DROP SCHEMA [IF EXISTS] names [CASCADE | RESTRICT].
func (pc *planCtx) dropSchemas(st *q.DropStmt) ([]Change, error) {
	var out []Change
	var ns []*pgerr.Error
	for _, o := range st.Objects {
		n := o.GetString_().GetSval()
		if n == "public" && st.Behavior != q.DropBehavior_DROP_CASCADE {
			// refused while it holds relations, as PostgreSQL would
			members, _, err := pc.schemaMembers(n)
			if err != nil {
				return nil, err
			}
			if len(members) > 0 {
				var deps []string
				for _, k := range members {
					deps = append(deps, pc.kindOf(k)+" "+k)
				}
				return nil, errorf(CodeDependentObjects, "cannot drop schema %s because other objects depend on it", n).
					WithDetail(dependLines(n, deps)).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
			}
		}
		if slices.Contains(builtinSchemas, n) {
			if n == "public" || n == "graph" {
				return nil, notSupported("DROP SCHEMA %s", n)
			}
			return nil, errorf(CodeDependentObjects, "cannot drop schema %s because it is required by the database system", n)
		}
		_, _, ok, err := pc.schemaEntry(n)
		if err != nil {
			return nil, err
		}
		if !ok {
			if !st.MissingOk {
				return nil, errorf(CodeInvalidSchemaName, "schema \"%s\" does not exist", n)
			}
			ns = append(ns, notice(pgerr.SuccessfulCompletion, "schema \"%s\" does not exist, skipping", n))
			continue
		}
		members, metas, err := pc.schemaMembers(n)
		if err != nil {
			return nil, err
		}
		var deps []string
		var tables, views, seqs []string
		for _, k := range members {
			m := metas[k]
			switch m.Relkind {
			case RelView:
				views = append(views, k)
				deps = append(deps, "view "+k)
			case RelSequence:
				seqs = append(seqs, k)
				deps = append(deps, "sequence "+k)
			default:
				tables = append(tables, k)
				deps = append(deps, "table "+k)
			}
		}
		if len(deps) > 0 && st.Behavior != q.DropBehavior_DROP_CASCADE {
			return nil, errorf(CodeDependentObjects, "cannot drop schema %s because other objects depend on it", n).
				WithDetail(dependLines(n, deps)).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
		if len(deps) > 0 {
			ns = append(ns, cascadeNotice(deps))
		}
		// tables first: their drops take the views reading them (in any
		// schema) and their owned sequences along
		sub := &q.DropStmt{Behavior: q.DropBehavior_DROP_CASCADE, MissingOk: true}
		dropped := map[string]bool{}
		for _, part := range []struct {
			names []string
			plan  func(*q.DropStmt, []string) ([]Change, error)
		}{{tables, pc.dropTables}, {views, pc.dropViews}, {seqs, pc.dropSequences}} {
			var left []string
			for _, k := range part.names {
				if !dropped[k] {
					left = append(left, k)
				}
			}
			if len(left) == 0 {
				continue
			}
			chs, err := part.plan(sub, left)
			if err != nil {
				return nil, err
			}
			for _, ch := range chs {
				if _, noop := ch.(*NoOp); noop {
					continue
				}
				if d, ok := ch.(*DropTable); ok {
					dropped[d.Name] = true
				}
				silence(ch)
				out = append(out, ch)
			}
		}
		out = append(out, &DropTable{Name: SchemaEntryPrefix + n, Cascade: st.Behavior == q.DropBehavior_DROP_CASCADE, CommandTag: "DROP SCHEMA"})
	}
	if len(out) == 0 {
		return []Change{&NoOp{CommandTag: "DROP SCHEMA", notes: notes{ns}}}, nil
	}
	// the statement's tag and notices ride on the first change
	out = append([]Change{&NoOp{CommandTag: "DROP SCHEMA", notes: notes{ns}}}, out...)
	return out, nil
}

// kindOf names a relation's kind as dependency messages do.
func (pc *planCtx) kindOf(key string) string {
	_, m, _, _ := pc.v.table(key)
	switch m.Relkind {
	case RelView:
		return "view"
	case RelSequence:
		return "sequence"
	}
	return "table"
}

// silence drops a change's own notices (DROP SCHEMA … CASCADE reports
// what it removes once, for the whole schema).
func silence(ch Change) {
	switch c := ch.(type) {
	case *DropTable:
		c.Notice = nil
	case *AlterTable:
		c.Notice = nil
	}
}

// dependLines is PostgreSQL's DETAIL of a refused DROP: one line per
// dependent object.
func dependLines(schema string, deps []string) string {
	out := make([]string, len(deps))
	for i, d := range deps {
		out[i] = d + " depends on schema " + schema
	}
	return strings.Join(out, "\n")
}

// cascadeNotice is PostgreSQL's NOTICE of a DROP … CASCADE.
func cascadeNotice(deps []string) *pgerr.Error {
	if len(deps) == 1 {
		return notice(pgerr.SuccessfulCompletion, "drop cascades to %s", deps[0])
	}
	lines := make([]string, len(deps))
	for i, d := range deps {
		lines[i] = "drop cascades to " + d
	}
	n := notice(pgerr.SuccessfulCompletion, "drop cascades to %d other objects", len(deps))
	n.Detail = strings.Join(lines, "\n")
	return n
}

// alterSchemaRename plans ALTER SCHEMA name RENAME TO newname: the
// schema's relations are renamed with it.
func (pc *planCtx) alterSchemaRename(st *q.RenameStmt) ([]Change, error) {
	old, nw := st.Subname, st.Newname
	if slices.Contains(builtinSchemas, old) {
		return nil, notSupported("ALTER SCHEMA %s RENAME", old)
	}
	e, m, ok, err := pc.schemaEntry(old)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errorf(CodeInvalidSchemaName, "schema \"%s\" does not exist", old)
	}
	if strings.HasPrefix(nw, "pg_") {
		return nil, errorf(pgerr.ReservedName, "unacceptable schema name \"%s\"", nw).WithDetail("The prefix \"pg_\" is reserved for system schemas.")
	}
	if exists, err := pc.schemaExists(nw); err != nil {
		return nil, err
	} else if exists {
		return nil, errorf(CodeDuplicateSchema, "schema \"%s\" already exists", nw)
	}
	members, metas, err := pc.schemaMembers(old)
	if err != nil {
		return nil, err
	}
	def := e.Def
	def.Extra = m.Encode()
	rename := &AlterTable{Name: e.Name, NewName: SchemaEntryPrefix + nw, Def: def, Meta: m, CommandTag: "ALTER SCHEMA"}
	if len(members) == 0 {
		return []Change{rename}, nil
	}
	return pc.renameSchemaMembers(rename, old, nw, members, metas)
}

// renameSchemaMembers plans the rest of ALTER SCHEMA old RENAME TO nw
// for a schema that holds tables: each moves to its storage name in nw
// (as ALTER TABLE … SET SCHEMA moves one, its indexes and the foreign
// keys naming it following), planned one after the other on an overlay
// of the changes before it. Views, sequences and serial or identity
// columns (whose stored queries and defaults name the schema) and views
// of other schemas reading its tables stay 0A000.
func (pc *planCtx) renameSchemaMembers(rename *AlterTable, old, nw string, members []string, metas map[string]TableMeta) ([]Change, error) {
	refuse := notSupported("ALTER SCHEMA … RENAME TO of a schema that holds views, sequences, serial or identity columns, or tables views read")
	for _, name := range members {
		if metas[name].Relkind != RelTable {
			return nil, refuse
		}
		deps, err := pc.v.viewDependents(name, "", false)
		if err != nil {
			return nil, err
		}
		if len(deps) > 0 {
			return nil, refuse
		}
	}
	saved := pc.v
	defer func() { pc.v = saved }()
	ov := NewOverlay(saved.cat)
	ov.Apply(rename)
	out := []Change{rename}
	move := func(n string) string { return QualifiedName(nw, strings.TrimPrefix(n, old+".")) }
	for _, name := range members {
		pc.v = newView(ov)
		a, found, err := pc.startAlter(name, "ALTER SCHEMA")
		if err != nil {
			return nil, err
		}
		if !found {
			continue
		}
		for _, c := range a.b.cols {
			if c.meta.Sequence != nil {
				return nil, refuse
			}
		}
		m := &a.b.meta
		if m.PrimaryKey != nil {
			m.PrimaryKey.Name = move(m.PrimaryKey.Name)
		}
		for i := range m.Uniques {
			m.Uniques[i].Name = move(m.Uniques[i].Name)
		}
		for i := range m.Indexes {
			m.Indexes[i].Name = move(m.Indexes[i].Name)
		}
		// check and foreign key names carry the schema too
		for i := range m.Checks {
			m.Checks[i].Name = move(m.Checks[i].Name)
		}
		for i := range m.ForeignKeys {
			m.ForeignKeys[i].Name = move(m.ForeignKeys[i].Name)
		}
		if err := a.renameTable(move(name)); err != nil {
			return nil, err
		}
		chs, err := a.changes()
		if err != nil {
			return nil, err
		}
		for _, ch := range chs {
			if at, ok := ch.(*AlterTable); ok {
				at.CommandTag = "ALTER SCHEMA"
			}
		}
		ov.Apply(chs...)
		out = append(out, chs...)
	}
	return out, nil
}

// alterSchemaOwner plans ALTER SCHEMA name OWNER TO role.
func (pc *planCtx) alterSchemaOwner(st *q.AlterOwnerStmt) ([]Change, error) {
	name := st.Object.GetString_().GetSval()
	if slices.Contains(builtinSchemas, name) {
		return []Change{&NoOp{CommandTag: "ALTER SCHEMA"}}, nil
	}
	e, m, ok, err := pc.schemaEntry(name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errorf(CodeInvalidSchemaName, "schema \"%s\" does not exist", name)
	}
	_, oid, err := pc.roleSpec(st.Newowner)
	if err != nil {
		return nil, err
	}
	m = cloneMeta(m)
	m.Owner = oid
	def := e.Def
	def.Extra = m.Encode()
	return []Change{&AlterTable{Name: e.Name, Def: def, Meta: m, CommandTag: "ALTER SCHEMA"}}, nil
}

// SchemaDefs is every created schema of the catalog (name, OID, owner),
// sorted by name.
func SchemaDefs(es []graph.TableEntry) []SchemaDef {
	var out []SchemaDef
	for _, e := range es {
		name, ok := SchemaName(e.Name)
		if !ok {
			continue
		}
		m, err := DecodeMeta(e.Name, e.Def)
		if err != nil || m.Schema == nil {
			continue
		}
		out = append(out, SchemaDef{Name: name, OID: m.Schema.OID, Owner: m.Owner})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// SchemaDef is one created schema.
type SchemaDef struct {
	Name  string
	OID   uint32
	Owner uint32
}

func (d SchemaDef) String() string { return fmt.Sprintf("%s(%d)", d.Name, d.OID) }
