package exec

// pg_stats shows the statistics ANALYZE collected (stats.go) as
// PostgreSQL 15's view does: one row per analyzed column of a user table,
// the most common values and histogram bounds as arrays of the column's
// type in text form (anyarray), no element statistics (array columns'
// most_common_elems stay NULL).
func init() {
	pgCatalogRels["pg_stats"] = &sysRelation{12053, "schemaname name, tablename name, attname name, inherited bool, null_frac float4, avg_width int4, n_distinct float4, most_common_vals anyarray, most_common_freqs _float4, histogram_bounds anyarray, correlation float4, most_common_elems anyarray, most_common_elem_freqs _float4, elem_count_histogram _float4", func(c *catalogSet) [][]any {
		var rows [][]any
		for _, t := range c.userTables() {
			st := TableStatsOf(t)
			if st == nil {
				continue
			}
			for i, cs := range st.Columns {
				if cs == nil || i >= len(t.Columns) {
					continue
				}
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
				rows = append(rows, []any{t.Schema, t.Name, t.Columns[i].Name, false, float64(cs.NullFrac), cs.AvgWidth, float64(cs.NDistinct), mcv, freqs, hist, corr, nil, nil, nil})
			}
		}
		return rows
	}}
}
