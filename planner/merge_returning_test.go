package planner

import (
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestMergeReturningSource: MERGE … RETURNING names the source
// relation's columns (PostgreSQL 17): each returned row carries the
// source row that caused it (NULL for NOT MATCHED BY SOURCE), * is the
// target's columns and then the source's, and qualified stars pick one
// side. (PostgreSQL 15, the differential reference, has no MERGE
// RETURNING, so the expectations are written out.)
func TestMergeReturningSource(t *testing.T) {
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeCacheStatement} {
		t.Run(mode.String(), func(t *testing.T) {
			ts := startServer(t, createPeople(t))
			runScript(t, ts.connect(t, mode), []step{
				{sql: "merge into people t using (values (1, 'x', 10), (70, 'y', 20)) s(id, name, w) on t.id = s.id " +
					"when matched then update set name = s.name when not matched then insert values (s.id, s.name, s.w) " +
					"returning merge_action(), t.id, s.w, s.name", rows: "UPDATE|1|10|x;INSERT|70|20|y"},
				{sql: "merge into people t using (select 3 as k, 'gone' as why) s on t.id = s.k when matched then delete returning *",
					rows: "3|bob|0.1|3|gone"},
				{sql: "merge into people t using (values (1, 'x')) s(id, nm) on t.id = s.id when matched then update set score = 5 " +
					"when not matched by source and t.id = 70 then delete returning s.*, t.id, merge_action()",
					rows: "1|x|1|UPDATE;<nil>|<nil>|70|DELETE"},
				{sql: "merge into people t using (values (1, 'z')) s(k, nm) on t.id = s.k when matched then update set name = s.nm " +
					"returning t.*, upper(s.nm) || t.id::text as tag", rows: "1|z|5|Z1"},
				{sql: "merge into people t using (values (1)) s(id) on t.id = s.id when matched then update set score = 6 returning id",
					code: "42702"},
				{sql: "merge into people t using (values (1)) s(k) on t.id = s.k when matched then update set score = 6 returning nope.*",
					code: "42P01"},
				{sql: "select string_agg(id::text || ':' || coalesce(name, '-') || ':' || score::text, ',' order by id) from people",
					rows: "1:z:5,2:-:2.25"},
			})
		})
	}
}
