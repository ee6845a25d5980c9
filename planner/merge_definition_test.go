package planner

import (
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestMergeDefinitionsChangedOnBoth pins merges of one table whose
// definition both branches changed (docs/sql.md, "Merging across schema
// changes"): compatible changes (different constraints, a rename and a
// constraint, NOT NULL and a comment) merge part by part and are
// re-validated on the merged rows; the same constraint changed
// differently or two renames are schema conflicts naming what in SQL
// terms; a table re-columned on both merges by column id.
func TestMergeDefinitionsChangedOnBoth(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	runScript(t, c, []step{
		{sql: "create table a (id int8 primary key, v int4, s text)"},
		{sql: "insert into a values (1, 1, 'x'), (2, 2, 'y')"},
		{sql: "create table r (id int8 primary key, v int4)"},
		{sql: "create table k (id int8 primary key, v int4)"},
		{sql: "create table w (id int8 primary key, v int4)"},
		{sql: "create table n (id int8 primary key, v int4)"},
		{sql: "insert into n values (1, 1)"},
		{sql: "create role r1"},
		{sql: "create role r2"},
		{sql: "call graph.create_branch('dev')"},
		// main's side
		{sql: "alter table a add constraint v_small check (v < 100)"},
		{sql: "grant select on a to r1"},
		{sql: "alter table r rename to r_main"},
		{sql: "alter table k add constraint kc check (v > 0)"},
		{sql: "alter table w rename to w_main"},
		{sql: "alter table n add column extra int4"},
		// dev's side
		{sql: "set graph.branch = 'dev'"},
		{sql: "alter table a add constraint s_short check (length(s) < 5)"},
		{sql: "alter table a alter column s set not null"},
		{sql: "grant insert on a to r2"},
		{sql: "insert into a values (3, 3, 'z')"},
		{sql: "alter table r add constraint rv check (v <> 13)"},
		{sql: "alter table k add constraint kc check (v > 1)"},
		{sql: "alter table w rename to w_dev"},
		{sql: "alter table n add column other int4"},
		{sql: "set graph.branch = 'main'"},
		{sql: "call graph.merge('dev')", code: "40001", msg: `k (its definition changed on both branches: constraint "kc" (expr) changed differently on both branches)`},
		{sql: "call graph.merge('dev')", code: "40001", msg: `the table was renamed to "w_dev" on one branch and to "w_main" on the other`},
		{sql: "set graph.branch = 'dev'"},
		{sql: "alter table k drop constraint kc"},
		{sql: "alter table k add constraint kc check (v > 0)"},
		{sql: "alter table w_dev rename to w_main"},
		{sql: "alter table n drop column other"},
		{sql: "alter table n add column extra int4"},
		{sql: "set graph.branch = 'main'"},
		{sql: "call graph.merge('dev')", tag: "CALL"},
		// n, re-columned on both, merges by column id: the column both
		// added with one name and type is one column
		{sql: "select * from n", rows: "1|1|<nil>"},
		// both constraints and dev's NOT NULL hold on the merged a
		{sql: "select * from a order by id", rows: "1|1|x;2|2|y;3|3|z"},
		{sql: "insert into a values (4, 100, 'q')", code: "23514", msg: `"v_small"`},
		{sql: "insert into a values (4, 4, 'long text')", code: "23514", msg: `"s_short"`},
		{sql: "insert into a values (4, 4, null)", code: "23502", msg: `column "s"`},
		// grants made on each side to different roles both hold
		{sql: "select has_table_privilege('r1', 'a', 'select'), has_table_privilege('r2', 'a', 'insert'), has_table_privilege('r2', 'a', 'select')", rows: "true|true|false"},
		// main's rename and dev's constraint
		{sql: "insert into r_main values (1, 13)", code: "23514", msg: `"rv"`},
		{sql: "insert into w_main values (1, 1)", tag: "INSERT 0 1"},
	})
}

// TestMergeRevalidatesDefinitions: a constraint one branch adds is
// checked against the rows the other branch added (NOT NULL, CHECK).
func TestMergeRevalidatesDefinitions(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	runScript(t, c, []step{
		{sql: "create table a (id int8 primary key, v int4, s text)"},
		{sql: "insert into a values (1, 1, 'x')"},
		{sql: "call graph.create_branch('dev')"},
		{sql: "alter table a alter column s set not null"},
		{sql: "alter table a add constraint pos check (v > 0)"},
		{sql: "set graph.branch = 'dev'"},
		{sql: "insert into a values (2, 2, null)"},
		{sql: "set graph.branch = 'main'"},
		{sql: "call graph.merge('dev')", code: "23502", msg: `null value in column "s" of relation "a" violates not-null constraint`},
		{sql: "set graph.branch = 'dev'"},
		{sql: "update a set s = 's', v = -1 where id = 2"},
		{sql: "set graph.branch = 'main'"},
		{sql: "call graph.merge('dev')", code: "23514", msg: `"pos"`},
		{sql: "set graph.branch = 'dev'"},
		{sql: "update a set v = 2 where id = 2"},
		{sql: "set graph.branch = 'main'"},
		{sql: "call graph.merge('dev')", tag: "CALL"},
		{sql: "select * from a order by id", rows: "1|1|x;2|2|s"},
	})
}
