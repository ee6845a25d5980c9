package planner

import "slices"

// groupable reports whether an autocommit statement's changes may share
// one graph commit with concurrent statements of other sessions
// (adapters.WriteOptions.Group, group commit): adapters admits a member
// only when it inserts in-memory rows and deletes rows by address,
// checks primary keys and deleted rows across the group, and validates
// every member against the group's base alone. That is sound when
// nothing but the primary key can make one member's change invalid
// because of another's:
//
//   - inserts: no UNIQUE constraint or unique index besides the primary
//     key, and no edge cardinality maximum, on any table the statement
//     writes (foreign keys, CHECK, NOT NULL and cardinality minimums are
//     unaffected by other rows being inserted);
//   - deletes (DELETE, UPDATE): besides, no foreign key (an edge's
//     endpoints are foreign keys) references a table the statement
//     deletes from, and that table bounds no out-degree, so no other
//     member's row depends on a row this one removes, and no two members
//     can each remove a row a minimum still counted. Two members never
//     remove one row: row locks serialize them, and adapters defers the
//     second if they meet.
//
// TRUNCATE and DDL never group.
func groupable(base *catalog, pend *pendingState) bool {
	if base == nil || pend == nil || len(pend.ddl) > 0 || len(pend.tables) == 0 {
		return false
	}
	for name, pt := range pend.tables {
		ti, ok := base.tables[name]
		if !ok || ti.meta == nil || pt.mode != modeRows {
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
		if len(pt.deleted) > 0 && (m.Graph.MinOut != nil || referenced(base, ti)) {
			return false
		}
	}
	return true
}

// referenced reports whether a foreign key of any table in the catalog
// (ti itself included) references ti.
func referenced(base *catalog, ti *tableInfo) bool {
	for _, child := range base.tables {
		for _, fk := range child.def.ForeignKeys {
			if fk.RefTable == ti.def.Name {
				return true
			}
		}
	}
	return false
}
