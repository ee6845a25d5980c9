package exec

import "github.com/pggraph/pggraph/observe"

// pg_stat_progress_copy lists the process's running COPYs with
// PostgreSQL 15's columns (the wire layer counts rows and bytes as they
// pass; observe.Progress). Other progress views exist with their columns
// and no rows: VACUUM, ANALYZE, CLUSTER and base backups do not happen
// here, and CREATE INDEX only records the index (nothing is built at
// CREATE time).
func init() {
	pgCatalogRels["pg_stat_progress_copy"] = &sysRelation{12322, "pid int4, datid oid, datname name, relid oid, command text, type text, bytes_processed int8, bytes_total int8, tuples_processed int8, tuples_excluded int8", func(c *catalogSet) [][]any {
		var rows [][]any
		for _, p := range observe.RunningProgress() {
			if p.Command != "COPY FROM" && p.Command != "COPY TO" {
				continue
			}
			var datid, relid any
			if p.Database == c.database() {
				datid = uint32(oidDatabase)
				if t := c.table("", p.Relation); p.Relation != "" && t != nil {
					relid = t.OID
				} else {
					relid = uint32(0)
				}
			}
			rows = append(rows, []any{p.PID, datid, p.Database, relid, p.Command, p.Type, p.Bytes, p.TotalBytes, p.Rows, p.Excluded})
		}
		return rows
	}}
	liveRels[pgCatalogRels["pg_stat_progress_copy"]] = true
}
