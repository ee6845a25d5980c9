package planner

import "slices"

// groupable reports whether a write's changes — an autocommit
// statement's, or an explicit transaction's at COMMIT — may share one
// graph commit with concurrent writes of other sessions
// (adapters.WriteOptions.Group, group commit): adapters admits a member
// only when it inserts in-memory rows and deletes rows by address,
// defers a member inserting a primary key or deleting a row address an
// earlier member of the group claimed, and validates every member
// against the group's base alone. That is sound when nothing else can
// make one member's changes invalid because of another's:
//
//   - no UNIQUE constraint or unique index besides the primary key, and
//     no edge cardinality maximum, on any table the write changes
//     (foreign keys, CHECK, NOT NULL and cardinality minimums are
//     unaffected by other rows being inserted);
//   - a table the write deletes rows from is referenced by no foreign
//     key and counted by no cardinality minimum: another member's
//     probe of a referenced row would not see the delete;
//   - the write holds no table-level FOR UPDATE/SHARE lock, which
//     requires the table unchanged at its commit (another member could
//     change it in the same commit).
//
// The caller adds its isolation level's own condition (SERIALIZABLE
// arbitrates every table it read, which another member of the group
// could change unseen: such a transaction never groups).
func groupable(base *catalog, pend *pendingState) bool {
	if base == nil || pend == nil || len(pend.ddl) > 0 || len(pend.tables) == 0 || len(pend.locks) > 0 {
		return false
	}
	for name, p := range pend.tables {
		ti, ok := base.tables[name]
		if !ok || ti.meta == nil || p.mode != modeRows {
			return false
		}
		m := ti.meta
		if len(m.Uniques) > 0 || m.Graph.MaxOut != nil {
			return false
		}
		for _, ix := range m.Indexes {
			if ix.Unique && !ix.Primary {
				return false
			}
		}
		// adapters claims the keys of the definition's primary key
		if pk := ti.entry.Def.PrimaryKey; (m.PrimaryKey == nil) != (len(pk) == 0) ||
			(m.PrimaryKey != nil && !slices.Equal(m.PrimaryKey.Columns, pk)) {
			return false
		}
		if p.deleted.len() > 0 && (p.mode != modeRows || m.Graph.MinOut != nil || referenced(base, name)) {
			return false
		}
	}
	return true
}

// referenced reports whether a foreign key (an edge's endpoint
// reference included) of any table of c names table name.
func referenced(c *catalog, name string) bool {
	for _, ti := range c.tables {
		if ti.def != nil {
			for _, fk := range ti.def.ForeignKeys {
				if fk.RefTable == name {
					return true
				}
			}
		}
		if ti.meta != nil {
			for _, fk := range ti.meta.ForeignKeys {
				if fk.RefTable == name {
					return true
				}
			}
		}
	}
	return false
}
