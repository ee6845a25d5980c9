package exec

import (
	"fmt"
	"github.com/pggraph/pggraph/access"
	"sort"
	"strings"
	"time"
)

// System catalogs: pg_catalog and information_schema relations generated
// from the user Catalog on first reference in a statement, with real
// PostgreSQL OIDs for built-in objects, and evaluated by the same engine as
// user tables (they are ordinary MemTables).
//
// OIDs: tables carry the OID their Catalog gives them; the primary-key
// index, its constraint and other constraints get OIDs derived from the
// table OID (see conOID) so they are stable for a catalog version.

const (
	oidPostgresRole = 10
	// oidDatabase is the OID of the session's database (its branch):
	// 16384, the first OID PostgreSQL gives a database created by a user
	// (template1, template0 and postgres have 1, 4 and 5). Tools treat
	// databases below 16384 as the system's — pgAdmin 4's browser hides
	// them unless they are named postgres — and pggraph's databases are
	// the user's. Only one database is visible to a session, so branches
	// sharing the OID never meet in one catalog.
	oidDatabase = 16384
	oidHeapAM   = 2
)

// sysSpec is a compact column list: "name type, name type, ...".
func sysCols(spec string) []ColumnDef {
	var out []ColumnDef
	for _, part := range strings.Split(spec, ",") {
		f := strings.Fields(part)
		name, tn := f[0], strings.Join(f[1:], " ")
		var t Type
		switch tn {
		case "char":
			t = TChar
		case "text[]":
			t = Type{1009, -1}
		case "aclitem[]":
			t = Type{OIDAclitemArray, -1}
		case "char[]":
			t = Type{1002, -1}
		case "pg_node_tree":
			t = Type{OIDPgNodeTree, -1}
		case "int2[]":
			t = Type{1005, -1}
		case "oid[]":
			t = Type{1028, -1}
		case "name[]":
			t = Type{1003, -1}
		case "int2vector":
			t = Type{OIDInt2Vector, -1}
		case "anyarray":
			t = Type{OIDAnyArray, -1}
		case "oidvector":
			t = Type{OIDOidVector, -1}
		// information_schema domains describe as their base types on the wire
		case "sql_identifier":
			t = TName
		case "cardinal_number":
			t = TInt4
		case "character_data":
			t = TVarchar
		case "yes_or_no":
			t = Type{OIDVarchar, 7}
		case "time_stamp":
			t = TTimestamptz
		default:
			t = Type{typeNames[tn], -1}
			if t.OID == 0 {
				t.OID = catalogTypeByName(tn)
			}
		}
		out = append(out, ColumnDef{Name: name, Type: t})
	}
	return out
}

// catalogTypeByName finds a catalog-only type (no SQL spelling, e.g.
// pg_ndistinct) by its typname; 0 when there is none.
func catalogTypeByName(name string) uint32 {
	for oid, ti := range typeInfos {
		if ti.name == name {
			return oid
		}
	}
	return 0
}

// sysRelation is one generated relation.
type sysRelation struct {
	oid  uint32
	cols string
	rows func(c *catalogSet) [][]any
}

// liveRels are the system relations (sessions, locks) read at every
// scan, not when the statement is prepared: a prepared monitoring query
// executed again sees the current sessions.
var liveRels = map[*sysRelation]bool{}

var pgCatalogRels = map[string]*sysRelation{}
var infoSchemaRels = map[string]*sysRelation{}

// system resolves pg_catalog / information_schema relations.
func (c *catalogSet) system(schema, name string) *TableDef {
	var rel *sysRelation
	switch schema {
	case "", "pg_catalog":
		rel = pgCatalogRels[name]
	case "information_schema":
		rel = infoSchemaRels[name]
	}
	if rel == nil {
		return nil
	}
	key := schema + "." + name
	if c.sys == nil {
		c.sys = map[string]*TableDef{}
	}
	if td, ok := c.sys[key]; ok {
		return td
	}
	cols := sysCols(rel.cols)
	build := func() *MemTable {
		rows := rel.rows(c)
		vecs := make([]*Vec, len(cols))
		for i, cd := range cols {
			vecs[i] = NewVec(cd.Type, len(rows))
			for r, row := range rows {
				setSysValue(vecs[i], r, row[i])
			}
		}
		return MemTableFromVecs(cols, vecs)
	}
	ns := "pg_catalog"
	if schema == "information_schema" {
		ns = schema
	}
	var src TableSource
	if liveRels[rel] {
		src = &liveSource{build: build}
	} else {
		src = build()
	}
	td := &TableDef{OID: rel.oid, Schema: ns, Name: name, Columns: cols, Source: src}
	c.sys[key] = td
	rememberRegName(OIDRegclass, rel.oid, name)
	return td
}

func setSysValue(v *Vec, r int, x any) {
	switch y := x.(type) {
	case nil:
		v.SetNull(r)
	case int:
		v.I[r] = int64(y)
	case uint32:
		v.I[r] = int64(y)
	case int16:
		v.I[r] = int64(y)
	case int32:
		v.I[r] = int64(y)
	case int64:
		v.I[r] = y
	case float64:
		v.F[r] = y
	case bool:
		v.B[r] = y
	case time.Time: // timestamptz
		v.I[r] = y.UnixMicro()
	case string:
		if v.T.Kind() == KStr {
			v.S[r] = y
		} else {
			_ = parseText(v, r, y, nil)
		}
	case []int16:
		items := NewVec(TInt2, len(y))
		for i, n := range y {
			items.I[i] = int64(n)
		}
		v.A[r] = &Array{Elem: TInt2, Items: items, vector: v.T.OID == OIDInt2Vector}
	case []uint32:
		items := NewVec(TOid, len(y))
		for i, n := range y {
			items.I[i] = int64(n)
		}
		v.A[r] = &Array{Elem: TOid, Items: items, vector: v.T.OID == OIDOidVector}
	case []string:
		et := v.T.Elem() // text[], name[] or "char"[]
		if !v.T.IsArray() {
			et = TText
		}
		items := NewVec(et, len(y))
		copy(items.S, y)
		v.A[r] = &Array{Elem: et, Items: items}
	}
}

// userTables lists every user table with its namespace OID.
func (c *catalogSet) userTables() []*TableDef {
	if c.user == nil {
		return nil
	}
	var out []*TableDef
	for _, s := range c.user.Schemas() {
		out = append(out, c.user.Tables(s)...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].OID < out[j].OID })
	return out
}

func (c *catalogSet) nsOID(schema string) uint32 {
	for _, ns := range c.namespaces() {
		if ns.name == schema {
			return ns.oid
		}
	}
	return oidPublic
}

// conOID derives constraint/index OIDs from the table OID: 64 slots per
// table, numbered in constraints() order, so they are stable for a
// catalog version.
func conOID(table uint32, k int) uint32 { return 1_000_000 + table*64 + uint32(k%64) }

// attrdefOID derives a column default's OID (its own range).
func attrdefOID(table uint32, col int) uint32 { return 0x8000_0000 + table*1600 + uint32(col) }

// constraint is a derived constraint or index row. kind: p u f c, or i
// for an index that is not a constraint (oid is 0 then).
type constraint struct {
	oid, index uint32
	name       string
	kind       byte
	unique     bool     // kind i: CREATE UNIQUE INDEX
	method     string   // kind i: the access method ("" = btree)
	where      string   // kind i: a partial index's predicate
	exprs      []string // kind i: expression keys (index_exprs.go)
	table      *TableDef
	cols       []int
	fk         *ForeignKey
	check      string
}

// accessMethod names an index's access method.
func (k constraint) accessMethod() string {
	if k.method == "" {
		return "btree"
	}
	return k.method
}

// accessMethodOID is pg_class.relam of an index: the pg_am row of its
// method, 0 for a method pg_am does not list (pgvector's hnsw).
func (k constraint) accessMethodOID() uint32 {
	for _, a := range pgAMFacts() {
		if a.name == k.accessMethod() {
			return a.oid
		}
	}
	return 0
}

// hasIndex reports whether a constraint kind owns an index relation.
func (k constraint) hasIndex() bool { return k.kind == 'p' || k.kind == 'u' || k.kind == 'i' }

func (c *catalogSet) constraints() []constraint {
	var out []constraint
	for _, t := range c.userTables() {
		slot := 0
		next := func() uint32 { slot++; return conOID(t.OID, slot-1) }
		if len(t.PrimaryKey) > 0 {
			name := t.PrimaryKeyName
			if name == "" {
				name = t.RelName() + "_pkey"
			}
			ix := next()
			out = append(out, constraint{oid: next(), index: ix, name: name, kind: 'p', table: t, cols: t.PrimaryKey, unique: true})
		}
		for i, u := range t.Unique {
			name := ""
			if i < len(t.UniqueNames) {
				name = t.UniqueNames[i]
			}
			if name == "" {
				names := make([]string, len(u))
				for k, ci := range u {
					names[k] = t.Columns[ci].Name
				}
				name = t.RelName() + "_" + strings.Join(names, "_") + "_key"
			}
			ix := next()
			out = append(out, constraint{oid: next(), index: ix, name: name, kind: 'u', table: t, cols: u, unique: true})
		}
		for i := range t.ForeignKeys {
			fk := &t.ForeignKeys[i]
			name := fk.Name
			if name == "" {
				name = t.RelName() + "_" + t.Columns[fk.Columns[0]].Name + "_fkey"
			}
			out = append(out, constraint{oid: next(), name: name, kind: 'f', table: t, cols: fk.Columns, fk: fk})
		}
		for _, ck := range t.Checks {
			out = append(out, constraint{oid: next(), name: ck.Name, kind: 'c', table: t, check: ck.Expr})
		}
		for _, ix := range t.Indexes {
			out = append(out, constraint{index: next(), name: ix.Name, kind: 'i', table: t, cols: ix.Columns, unique: ix.Unique, method: ix.Method, where: ix.Where, exprs: ix.Exprs})
		}
	}
	return out
}

func attnums(cols []int) []int16 {
	out := make([]int16, len(cols))
	for i, c := range cols {
		out[i] = int16(c + 1)
	}
	return out
}

func (c *catalogSet) constraintDef(k constraint, pretty bool) string {
	names := make([]string, len(k.cols))
	for i, ci := range k.cols {
		names[i] = quoteIdent(k.table.Columns[ci].Name)
	}
	switch k.kind {
	case 'p':
		return "PRIMARY KEY (" + strings.Join(names, ", ") + ")"
	case 'u':
		return "UNIQUE (" + strings.Join(names, ", ") + ")"
	case 'c':
		if e, ok := checkDefinition(k.check, k.table, pretty); ok {
			return "CHECK (" + e + ")"
		}
		e := checkExprText(k.check)
		if pretty && strings.HasPrefix(e, "(") {
			// the pretty form drops the outermost parentheses
			e = e[1 : len(e)-1]
		}
		return "CHECK (" + e + ")"
	}
	ref := make([]string, len(k.fk.RefColumns))
	for i, r := range k.fk.RefColumns {
		ref[i] = quoteIdent(r)
	}
	def := "FOREIGN KEY (" + strings.Join(names, ", ") + ") REFERENCES " + quoteIdent(k.fk.RefTable) + "(" + strings.Join(ref, ", ") + ")"
	if a := k.fk.OnUpdate.SQL(); a != "" {
		def += " ON UPDATE " + a
	}
	if a := k.fk.OnDelete.SQL(); a != "" {
		def += " ON DELETE " + a
	}
	return def
}

// checkExprText renders a CHECK expression as pg_get_constraintdef does
// for the common shapes: an operator expression gets one pair of
// parentheses, a bare column or function call none.
func checkExprText(expr string) string {
	e := strings.TrimSpace(expr)
	if e == "" {
		return "true"
	}
	if strings.HasPrefix(e, "(") && strings.HasSuffix(e, ")") && balancedOuter(e) {
		return e
	}
	simple := true
	for _, r := range e {
		if !(r == '_' || r == '.' || r == '"' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			simple = false
			break
		}
	}
	if simple {
		return e
	}
	return "(" + e + ")"
}

// balancedOuter reports whether the first "(" closes at the last ")".
func balancedOuter(e string) bool {
	depth, inStr := 0, false
	for i, r := range e {
		switch {
		case r == '\'':
			inStr = !inStr
		case inStr:
		case r == '(':
			depth++
		case r == ')':
			depth--
			if depth == 0 && i != len(e)-1 {
				return false
			}
		}
	}
	return depth == 0
}

// indexDef is pg_get_indexdef's text; pretty leaves the predicate
// unparenthesized as psql's \d shows it, pg_dump's form has parentheses.
func (c *catalogSet) indexDef(k constraint, pretty bool) string {
	names := make([]string, len(k.cols))
	for i := range k.cols {
		names[i] = k.keyText(i, pretty)
	}
	schema := k.table.Schema
	if schema == "" {
		schema = "public"
	}
	create := "CREATE INDEX "
	if k.unique {
		create = "CREATE UNIQUE INDEX "
	}
	def := create + quoteIdent(k.name) + " ON " + quoteIdent(schema) + "." + quoteIdent(k.table.RelName()) + " USING " + k.accessMethod() + " (" + strings.Join(names, ", ") + ")"
	switch {
	case k.where == "":
	default:
		def += " WHERE " + indexPredText(k.where, k.table, pretty)
	}
	return def
}

func boolYN(b bool) string {
	if b {
		return "YES"
	}
	return "NO"
}

func init() {
	pgCatalogRels["pg_namespace"] = &sysRelation{2615, "oid oid, nspname name, nspowner oid, nspacl aclitem[]", func(c *catalogSet) [][]any {
		var rows [][]any
		for _, ns := range c.namespaces() {
			owner := uint32(oidPostgresRole)
			if ns.name == "public" {
				owner = oidDatabaseOwnerRole
			}
			for _, d := range c.schemaDefs() {
				if d.Name == ns.name {
					owner = access.OwnerOID(d.Owner)
				}
			}
			rows = append(rows, []any{ns.oid, ns.name, owner, c.namespaceACL(ns.name)})
		}
		return rows
	}}
	pgCatalogRels["pg_attribute"] = &sysRelation{1249, "attrelid oid, attname name, atttypid oid, attstattarget int4, attlen int2, attnum int2, attndims int4, attcacheoff int4, atttypmod int4, attbyval bool, attalign char, attstorage char, attcompression char, attnotnull bool, atthasdef bool, atthasmissing bool, attidentity char, attgenerated char, attisdropped bool, attislocal bool, attinhcount int4, attcollation oid, attacl aclitem[], attoptions text[], attfdwoptions text[], attmissingval anyarray", func(c *catalogSet) [][]any {
		var rows [][]any
		row := func(rel uint32, name string, typ Type, num int16, notNull, hasDef bool, ident string, coll uint32, acl any) {
			ndims := 0
			if typ.IsArray() {
				ndims = 1
			}
			l := layoutOf(typ.OID)
			rows = append(rows, []any{rel, name, typ.OID, -1, l.len, num, ndims, -1, typ.Mod, l.byVal, l.align, l.storage, "",
				notNull, hasDef, false, ident, "", false, true, 0, coll, acl, nil, nil, nil})
		}
		// tableoid, the one system column relations have here (attnum
		// -6 as in PostgreSQL)
		sysColumn := func(rel uint32) { row(rel, TableOIDColumn, TOid, -6, true, false, "", 0, nil) }
		add := func(rel uint32, cols []ColumnDef, notnullPK map[int]bool) {
			for i, col := range cols {
				t := col.Type
				coll := typeCollation(t)
				ident := ""
				if col.Identity != 0 {
					ident = string(rune(col.Identity))
				}
				if col.Domain != 0 {
					t = Type{OID: col.Domain, Mod: -1} // domains.go
				}
				row(rel, col.Name, t, int16(i+1), col.NotNull || notnullPK[i], col.Default != "" && col.Identity == 0, ident, coll, c.columnACL(col))
			}
		}
		for _, t := range c.userTables() {
			pk := map[int]bool{}
			for _, k := range t.PrimaryKey {
				pk[k] = true
			}
			if relkindOf(t) != "v" {
				sysColumn(t.OID)
			}
			add(t.OID, t.Columns, pk)
		}
		// a sequence relation's columns (what SELECT * FROM seq shows)
		seqCols := []ColumnDef{{Name: "last_value", Type: TInt8, NotNull: true}, {Name: "log_cnt", Type: TInt8, NotNull: true}, {Name: "is_called", Type: TBool, NotNull: true}}
		for _, sq := range c.sequences() {
			sysColumn(sq.OID)
			add(sq.OID, seqCols, nil)
		}
		for _, k := range c.constraints() {
			if !k.hasIndex() {
				continue
			}
			cols := make([]ColumnDef, len(k.cols))
			for i := range k.cols {
				cols[i] = k.keyColumn(i)
			}
			add(k.index, cols, nil)
		}
		// the generated catalogs: PostgreSQL's own column lists
		for _, r := range providedRelations() {
			f := pgRelFacts()[r.schema+"."+r.name]
			if f == nil {
				continue
			}
			if f.relkind == 'r' {
				sysColumn(f.oid)
			}
			for i, col := range f.cols {
				row(f.oid, col.name, Type{col.typ, col.typmod}, int16(i+1), col.notNull, false, "", col.collation, nil)
			}
		}
		return rows
	}}
	pgCatalogRels["pg_attrdef"] = &sysRelation{2604, "oid oid, adrelid oid, adnum int2, adbin pg_node_tree", func(c *catalogSet) [][]any {
		var rows [][]any
		for _, t := range c.userTables() {
			for i, col := range t.Columns {
				if col.Default != "" && col.Identity == 0 {
					rows = append(rows, []any{attrdefOID(t.OID, i), t.OID, int16(i + 1), c.qualifyEnumCasts(col.Default)})
				}
			}
		}
		return rows
	}}
	pgCatalogRels["pg_description"] = &sysRelation{2609, "objoid oid, classoid oid, objsubid int4, description text", func(c *catalogSet) [][]any {
		var rows [][]any
		for _, d := range pgDescriptionFacts() {
			rows = append(rows, []any{d.objoid, d.classoid, d.objsubid, d.text})
		}
		for _, e := range c.enums() {
			if e.Comment != "" {
				rows = append(rows, []any{e.OID, oidPgTypeRel, 0, e.Comment})
			}
		}
		for _, d := range c.domains() {
			if d.Comment != "" {
				rows = append(rows, []any{d.OID, oidPgTypeRel, 0, d.Comment})
			}
		}
		for _, t := range c.userTables() {
			if t.Comment != "" {
				rows = append(rows, []any{t.OID, 1259, 0, t.Comment})
			}
			for i, col := range t.Columns {
				if col.Comment != "" {
					rows = append(rows, []any{t.OID, 1259, i + 1, col.Comment})
				}
			}
		}
		return rows
	}}
	pgCatalogRels["pg_database"] = &sysRelation{1262, "oid oid, datname name, datdba oid, encoding int4, datlocprovider char, datistemplate bool, datallowconn bool, datconnlimit int4, datfrozenxid xid, datminmxid xid, dattablespace oid, datcollate text, datctype text, daticulocale text, datcollversion text, datacl aclitem[]", func(c *catalogSet) [][]any {
		var acl any
		if items, changed := c.roleCatalog().BranchACL(c.database()); changed {
			acl = c.roleCatalog().ACLText(items)
		}
		return [][]any{{oidDatabase, c.database(), oidPostgresRole, encodingUTF8, "c", false, true, -1, 716, 1, oidDefaultTablespace, "C", "C", nil, nil, acl}}
	}}
	pgCatalogRels["pg_roles"] = &sysRelation{12000, "rolname name, rolsuper bool, rolinherit bool, rolcreaterole bool, rolcreatedb bool, rolcanlogin bool, rolreplication bool, rolconnlimit int4, rolpassword text, rolvaliduntil timestamptz, rolbypassrls bool, rolconfig text[], oid oid", (*catalogSet).rolesRows}
	pgCatalogRels["pg_user"] = &sysRelation{12014, "usename name, usesysid oid, usecreatedb bool, usesuper bool, userepl bool, usebypassrls bool, passwd text, valuntil timestamptz, useconfig text[]", (*catalogSet).userRows}
	pgCatalogRels["pg_collation"] = &sysRelation{3456, "oid oid, collname name, collnamespace oid, collowner oid, collprovider char, collisdeterministic bool, collencoding int4, collcollate text, collctype text, colliculocale text, collversion text", func(c *catalogSet) [][]any {
		return [][]any{{100, "default", oidPgCatalog, oidPostgresRole, "d", true, -1, nil, nil, nil, nil}, {950, "C", oidPgCatalog, oidPostgresRole, "c", true, -1, "C", "C", nil, nil}, {951, "POSIX", oidPgCatalog, oidPostgresRole, "c", true, -1, "POSIX", "POSIX", nil, nil}}
	}}
	pgCatalogRels["pg_enum"] = &sysRelation{3501, "oid oid, enumtypid oid, enumsortorder float4, enumlabel name", (*catalogSet).enumRows}
	pgCatalogRels["pg_range"] = &sysRelation{3541, "rngtypid oid, rngsubtype oid, rngmultitypid oid, rngcollation oid, rngsubopc oid, rngcanonical regproc, rngsubdiff regproc", func(*catalogSet) [][]any { return nil }}
	pgCatalogRels["pg_inherits"] = &sysRelation{2611, "inhrelid oid, inhparent oid, inhseqno int4, inhdetachpending bool", func(*catalogSet) [][]any { return nil }}
	pgCatalogRels["pg_trigger"] = &sysRelation{2620, "oid oid, tgrelid oid, tgparentid oid, tgname name, tgfoid oid, tgtype int2, tgenabled char, tgisinternal bool, tgconstrrelid oid, tgconstrindid oid, tgconstraint oid, tgdeferrable bool, tginitdeferred bool, tgnargs int2, tgattr int2vector, tgargs bytea, tgqual pg_node_tree, tgoldtable name, tgnewtable name", triggerRows}
	pgCatalogRels["pg_rewrite"] = &sysRelation{2618, "oid oid, rulename name, ev_class oid, ev_type char, ev_enabled char, is_instead bool, ev_qual pg_node_tree, ev_action pg_node_tree", (*catalogSet).viewRewriteRows}
	pgCatalogRels["pg_policy"] = &sysRelation{3256, "oid oid, polname name, polrelid oid, polcmd char, polpermissive bool, polroles oid[], polqual pg_node_tree, polwithcheck pg_node_tree", func(*catalogSet) [][]any { return nil }}
	pgCatalogRels["pg_statistic_ext"] = &sysRelation{3381, "oid oid, stxrelid oid, stxname name, stxnamespace oid, stxowner oid, stxstattarget int4, stxkeys int2vector, stxkind char[], stxexprs pg_node_tree", func(*catalogSet) [][]any { return nil }}
	pgCatalogRels["pg_extension"] = &sysRelation{3079, "oid oid, extname name, extowner oid, extnamespace oid, extrelocatable bool, extversion text, extconfig oid[], extcondition text[]", func(c *catalogSet) [][]any {
		return append(append([][]any{{oidPlpgsqlExtension, "plpgsql", oidPostgresRole, oidPgCatalog, false, "1.0", nil, nil}}, c.pggraphExtensionRows()...), c.extensionRows()...)
	}}
	pgCatalogRels["pg_tables"] = &sysRelation{12033, "schemaname name, tablename name, tableowner name, tablespace name, hasindexes bool, hasrules bool, hastriggers bool, rowsecurity bool", func(c *catalogSet) [][]any {
		// tables only (views are in pg_views); hastriggers as relhastriggers
		// (foreign keys are triggers in PostgreSQL)
		fkTriggers := map[uint32]bool{}
		for _, k := range c.constraints() {
			if k.kind == 'f' {
				fkTriggers[k.table.OID] = true
				if rt := c.table(k.fk.RefSchema, k.fk.RefTable); rt != nil {
					fkTriggers[rt.OID] = true
				}
			}
		}
		var rows [][]any
		for _, t := range c.userTables() {
			if relkindOf(t) != "r" || t.Kind == "sequence" {
				continue
			}
			rows = append(rows, []any{t.Schema, t.RelName(), c.ownerName(t), nil, hasIndexes(t), false, fkTriggers[t.OID], false})
		}
		return rows
	}}
	pgCatalogRels["pg_views"] = &sysRelation{12028, "schemaname name, viewname name, viewowner name, definition text", func(c *catalogSet) [][]any {
		// SQL views, and pggraph's graph.* views (whose definition is not
		// SQL text: NULL, as pg_get_viewdef)
		var rows [][]any
		for _, t := range c.userTables() {
			if relkindOf(t) == "v" {
				rows = append(rows, []any{t.Schema, t.RelName(), c.ownerName(t), viewDefinitionOf(t)})
			}
		}
		return rows
	}}
	pgCatalogRels["pg_matviews"] = &sysRelation{12038, "schemaname name, matviewname name, matviewowner name, tablespace name, hasindexes bool, ispopulated bool, definition text", func(*catalogSet) [][]any { return nil }}
	pgCatalogRels["pg_indexes"] = &sysRelation{12043, "schemaname name, tablename name, indexname name, tablespace name, indexdef text", func(c *catalogSet) [][]any {
		var rows [][]any
		for _, k := range c.constraints() {
			if k.hasIndex() {
				rows = append(rows, []any{k.table.Schema, k.table.RelName(), k.name, nil, c.indexDef(k, false)})
			}
		}
		return rows
	}}

	// information_schema
	infoSchemaRels["schemata"] = &sysRelation{13382, "catalog_name sql_identifier, schema_name sql_identifier, schema_owner sql_identifier, default_character_set_catalog sql_identifier, default_character_set_schema sql_identifier, default_character_set_name sql_identifier, sql_path character_data", func(c *catalogSet) [][]any {
		var rows [][]any
		for _, ns := range c.namespaces() {
			rows = append(rows, []any{c.database(), ns.name, c.userName(), nil, nil, nil, nil})
		}
		return rows
	}}
	infoSchemaRels["tables"] = &sysRelation{13425, "table_catalog sql_identifier, table_schema sql_identifier, table_name sql_identifier, table_type character_data, self_referencing_column_name sql_identifier, reference_generation character_data, user_defined_type_catalog sql_identifier, user_defined_type_schema sql_identifier, user_defined_type_name sql_identifier, is_insertable_into yes_or_no, is_typed yes_or_no, commit_action character_data", func(c *catalogSet) [][]any {
		var rows [][]any
		for _, t := range c.userTables() {
			typ, insertable := viewTableType(t)
			rows = append(rows, []any{c.database(), t.Schema, t.RelName(), typ, nil, nil, nil, nil, nil, insertable, "NO", nil})
		}
		return rows
	}}
	infoSchemaRels["views"] = &sysRelation{13483, "table_catalog sql_identifier, table_schema sql_identifier, table_name sql_identifier, view_definition character_data, check_option character_data, is_updatable yes_or_no, is_insertable_into yes_or_no, is_trigger_updatable yes_or_no, is_trigger_deletable yes_or_no, is_trigger_insertable_into yes_or_no", (*catalogSet).infoSchemaViewRows}
	infoSchemaRels["table_constraints"] = &sysRelation{13411, "constraint_catalog sql_identifier, constraint_schema sql_identifier, constraint_name sql_identifier, table_catalog sql_identifier, table_schema sql_identifier, table_name sql_identifier, constraint_type character_data, is_deferrable yes_or_no, initially_deferred yes_or_no, enforced yes_or_no, nulls_distinct yes_or_no", func(c *catalogSet) [][]any {
		var rows [][]any
		for _, k := range c.constraints() {
			if k.kind == 'i' {
				continue
			}
			typ := map[byte]string{'p': "PRIMARY KEY", 'u': "UNIQUE", 'f': "FOREIGN KEY", 'c': "CHECK"}[k.kind]
			var nd any
			if k.kind == 'u' {
				nd = "YES" // UNIQUE only (NULLS DISTINCT)
			}
			rows = append(rows, []any{c.database(), k.table.Schema, k.name, c.database(), k.table.Schema, k.table.RelName(), typ, "NO", "NO", "YES", nd})
		}
		for _, nn := range c.notNullConstraints() {
			rows = append(rows, []any{c.database(), nn.table.Schema, nn.name, c.database(), nn.table.Schema, nn.table.RelName(), "CHECK", "NO", "NO", "YES", nil})
		}
		return rows
	}}
	infoSchemaRels["check_constraints"] = &sysRelation{13260, "constraint_catalog sql_identifier, constraint_schema sql_identifier, constraint_name sql_identifier, check_clause character_data", func(c *catalogSet) [][]any {
		var rows [][]any
		for _, k := range c.constraints() {
			if k.kind == 'c' {
				rows = append(rows, []any{c.database(), k.table.Schema, k.name, strings.TrimPrefix(c.constraintDef(k, false), "CHECK ")})
			}
		}
		for _, nn := range c.notNullConstraints() {
			rows = append(rows, []any{c.database(), nn.table.Schema, nn.name, nn.table.Columns[nn.col].Name + " IS NOT NULL"})
		}
		return rows
	}}
	infoSchemaRels["constraint_column_usage"] = &sysRelation{13300, "table_catalog sql_identifier, table_schema sql_identifier, table_name sql_identifier, column_name sql_identifier, constraint_catalog sql_identifier, constraint_schema sql_identifier, constraint_name sql_identifier", func(c *catalogSet) [][]any {
		var rows [][]any
		for _, k := range c.constraints() {
			t, cols := k.table, k.cols
			switch k.kind {
			case 'i':
				continue
			case 'c':
				cols = checkColumns(t, k.check)
			case 'f':
				// a foreign key uses the referenced columns
				rt := c.table(k.fk.RefSchema, k.fk.RefTable)
				if rt == nil {
					continue
				}
				t, cols = rt, nil
				for _, rc := range k.fk.RefColumns {
					for i, col := range rt.Columns {
						if col.Name == rc {
							cols = append(cols, i)
						}
					}
				}
			}
			for _, ci := range cols {
				rows = append(rows, []any{c.database(), t.Schema, t.RelName(), t.Columns[ci].Name, c.database(), k.table.Schema, k.name})
			}
		}
		return rows
	}}
	infoSchemaRels["key_column_usage"] = &sysRelation{13329, "constraint_catalog sql_identifier, constraint_schema sql_identifier, constraint_name sql_identifier, table_catalog sql_identifier, table_schema sql_identifier, table_name sql_identifier, column_name sql_identifier, ordinal_position cardinal_number, position_in_unique_constraint cardinal_number", func(c *catalogSet) [][]any {
		var rows [][]any
		for _, k := range c.constraints() {
			if k.kind == 'i' || k.kind == 'c' {
				continue
			}
			for i, ci := range k.cols {
				var pos any
				if k.kind == 'f' {
					pos = i + 1
				}
				rows = append(rows, []any{c.database(), k.table.Schema, k.name, c.database(), k.table.Schema, k.table.RelName(), k.table.Columns[ci].Name, i + 1, pos})
			}
		}
		return rows
	}}
	infoSchemaRels["referential_constraints"] = &sysRelation{13339, "constraint_catalog sql_identifier, constraint_schema sql_identifier, constraint_name sql_identifier, unique_constraint_catalog sql_identifier, unique_constraint_schema sql_identifier, unique_constraint_name sql_identifier, match_option character_data, update_rule character_data, delete_rule character_data", func(c *catalogSet) [][]any {
		var rows [][]any
		for _, k := range c.constraints() {
			if k.kind != 'f' {
				continue
			}
			ref, refSchema := any(nil), any(nil)
			for _, r := range c.constraints() {
				if r.hasIndex() && r.kind != 'i' && r.index == c.refIndex(k.fk) {
					ref, refSchema = r.name, r.table.Schema
				}
			}
			rows = append(rows, []any{c.database(), k.table.Schema, k.name, c.database(), refSchema, ref, "NONE", ruleName(k.fk.OnUpdate), ruleName(k.fk.OnDelete)})
		}
		return rows
	}}
}

// notNull is a NOT NULL column as information_schema shows it: a CHECK
// constraint named <namespace oid>_<table oid>_<attnum>_not_null.
type notNull struct {
	table *TableDef
	col   int
	name  string
}

func (c *catalogSet) notNullConstraints() []notNull {
	var out []notNull
	for _, t := range c.userTables() {
		if t.Kind == "view" || t.Kind == "sequence" {
			continue
		}
		pk := map[int]bool{}
		for _, k := range t.PrimaryKey {
			pk[k] = true
		}
		for i, col := range t.Columns {
			if col.NotNull || pk[i] {
				out = append(out, notNull{table: t, col: i, name: fmt.Sprintf("%d_%d_%d_not_null", c.nsOID(t.Schema), t.OID, i+1)})
			}
		}
	}
	return out
}

// schemaName is a TableDef schema with "" meaning public.
func schemaName(s string) string {
	if s == "" {
		return "public"
	}
	return s
}

func sortedKeys(m map[string]*sysRelation) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// hasIndexes reports whether a table has any index (pg_class.relhasindex).
func hasIndexes(t *TableDef) bool {
	return len(t.PrimaryKey) > 0 || len(t.Unique) > 0 || len(t.Indexes) > 0
}

// refIndex finds the unique index a foreign key references (0 if none).
func (c *catalogSet) refIndex(fk *ForeignKey) uint32 {
	rt := c.table(fk.RefSchema, fk.RefTable)
	if rt == nil {
		return 0
	}
	for _, k := range c.constraints() {
		if k.table != rt || !k.hasIndex() || !k.unique || len(k.cols) != len(fk.RefColumns) {
			continue
		}
		match := true
		for i, ci := range k.cols {
			match = match && rt.Columns[ci].Name == fk.RefColumns[i]
		}
		if match {
			return k.index
		}
	}
	return 0
}

// ruleName is information_schema's spelling of a referential action.
func ruleName(a RefAction) string {
	if s := a.SQL(); s != "" {
		return s
	}
	return "NO ACTION"
}

// typStorage is pg_type.typstorage: fixed-size types are plain, numeric
// main, other varlena types extended.
func typStorage(oid uint32) string {
	ti, ok := typeInfos[oid]
	switch {
	case !ok && IsEnumOID(oid) && oid%2 == 0:
		return "p" // an enum: 4 bytes by value (enums.go)
	case !ok:
		return "x"
	case oid == OIDNumeric:
		return "m"
	case ti.len > 0 || ti.len == -2:
		return "p"
	}
	return "x"
}

// infoDomainBase is the base type and typmod of an information_schema
// domain.
func infoDomainBase(oid uint32) (uint32, int32) {
	switch oid {
	case OIDCardinalNumber:
		return OIDInt4, -1
	case OIDCharacterData:
		return OIDVarchar, -1
	case OIDSQLIdentifier:
		return OIDName, -1
	case OIDTimeStamp:
		return OIDTimestamptz, 2
	case OIDYesOrNo:
		return OIDVarchar, 3 + 4
	}
	return 0, -1
}

// typDefault is pg_type.typdefault (only information_schema.time_stamp has one).
func typDefault(oid uint32) any {
	if oid == OIDTimeStamp {
		return "CURRENT_TIMESTAMP(2)"
	}
	return nil
}

// defaultSettings are the server settings the catalogs and
// current_setting report when the session has no value of its own.
var defaultSettings = []struct{ name, val, typ string }{
	{"server_version", ServerVersion, "string"}, {"server_version_num", "150000", "integer"}, {"server_encoding", "UTF8", "string"},
	{"client_encoding", "UTF8", "string"}, {"DateStyle", "ISO, MDY", "string"}, {"IntervalStyle", "postgres", "enum"},
	{"TimeZone", "UTC", "string"}, {"integer_datetimes", "on", "bool"}, {"standard_conforming_strings", "on", "bool"},
	{"search_path", "\"$user\", public", "string"}, {"max_identifier_length", "63", "integer"}, {"lc_collate", "C", "string"},
	{"lc_ctype", "C", "string"}, {"default_transaction_isolation", "read committed", "enum"}, {"max_connections", "100", "integer"},
	{"transaction_isolation", "read committed", "enum"}, {"default_transaction_read_only", "off", "bool"},
	{"transaction_read_only", "off", "bool"}, {"block_size", "8192", "integer"}, {"max_index_keys", "32", "integer"},
	{"application_name", "", "string"}, {"extra_float_digits", "1", "integer"}, {"bytea_output", "hex", "enum"},
	{"lc_messages", "C", "string"}, {"lc_monetary", "C", "string"}, {"lc_numeric", "C", "string"}, {"lc_time", "C", "string"},
	{"statement_timeout", "0", "integer"}, {"lock_timeout", "0", "integer"}, {"idle_in_transaction_session_timeout", "0", "integer"},
	{"is_superuser", "on", "bool"}, {"in_hot_standby", "off", "bool"},
}

// settingValue resolves a setting (case-insensitively) from the session,
// then the defaults.
func settingValue(session func(string) (string, bool), name string) (string, bool) {
	if session != nil {
		if v, ok := session(name); ok {
			return v, true
		}
		if v, ok := session(strings.ToLower(name)); ok {
			return v, true
		}
	}
	for _, s := range defaultSettings {
		if strings.EqualFold(s.name, name) {
			return s.val, true
		}
	}
	return "", false
}

// namespaceACL is a built-in schema's nspacl as a fresh PostgreSQL 15
// database has it: its owner may use and create in it, everyone may use
// it (pg_toast and the user schemas have no ACL, i.e. the defaults).
func (c *catalogSet) namespaceACL(name string) any {
	owner := c.userName() // the role with OID 10
	switch name {
	case "public":
		return c.schemaACLText(name) // schema_privileges.go
	case "pg_catalog", "information_schema":
		return []string{owner + "=UC/" + owner, "=U/" + owner}
	}
	if d, ok := c.createdSchema(name); ok {
		return c.createdSchemaACLText(d) // schema_privileges.go
	}
	return nil
}

// relOptions is a relation's pg_class.reloptions (NULL when it has none).
func relOptions(t *TableDef) any {
	if len(t.Options) == 0 {
		return nil
	}
	return t.Options
}

// providedRel is one generated catalog relation.
type providedRel struct {
	schema, name string
	rel          *sysRelation
}

// providedRelations lists the generated catalog relations, pg_catalog's
// first, each sorted by name.
func providedRelations() []providedRel {
	var out []providedRel
	for _, n := range sortedKeys(pgCatalogRels) {
		out = append(out, providedRel{"pg_catalog", n, pgCatalogRels[n]})
	}
	for _, n := range sortedKeys(infoSchemaRels) {
		out = append(out, providedRel{"information_schema", n, infoSchemaRels[n]})
	}
	return out
}

// wireType is the type a catalog column of PostgreSQL type oid has in the
// engine: information_schema's domains are their base types on the wire
// (as RowDescription reports them).
func wireType(oid uint32) Type {
	if base, mod := infoDomainBase(oid); base != 0 {
		if oid == OIDYesOrNo {
			return Type{base, mod}
		}
		return Type{base, -1}
	}
	return Type{oid, -1}
}
