package planner

import (
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestMergePerColumn: one row updated on both branches merges when the
// two sides changed different columns (or set a column to the same
// value); the same column set to different values is still a conflict,
// and with 'stop' only that row is staged in graph.conflicts.
func TestMergePerColumn(t *testing.T) {
	ts := startServer(t, createPeople(t))
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	runScript(t, c, []step{
		{sql: "call graph.create_branch('dev')"},
		{sql: "set graph.branch = 'dev'"},
		{sql: "update people set score = 10 where id = 1"},                // other column than main
		{sql: "update people set name = 'same', score = 20 where id = 2"}, // name as main, score alone
		{sql: "set graph.branch = 'main'"},
		{sql: "update people set name = 'ADA' where id = 1"},
		{sql: "update people set name = 'same' where id = 2"},
		{sql: "call graph.create_branch('main2')"},
		{sql: "call graph.merge('dev')", tag: "CALL"},
		{sql: "select id, name, score from people order by id", rows: "1|ADA|10;2|same|20;3|bob|0.1"},
		{sql: "select cardinality(parents) from graph.commits limit 1", rows: "2"},
		// the same column to different values conflicts; with 'stop'
		// the other row merges and only the conflicting one is staged
		{sql: "call graph.create_branch('dev2', 'main2')"},
		{sql: "set graph.branch = 'dev2'"},
		{sql: "update people set name = 'dev-bob' where id = 3"},
		{sql: "update people set score = 11 where id = 1"},
		{sql: "set graph.branch = 'main2'"},
		{sql: "update people set name = 'main-bob' where id = 3"},
		{sql: "update people set name = 'A2' where id = 1"},
		{sql: "call graph.merge('dev2')", code: "40001", msg: "people"},
		{sql: "begin"},
		{sql: "call graph.merge('dev2', strategy => 'stop')"},
		{sql: "select table_name, key->>'id' from graph.conflicts", rows: "people|3"},
		{sql: "update people set name = 'both-bob' where id = 3"},
		{sql: "delete from graph.conflicts"},
		{sql: "commit"},
		{sql: "select id, name, score from people order by id", rows: "1|A2|11;2|same|2.25;3|both-bob|0.1"},
	})
}
