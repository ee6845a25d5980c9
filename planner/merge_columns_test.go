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

// TestMergeStopStagesPerColumn: with strategy 'stop', a row both
// branches updated is staged as its per-column merge — the source's
// change to the column only it changed is kept, the target's value
// where both set a column — and graph.conflicts lists only that column.
// The staged rows are pending inserts: removing other pending rows
// before or after them (a clean merged row, another conflict's staged
// row, in a savepoint rolled back) neither resolves a conflict nor
// loses one; updating or deleting a staged row resolves its own only.
func TestMergeStopStagesPerColumn(t *testing.T) {
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeCacheStatement} {
		t.Run(mode.String(), func(t *testing.T) { mergeStopPerColumnScript(t, mode) })
	}
}

func mergeStopPerColumnScript(t *testing.T, mode pgx.QueryExecMode) {
	ts := startServer(t, createPeople(t))
	c := ts.connect(t, mode)
	runScript(t, c, []step{
		{sql: "call graph.create_branch('dev')"},
		{sql: "set graph.branch = 'dev'"},
		{sql: "update people set name = 'dev1', score = 10 where id = 1"},
		{sql: "update people set name = 'dev2', score = 20 where id = 2"},
		{sql: "update people set name = 'dev3' where id = 3"},
		{sql: "insert into people values (5, 'dev5', 5)"},
		{sql: "set graph.branch = 'main'"},
		{sql: "update people set name = 'main1' where id = 1"},
		{sql: "update people set name = 'main2' where id = 2"},
		{sql: "update people set name = 'main3', score = 3 where id = 3"},
		{sql: "begin"},
		{sql: "select graph.merge('dev', strategy => 'stop')", rows: "staged: 3 conflicting rows"},
		// rows 1 and 2: main's name, dev's score; row 3: main's row
		{sql: "select id, name, score from people order by id", rows: "1|main1|10;2|main2|20;3|main3|3;5|dev5|5"},
		{sql: "select key->>'id', kind, columns, ours->>'score', theirs->>'score' from graph.conflicts order by id",
			rows: "1|changed on both|name|1.5|10;2|changed on both|name|2.25|20;3|changed on both|name|3|0.1"},
		// a clean pending row before the staged ones goes: nothing resolved
		{sql: "delete from people where id = 5", tag: "DELETE 1"},
		{sql: "select key->>'id' from graph.conflicts order by id", rows: "1;2;3"},
		{sql: "savepoint s"},
		{sql: "update people set name = 'x' where id = 1", tag: "UPDATE 1"},
		{sql: "select key->>'id' from graph.conflicts order by id", rows: "2;3"},
		{sql: "rollback to savepoint s"},
		{sql: "select key->>'id' from graph.conflicts order by id", rows: "1;2;3"},
		// row 1's staged row goes (updated): row 2's moves, still open
		{sql: "update people set name = 'both1' where id = 1", tag: "UPDATE 1"},
		{sql: "select key->>'id' from graph.conflicts order by id", rows: "2;3"},
		{sql: "insert into people values (6, 'six', 6)"},
		{sql: "select key->>'id' from graph.conflicts order by id", rows: "2;3"},
		{sql: "update people set score = 30 where id = 3", tag: "UPDATE 1"},
		{sql: "select key->>'id' from graph.conflicts order by id", rows: "2"},
		{sql: "commit", code: "55000", msg: "1 conflicting rows are unresolved"},
		{sql: "select id, name, score from people order by id", rows: "1|main1|1.5;2|main2|2.25;3|main3|3"},
		// resolved: delete the staged row 2, keep row 1's per-column
		// merge and row 3 as staged
		{sql: "begin"},
		{sql: "call graph.merge('dev', strategy => 'stop')"},
		{sql: "delete from people where id = 2", tag: "DELETE 1"},
		{sql: "delete from graph.conflicts where key->>'id' <> '2'", tag: "DELETE 2"},
		{sql: "select count(*) from graph.conflicts", rows: "0"},
		{sql: "commit"},
		{sql: "select id, name, score from people order by id", rows: "1|main1|10;3|main3|3;5|dev5|5"},
		{sql: "select cardinality(parents) from graph.commits limit 1", rows: "2"},
	})
}
