package planner

import (
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestMergeStrategies: the same rows changed on both branches (an update
// against an update, a delete against an update, one key added on both)
// refuse a plain merge (40001) and merge with strategy 'ours' (the
// target's rows stay) or 'theirs' (the source's rows win); the merge
// commit has two parents.
func TestMergeStrategies(t *testing.T) {
	ts := startServer(t, createPeople(t))
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	runScript(t, c, []step{
		{sql: "call graph.create_branch('dev')"},
		{sql: "set graph.branch = 'dev'"},
		{sql: "update people set name = 'DEV' where id = 1"},
		{sql: "delete from people where id = 3"},
		{sql: "insert into people values (4, 'dev4', 4), (5, 'dev5', 5)"},
		{sql: "set graph.branch = 'main'"},
		{sql: "update people set name = 'MAIN' where id = 1"},
		{sql: "update people set name = 'main3' where id = 3"},
		{sql: "insert into people values (4, 'main4', 4)"},
		{sql: "call graph.create_branch('copy')"},
		{sql: "call graph.merge('dev')", code: "40001", msg: "people"},
		{sql: "call graph.merge('dev', strategy => 'stop')", code: "25P01", msg: "transaction blocks"},
		{sql: "call graph.merge('dev', strategy => 'mine')", code: "22023", msg: "invalid graph.merge strategy"},
		{sql: "call graph.merge('dev', strategy => 'ours')", tag: "CALL"},
		{sql: "select id, name from people order by id", rows: "1|MAIN;2|<nil>;3|main3;4|main4;5|dev5"},
		{sql: "select cardinality(parents), parents[2] = merged_parent from graph.commits limit 1", rows: "2|true"},
		{sql: "call graph.merge('dev', 'copy', strategy => 'theirs')", tag: "CALL"},
		{sql: "set graph.branch = 'copy'"},
		{sql: "select id, name from people order by id", rows: "1|DEV;2|<nil>;4|dev4;5|dev5"},
		// the source is merged: merging again has nothing to do
		{sql: "select graph.merge('dev', strategy => 'theirs')", rows: "<nil>"},
	})
}
