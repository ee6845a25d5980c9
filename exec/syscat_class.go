package exec

import "github.com/pggraph/pggraph/access"

// pgClassRow is one row of pg_class (typedRelation: the fields are the
// columns in PostgreSQL 15's order).
type pgClassRow struct {
	OID                 uint32  `pg:"oid oid"`
	RelName             string  `pg:"relname name"`
	RelNamespace        uint32  `pg:"relnamespace oid"`
	RelType             uint32  `pg:"reltype oid"`
	RelOfType           uint32  `pg:"reloftype oid"`
	RelOwner            uint32  `pg:"relowner oid"`
	RelAM               uint32  `pg:"relam oid"`
	RelFileNode         uint32  `pg:"relfilenode oid"`
	RelTablespace       uint32  `pg:"reltablespace oid"`
	RelPages            int32   `pg:"relpages int4"`
	RelTuples           float64 `pg:"reltuples float4"`
	RelAllVisible       int32   `pg:"relallvisible int4"`
	RelToastRelID       uint32  `pg:"reltoastrelid oid"`
	RelHasIndex         bool    `pg:"relhasindex bool"`
	RelIsShared         bool    `pg:"relisshared bool"`
	RelPersistence      string  `pg:"relpersistence char"`
	RelKind             string  `pg:"relkind char"`
	RelNatts            int16   `pg:"relnatts int2"`
	RelChecks           int16   `pg:"relchecks int2"`
	RelHasRules         bool    `pg:"relhasrules bool"`
	RelHasTriggers      bool    `pg:"relhastriggers bool"`
	RelHasSubclass      bool    `pg:"relhassubclass bool"`
	RelRowSecurity      bool    `pg:"relrowsecurity bool"`
	RelForceRowSecurity bool    `pg:"relforcerowsecurity bool"`
	RelIsPopulated      bool    `pg:"relispopulated bool"`
	RelReplIdent        string  `pg:"relreplident char"`
	RelIsPartition      bool    `pg:"relispartition bool"`
	RelRewrite          uint32  `pg:"relrewrite oid"`
	RelFrozenXID        uint32  `pg:"relfrozenxid xid"`
	RelMinMXID          uint32  `pg:"relminmxid xid"`
	RelACL              any     `pg:"relacl aclitem[]"`
	RelOptions          any     `pg:"reloptions text[]"`
	RelPartBound        any     `pg:"relpartbound pg_node_tree"`
}

// storageless is a pg_class row of a relation without storage of its
// own (sequences, property graphs, indexes, generated catalogs here):
// the columns every such row shares.
func storageless(oid uint32, name string, ns, owner uint32, persistence, kind string, natts int16) pgClassRow {
	return pgClassRow{OID: oid, RelName: name, RelNamespace: ns, RelOwner: owner,
		RelPersistence: persistence, RelKind: kind, RelNatts: natts, RelIsPopulated: true, RelReplIdent: "n"}
}

func init() {
	pgCatalogRels["pg_class"] = typedRelation(1259, (*catalogSet).pgClassRows)
}

func (c *catalogSet) pgClassRows() []pgClassRow {
	var rows []pgClassRow
	// PostgreSQL implements foreign keys with (internal) triggers on
	// both tables; psql prints FK sections only when relhastriggers
	fkTriggers := map[uint32]bool{}
	for _, k := range c.constraints() {
		if k.kind == 'f' {
			fkTriggers[k.table.OID] = true
			if rt := c.table(k.fk.RefSchema, k.fk.RefTable); rt != nil {
				fkTriggers[rt.OID] = true
			}
		}
	}
	for _, t := range c.userTables() {
		rows = append(rows, c.tableClassRow(t, fkTriggers[t.OID]))
	}
	for _, s := range c.sequences() {
		r := storageless(s.OID, s.relName(), c.nsOID(s.schema()), access.OwnerOID(s.Owner), relPersistence(s.schema()), "S", 3)
		r.RelFileNode, r.RelPages, r.RelTuples, r.RelACL = s.OID, 1, 1, c.seqACL(s)
		rows = append(rows, r)
	}
	for _, g := range c.propGraphs() { // relkind 'g', no storage (propgraph.go)
		rows = append(rows, storageless(g.OID, g.Name, c.nsOID(g.Schema), access.OwnerOID(g.Owner), "p", "g", 0))
	}
	for _, k := range c.constraints() {
		if !k.hasIndex() {
			continue
		}
		rememberIndexName(k)
		r := storageless(k.index, k.name, c.nsOID(k.table.Schema), oidPostgresRole, relPersistence(k.table.Schema), "i", int16(len(k.cols)))
		r.RelAM, r.RelFileNode, r.RelPages = k.accessMethodOID(), k.index, 1
		rows = append(rows, r)
	}
	// the generated catalogs, as PostgreSQL's pg_class has them
	// (views relkind 'v', shared catalogs in pg_global)
	for _, rel := range providedRelations() {
		kind, am, rules, shared, space := "r", uint32(oidHeapAM), false, false, uint32(0)
		if f := pgRelFacts()[rel.schema+"."+rel.name]; f != nil {
			kind, shared, space = string(f.relkind), f.shared, f.tablespace
		}
		if kind == "v" {
			am, rules = 0, true // a view is its ON SELECT rule
		}
		r := storageless(rel.rel.oid, rel.name, nspOID(rel.schema), oidPostgresRole, "p", kind, int16(len(sysCols(rel.rel.cols))))
		r.RelAM, r.RelTablespace, r.RelIsShared, r.RelHasRules = am, space, shared, rules
		rows = append(rows, r)
	}
	return rows
}

// tableClassRow is the pg_class row of a user table or view.
func (c *catalogSet) tableClassRow(t *TableDef, hasTriggers bool) pgClassRow {
	n := t.Source.RowCount()
	r := pgClassRow{OID: t.OID, RelName: t.RelName(), RelNamespace: c.nsOID(t.Schema), RelOwner: relOwner(t),
		RelAM: oidHeapAM, RelFileNode: t.OID, RelPages: int32(max(n/100, 0)), RelTuples: float64(n),
		RelHasIndex: hasIndexes(t), RelPersistence: relPersistence(t.Schema), RelKind: relkindOf(t),
		RelNatts: int16(len(t.Columns)), RelChecks: int16(len(t.Checks)), RelHasTriggers: hasTriggers,
		RelIsPopulated: true, RelReplIdent: "d", RelFrozenXID: 716, RelMinMXID: 1,
		RelACL: c.relACL(t), RelOptions: relOptions(t)}
	if hasRowType(t) {
		r.RelType = rowTypeOID(t.OID)
	}
	if r.RelKind == "v" { // a view has no storage; it is its ON SELECT rule
		r.RelAM, r.RelFileNode, r.RelPages, r.RelTuples = 0, 0, 0, -1
		r.RelHasIndex, r.RelHasRules, r.RelReplIdent = false, t.View != nil, "n"
	}
	return r
}
