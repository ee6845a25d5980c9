package exec

import q "github.com/pganalyze/pg_query_go/v6"

// pg_show_all_settings() is the function PostgreSQL's pg_settings view
// reads. Here the relation pg_catalog.pg_settings (syscat_settings.go) is
// the source, and the function called in FROM — as pgAdmin 4's and
// DBeaver's configuration pages do — reads it under the function's name
// or the given alias, column aliases included.
func (b *binder) bindShowAllSettings(rf *q.RangeFunction, fc *q.FuncCall, sc *scope) (plan, []scopeCol, error) {
	if len(fc.Args) != 0 {
		args, err := b.bindList(fc.Args, newScope(sc.parent))
		if err != nil {
			return nil, nil, err
		}
		return nil, nil, noFunction("pg_show_all_settings", args)
	}
	if rf.Ordinality {
		return nil, nil, unsupported("pg_show_all_settings() WITH ORDINALITY is not supported")
	}
	alias := &q.Alias{Aliasname: "pg_show_all_settings"}
	if rf.Alias != nil {
		alias = rf.Alias
	}
	return b.bindRangeVar(&q.RangeVar{Schemaname: "pg_catalog", Relname: "pg_settings", Inh: true, Alias: alias}, sc)
}
