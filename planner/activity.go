package planner

import (
	"strconv"
	"strings"

	"github.com/pggraph/pggraph/observe"
)

// noteRowsWritten counts the rows an INSERT, UPDATE or DELETE wrote to
// its target table in the process's activity counters
// (pg_stat_database's tup_*, pg_stat_*_tables' n_tup_*;
// observe/activity.go). The count is the command tag's: rows written by
// the statement itself, as PostgreSQL counts them when it ends. MERGE
// is not split into its actions.
func (w *writer) noteRowsWritten(p *plan, out *writeOut) {
	if out == nil {
		return
	}
	if p.kind != stmtInsert && p.kind != stmtUpdate && p.kind != stmtDelete {
		return
	}
	rv, kind := p.targetRelation(), p.stmtName()
	n, err := strconv.ParseInt(out.tag[strings.LastIndexByte(out.tag, ' ')+1:], 10, 64)
	if err != nil || n == 0 || rv == nil {
		return
	}
	key, ok := w.relKey(rv.Schemaname, rv.Relname)
	if !ok {
		return
	}
	if ti, ok := w.v.base.tables[key]; ok {
		observe.RowsWritten(activityDatabase(w.s.info.Database), ti.def.OID, kind, n)
	}
}

// activityDatabase is the database the activity counters are kept under:
// the one the session connected to, as the catalogs name it.
func activityDatabase(db string) string {
	if db == "" {
		return "main"
	}
	return db
}
