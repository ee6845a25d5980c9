package exec

// Logical replication catalogs: pg_publication, pg_publication_rel,
// pg_publication_tables and pg_replication_slots, filled from the
// root's publications and slots (Session.Replication; none when nil).

// Publication is what pg_publication shows of one publication.
type Publication struct {
	OID                              uint32
	Name, Owner                      string
	AllTables                        bool
	Insert, Update, Delete, Truncate bool
	Tables                           []string // table names (schema public)
}

// ReplicationSlot is what pg_replication_slots shows of one slot.
type ReplicationSlot struct {
	Name, Plugin, Database string
	ActivePID              int32 // 0: not streamed by a session of this process
	ConfirmedFlush         string
}

// ReplicationObjects are a root's publications and slots.
type ReplicationObjects struct {
	Publications []Publication
	Slots        []ReplicationSlot
}

func (c *catalogSet) replication() ReplicationObjects {
	if c.replicationFn == nil {
		return ReplicationObjects{}
	}
	if c.replicationObjs == nil {
		objs := c.replicationFn()
		c.replicationObjs = &objs
	}
	return *c.replicationObjs
}

// publicationTables are the user tables a publication includes.
func (c *catalogSet) publicationTables(p Publication) []*TableDef {
	var out []*TableDef
	for _, t := range c.userTables() {
		if relkindOf(t) != "r" || t.Kind == "sequence" || t.Schema != "public" {
			continue
		}
		if p.AllTables {
			out = append(out, t)
			continue
		}
		for _, n := range p.Tables {
			if n == t.Name {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

func (c *catalogSet) roleOIDOf(name string) uint32 {
	if r := c.roleCatalog().Role(name); r != nil {
		return r.OID
	}
	return oidPostgresRole
}

func init() {
	pgCatalogRels["pg_publication"] = &sysRelation{6104, "oid oid, pubname name, pubowner oid, puballtables bool, pubinsert bool, pubupdate bool, pubdelete bool, pubtruncate bool, pubviaroot bool", func(c *catalogSet) [][]any {
		var rows [][]any
		for _, p := range c.replication().Publications {
			rows = append(rows, []any{p.OID, p.Name, c.roleOIDOf(p.Owner), p.AllTables, p.Insert, p.Update, p.Delete, p.Truncate, false})
		}
		return rows
	}}
	pgCatalogRels["pg_publication_rel"] = &sysRelation{6106, "oid oid, prpubid oid, prrelid oid, prqual pg_node_tree, prattrs int2vector", func(c *catalogSet) [][]any {
		var rows [][]any
		for _, p := range c.replication().Publications {
			if p.AllTables {
				continue // PostgreSQL lists FOR ALL TABLES publications' tables nowhere
			}
			for _, t := range c.publicationTables(p) {
				rows = append(rows, []any{p.OID ^ t.OID, p.OID, t.OID, nil, nil})
			}
		}
		return rows
	}}
	pgCatalogRels["pg_publication_tables"] = &sysRelation{12068, "pubname name, schemaname name, tablename name, attnames name[], rowfilter text", func(c *catalogSet) [][]any {
		var rows [][]any
		for _, p := range c.replication().Publications {
			for _, t := range c.publicationTables(p) {
				names := make([]string, len(t.Columns))
				for i, col := range t.Columns {
					names[i] = col.Name
				}
				rows = append(rows, []any{p.Name, t.Schema, t.RelName(), names, nil})
			}
		}
		return rows
	}}
	pgCatalogRels["pg_replication_slots"] = &sysRelation{12257, "slot_name name, plugin name, slot_type text, datoid oid, database name, temporary bool, active bool, active_pid int4, xmin xid, catalog_xmin xid, restart_lsn pg_lsn, confirmed_flush_lsn pg_lsn, wal_status text, safe_wal_size int8, two_phase bool", func(c *catalogSet) [][]any {
		var rows [][]any
		for _, s := range c.replication().Slots {
			var pid any
			if s.ActivePID != 0 {
				pid = s.ActivePID
			}
			rows = append(rows, []any{s.Name, s.Plugin, "logical", oidDatabase, s.Database, false, s.ActivePID != 0, pid, nil, nil,
				s.ConfirmedFlush, s.ConfirmedFlush, "reserved", nil, false})
		}
		return rows
	}}
}
