package planner

import "slices"

// groupable reports whether an autocommit statement's changes may share
// one graph commit with concurrent statements of other sessions
// (adapters.WriteOptions.Group, group commit): adapters admits a member
// only when it inserts in-memory rows and nothing else, checks primary
// keys across the group, and validates every member against the group's
// base alone. That is sound when nothing but the primary key can make
// one insert invalid because of another: no UNIQUE constraint or unique
// index besides the primary key, and no edge cardinality maximum, on
// any table the statement writes (foreign keys, CHECK, NOT NULL and
// cardinality minimums are unaffected by other rows being inserted).
func groupable(base *catalog, pend *pendingState) bool {
	if base == nil || pend == nil || len(pend.ddl) > 0 || len(pend.tables) == 0 {
		return false
	}
	for name := range pend.tables {
		ti, ok := base.tables[name]
		if !ok || ti.meta == nil {
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
	}
	return true
}
