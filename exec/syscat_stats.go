package exec

// pg_stats shows the statistics ANALYZE collected (stats.go) as
// PostgreSQL 15's view does: one row per analyzed column of a user table,
// the most common values and histogram bounds as arrays of the column's
// type in text form (anyarray), no element statistics (array columns'
// most_common_elems stay NULL). pg_statistic holds the same numbers in
// PostgreSQL's slots: most common values (kind 1, the type's =
// operator), histogram (kind 2, its < operator) and correlation (kind 3),
// in that order, with the column's collation.
func init() {
	pgCatalogRels["pg_statistic"] = &sysRelation{2619, "starelid oid, staattnum int2, stainherit bool, stanullfrac float4, stawidth int4, stadistinct float4, stakind1 int2, stakind2 int2, stakind3 int2, stakind4 int2, stakind5 int2, staop1 oid, staop2 oid, staop3 oid, staop4 oid, staop5 oid, stacoll1 oid, stacoll2 oid, stacoll3 oid, stacoll4 oid, stacoll5 oid, stanumbers1 _float4, stanumbers2 _float4, stanumbers3 _float4, stanumbers4 _float4, stanumbers5 _float4, stavalues1 anyarray, stavalues2 anyarray, stavalues3 anyarray, stavalues4 anyarray, stavalues5 anyarray", func(c *catalogSet) [][]any {
		var rows [][]any
		analyzedColumns(c, func(t *TableDef, i int, cs *ColumnStats) {
			typ := t.Columns[i].Type
			var coll uint32
			if typ.isString() {
				coll = 100
			}
			type slot struct {
				kind    int16
				op      uint32
				numbers any
				values  any
			}
			var slots []slot
			if cs.MCV != nil {
				slots = append(slots, slot{1, statOperator("=", typ), formatFloat4s(cs.MCVFreqs), formatStatsArray(cs.MCV)})
			}
			if cs.Histogram != nil {
				slots = append(slots, slot{2, statOperator("<", typ), nil, formatStatsArray(cs.Histogram)})
			}
			if cs.HasCorrelation {
				slots = append(slots, slot{3, statOperator("<", typ), formatFloat4s([]float32{cs.Correlation}), nil})
			}
			row := []any{t.OID, int16(i + 1), false, float64(cs.NullFrac), cs.AvgWidth, float64(cs.NDistinct)}
			kinds, ops, colls, nums, vals := make([]any, 5), make([]any, 5), make([]any, 5), make([]any, 5), make([]any, 5)
			for k := 0; k < 5; k++ {
				kinds[k], ops[k], colls[k] = int16(0), uint32(0), uint32(0)
				if k < len(slots) {
					kinds[k], ops[k], nums[k], vals[k] = slots[k].kind, slots[k].op, slots[k].numbers, slots[k].values
					colls[k] = coll
				}
			}
			row = append(append(append(append(append(row, kinds...), ops...), colls...), nums...), vals...)
			rows = append(rows, row)
		})
		return rows
	}}
	pgCatalogRels["pg_stats"] = &sysRelation{12053, "schemaname name, tablename name, attname name, inherited bool, null_frac float4, avg_width int4, n_distinct float4, most_common_vals anyarray, most_common_freqs _float4, histogram_bounds anyarray, correlation float4, most_common_elems anyarray, most_common_elem_freqs _float4, elem_count_histogram _float4", func(c *catalogSet) [][]any {
		var rows [][]any
		analyzedColumns(c, func(t *TableDef, i int, cs *ColumnStats) {
			var mcv, freqs, hist, corr any
			if cs.MCV != nil {
				mcv, freqs = formatStatsArray(cs.MCV), formatFloat4s(cs.MCVFreqs)
			}
			if cs.Histogram != nil {
				hist = formatStatsArray(cs.Histogram)
			}
			if cs.HasCorrelation {
				corr = float64(cs.Correlation)
			}
			rows = append(rows, []any{t.Schema, t.RelName(), t.Columns[i].Name, false, float64(cs.NullFrac), cs.AvgWidth, float64(cs.NDistinct), mcv, freqs, hist, corr, nil, nil, nil})
		})
		return rows
	}}
}

// analyzedColumns calls f for every column of a user table that ANALYZE
// collected statistics for.
func analyzedColumns(c *catalogSet, f func(t *TableDef, col int, cs *ColumnStats)) {
	for _, t := range c.userTables() {
		st := TableStatsOf(t)
		if st == nil {
			continue
		}
		for i, cs := range st.Columns {
			if cs != nil && i < len(t.Columns) {
				f(t, i, cs)
			}
		}
	}
}

// statOperator is the OID of PostgreSQL's operator name for two values
// of type t (varchar uses text's, as its btree operator class does).
func statOperator(name string, t Type) uint32 {
	oid := t.OID
	if oid == OIDVarchar {
		oid = OIDText
	}
	for _, f := range pgOperatorFacts() {
		if f.name == name && f.kind == 'b' && f.left == oid && f.right == oid {
			return f.oid
		}
	}
	return 0
}
