package exec

import "strings"

// pg_depend and the table row types.
//
// pg_depend is generated from the catalog with PostgreSQL's deptype rules
// for the objects pggraph has:
//   - a table, view or sequence depends on its schema ('n');
//   - a table's row type depends on the table ('i'), the row type's array
//     type on the row type ('i');
//   - a constraint depends on its columns ('a'; a CHECK without column
//     references on the table), a foreign key also on the referenced
//     columns and the referenced unique index ('n');
//   - a PRIMARY KEY / UNIQUE index depends on its constraint ('i'), a
//     plain index on its columns ('a');
//   - a column default depends on its column ('a'), and on a sequence it
//     calls nextval on ('n');
//   - a serial column's sequence depends on the column ('a'), an identity
//     column's ('i') — psql's "Owned by" and pg_get_serial_sequence read
//     this;
//   - the built-in plpgsql extension owns its language and handler
//     functions ('e', PostgreSQL's own rows) — psql's \dx+ lists them.

// Catalog relation OIDs used as classid/refclassid.
const (
	oidPgClassRel      = 1259
	oidPgTypeRel       = 1247
	oidPgConstraintRel = 2606
	oidPgAttrdefRel    = 2604
	oidPgNamespaceRel  = 2615
)

// rowTypeOID is the OID of a relation's row type; +1 is its array type.
func rowTypeOID(rel uint32) uint32 { return 0x4000_0000 + rel*2 }

// hasRowType reports whether a relation kind has a row type (tables and
// views do, indexes and sequences do not).
func hasRowType(t *TableDef) bool { return t.Kind != "sequence" }

// rowTypeRows are the pg_type rows of the user tables' row types and
// their array types (column order as the pg_type relation's).
func (c *catalogSet) rowTypeRows() [][]any {
	var rows [][]any
	in, out, recv, send := procOIDOr0("record_in"), procOIDOr0("record_out"), procOIDOr0("record_recv"), procOIDOr0("record_send")
	ain, aout, arecv, asend := procOIDOr0("array_in"), procOIDOr0("array_out"), procOIDOr0("array_recv"), procOIDOr0("array_send")
	sub := procOIDOr0("array_subscript_handler")
	for _, t := range c.userTables() {
		if !hasRowType(t) {
			continue
		}
		ns, oid := c.nsOID(t.Schema), rowTypeOID(t.OID)
		rows = append(rows, []any{oid, t.RelName(), ns, oidPostgresRole, int16(-1), false, "c", "C", false, true, ",", t.OID, 0, 0, oid + 1,
			in, out, recv, send, 0, 0, 0, "d", "x", false, 0, -1, 0, 0, nil, nil, nil})
		rows = append(rows, []any{oid + 1, "_" + t.RelName(), ns, oidPostgresRole, int16(-1), false, "b", "A", false, true, ",", 0, sub, oid, 0,
			ain, aout, arecv, asend, 0, 0, 0, "d", "x", false, 0, -1, 0, 0, nil, nil, nil})
	}
	return rows
}

func procOIDOr0(name string) uint32 {
	oid, _ := procOID(name)
	return oid
}

// dependRows generates pg_depend.
func (c *catalogSet) dependRows() [][]any {
	var rows [][]any
	dep := func(classid, objid uint32, objsub int, refclass, refobj uint32, refsub int, deptype string) {
		rows = append(rows, []any{classid, objid, objsub, refclass, refobj, refsub, deptype})
	}
	// the built-in extension's objects (plpgsql's language and handlers)
	for _, m := range pgExtensionMembers() {
		dep(m.classid, m.objid, int(m.objsubid), m.refclassid, m.refobj, int(m.refsubid), "e")
	}
	seqByName := map[string]*SequenceDef{}
	for _, s := range c.sequences() {
		seqByName[s.schema()+"."+s.Name] = s
		dep(oidPgClassRel, s.OID, 0, oidPgNamespaceRel, c.nsOID(s.schema()), 0, "n")
	}
	schemaOf := func(t *TableDef) string {
		if t.Schema == "" {
			return "public"
		}
		return t.Schema
	}
	for _, t := range c.userTables() {
		dep(oidPgClassRel, t.OID, 0, oidPgNamespaceRel, c.nsOID(t.Schema), 0, "n")
		if hasRowType(t) {
			dep(oidPgTypeRel, rowTypeOID(t.OID), 0, oidPgClassRel, t.OID, 0, "i")
			dep(oidPgTypeRel, rowTypeOID(t.OID)+1, 0, oidPgTypeRel, rowTypeOID(t.OID), 0, "i")
		}
		for i, col := range t.Columns {
			if col.OwnedSequence != "" {
				if s := seqByName[schemaOf(t)+"."+col.OwnedSequence]; s != nil {
					kind := "a"
					if col.Identity != 0 {
						kind = "i"
					}
					dep(oidPgClassRel, s.OID, 0, oidPgClassRel, t.OID, i+1, kind)
				}
			}
			if col.Default == "" || col.Identity != 0 {
				continue
			}
			ad := attrdefOID(t.OID, i)
			dep(oidPgAttrdefRel, ad, 0, oidPgClassRel, t.OID, i+1, "a")
			if name, ok := nextvalTarget(col.Default); ok {
				schema := schemaOf(t)
				if k := strings.Index(name, "."); k >= 0 {
					schema, name = name[:k], name[k+1:]
				}
				if s := seqByName[schema+"."+name]; s != nil {
					dep(oidPgAttrdefRel, ad, 0, oidPgClassRel, s.OID, 0, "n")
				}
			}
		}
	}
	for _, k := range c.constraints() {
		t := k.table
		switch k.kind {
		case 'p', 'u':
			dep(oidPgClassRel, k.index, 0, oidPgConstraintRel, k.oid, 0, "i")
		case 'i':
			for _, ci := range k.plainCols() {
				dep(oidPgClassRel, k.index, 0, oidPgClassRel, t.OID, ci+1, "a")
			}
			continue
		}
		cols := k.cols
		if k.kind == 'c' {
			cols = checkColumns(t, k.check)
			if len(cols) == 0 {
				dep(oidPgConstraintRel, k.oid, 0, oidPgClassRel, t.OID, 0, "a")
			}
		}
		for _, ci := range cols {
			dep(oidPgConstraintRel, k.oid, 0, oidPgClassRel, t.OID, ci+1, "a")
		}
		if k.kind == 'c' {
			// the CHECK expression's column references, as for any stored
			// expression
			for _, ci := range cols {
				dep(oidPgConstraintRel, k.oid, 0, oidPgClassRel, t.OID, ci+1, "n")
			}
		}
		if k.kind == 'f' {
			rt := c.table(k.fk.RefSchema, k.fk.RefTable)
			if rt == nil {
				continue
			}
			if ix := c.refIndex(k.fk); ix != 0 {
				dep(oidPgConstraintRel, k.oid, 0, oidPgClassRel, ix, 0, "n")
			}
			for _, rc := range k.fk.RefColumns {
				for i, col := range rt.Columns {
					if col.Name == rc {
						dep(oidPgConstraintRel, k.oid, 0, oidPgClassRel, rt.OID, i+1, "n")
					}
				}
			}
		}
	}
	return rows
}

// nextvalTarget extracts the sequence name of a "nextval('name'::regclass)"
// default (as the catalog stores serial and identity defaults).
func nextvalTarget(def string) (string, bool) {
	d := strings.TrimSpace(def)
	if !strings.HasPrefix(d, "nextval('") {
		return "", false
	}
	rest := d[len("nextval('"):]
	end := strings.Index(rest, "'")
	if end < 0 {
		return "", false
	}
	name := rest[:end]
	parts := strings.Split(name, ".")
	for i, p := range parts {
		parts[i] = unquoteIdent(p)
	}
	return strings.Join(parts, "."), true
}

func init() {
	// pg_stat_user_tables: Metabase reads n_live_tup as a row estimate;
	// write counters come from this process's statements, scans and
	// maintenance are not counted (0, times NULL)
	pgCatalogRels["pg_stat_user_tables"] = &sysRelation{12161, "relid oid, schemaname name, relname name, seq_scan int8, seq_tup_read int8, idx_scan int8, idx_tup_fetch int8, n_tup_ins int8, n_tup_upd int8, n_tup_del int8, n_tup_hot_upd int8, n_live_tup int8, n_dead_tup int8, n_mod_since_analyze int8, n_ins_since_vacuum int8, last_vacuum timestamptz, last_autovacuum timestamptz, last_analyze timestamptz, last_autoanalyze timestamptz, vacuum_count int8, autovacuum_count int8, analyze_count int8, autoanalyze_count int8", func(c *catalogSet) [][]any {
		var rows [][]any
		for _, t := range c.userTables() {
			if relkindOf(t) != "r" || t.Kind == "sequence" {
				continue
			}
			var idx any
			if hasIndexes(t) {
				idx = 0
			}
			rows = append(rows, tableStatsRow(c, t, idx))
		}
		return rows
	}}
	// shared and security catalogs pggraph has nothing for (no comments
	// on databases or roles, no labels):
	// PostgreSQL's columns, no rows
	none := func(*catalogSet) [][]any { return nil }
	pgCatalogRels["pg_shdescription"] = &sysRelation{2396, "objoid oid, classoid oid, description text", none}
	pgCatalogRels["pg_shdepend"] = &sysRelation{1214, "dbid oid, classid oid, objid oid, objsubid int4, refclassid oid, refobjid oid, deptype char", none}
	pgCatalogRels["pg_default_acl"] = &sysRelation{826, "oid oid, defaclrole oid, defaclnamespace oid, defaclobjtype char, defaclacl aclitem[]", (*catalogSet).defaultACLRows}
	// pg_init_privs: the privileges initdb gives pg_catalog and public,
	// as PostgreSQL 15 records them; pg_dump dumps a schema's ACL as its
	// difference from these (none for an unchanged pg_catalog)
	pgCatalogRels["pg_init_privs"] = &sysRelation{3394, "objoid oid, classoid oid, objsubid int4, privtype char, initprivs aclitem[]", func(c *catalogSet) [][]any {
		owner := c.userName() // the bootstrap superuser, OID 10
		return [][]any{
			{c.nsOID("pg_catalog"), uint32(oidPgNamespaceRel), 0, "i", []string{owner + "=UC/" + owner, "=U/" + owner}},
			{c.nsOID("public"), uint32(oidPgNamespaceRel), 0, "i", []string{"pg_database_owner=UC/pg_database_owner", "=U/pg_database_owner"}},
		}
	}}
	pgCatalogRels["pg_seclabel"] = &sysRelation{3596, "objoid oid, classoid oid, objsubid int4, provider text, label text", none}
	pgCatalogRels["pg_shseclabel"] = &sysRelation{3592, "objoid oid, classoid oid, provider text, label text", none}
	pgCatalogRels["pg_depend"] = &sysRelation{2608, "classid oid, objid oid, objsubid int4, refclassid oid, refobjid oid, refobjsubid int4, deptype char", func(c *catalogSet) [][]any {
		return append(append(c.dependRows(), c.viewDependRows()...), c.pggraphExtensionDepends()...)
	}}
}
