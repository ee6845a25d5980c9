package planner

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/objstore"
)

// divergedPeople is the script that makes branches dev and main change
// the same people rows: id 1 updated on both, id 3 deleted on dev and
// updated on main, id 4 added on both with different names, and rows
// only one side changed (id 5 added on dev, id 2 updated on dev).
var divergedPeople = []step{
	{sql: "call graph.create_branch('dev')"},
	{sql: "set graph.branch = 'dev'"},
	{sql: "update people set name = 'DEV' where id = 1"},
	{sql: "update people set score = 20 where id = 2"},
	{sql: "delete from people where id = 3"},
	{sql: "insert into people values (4, 'dev4', 4), (5, 'dev5', 5)"},
	{sql: "set graph.branch = 'main'"},
	{sql: "update people set name = 'MAIN' where id = 1"},
	{sql: "update people set name = 'main3' where id = 3"},
	{sql: "insert into people values (4, 'main4', 4)"},
}

// TestMergeStopStagesConflictsResolvedInSQL: graph.merge with strategy
// 'stop' stages the merge in the transaction: the clean changes are
// visible at once, graph.conflicts lists the rows both branches changed
// (base, ours, theirs as jsonb), COMMIT is refused while one is left,
// ordinary SQL resolves them, and COMMIT publishes one merge commit with
// two parents.
func TestMergeStopStagesConflictsResolvedInSQL(t *testing.T) {
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeCacheStatement} {
		t.Run(mode.String(), func(t *testing.T) { mergeStopScript(t, mode) })
	}
}

func mergeStopScript(t *testing.T, mode pgx.QueryExecMode) {
	ts := startServer(t, createPeople(t))
	c := ts.connect(t, mode)
	steps := append([]step{}, divergedPeople...)
	steps = append(steps, []step{
		{sql: "select count(*) from graph.conflicts", rows: "0"},
		{sql: "select graph.merge('dev', strategy => 'stop')", code: "25P01", msg: "transaction blocks"},
		{sql: "select count(*) from graph.commits", rows: "5"},
		// staged, then refused at COMMIT with a conflict left: nothing published
		{sql: "begin"},
		{sql: "select graph.merge('dev', strategy => 'stop')", rows: "staged: 3 conflicting rows"},
		{sql: "select id, name, score from people order by id", rows: "1|MAIN|1.5;2|<nil>|20;3|main3|0.1;4|main4|4;5|dev5|5"},
		{sql: "select table_name, key::text, kind, columns, base->>'name', ours->>'name', theirs->>'name' from graph.conflicts order by id",
			rows: "people|{\"id\": 1}|changed on both|name|ada|MAIN|DEV;" +
				"people|{\"id\": 3}|changed on target, deleted on source|id, name, score|bob|main3|<nil>;" +
				"people|{\"id\": 4}|added on both|name|<nil>|main4|dev4"},
		{sql: "alter table people add column x int", code: "0A000", msg: "merge is staged"},
		{sql: "rollback"},
		{sql: "begin"},
		{sql: "call graph.merge('dev', strategy => 'stop')"},
		{sql: "call graph.optimize()", code: "25001", msg: "transaction block"},
		{sql: "rollback"},
		{sql: "begin"},
		{sql: "call graph.merge('dev', strategy => 'stop')", tag: "CALL"},
		{sql: "update people set name = theirs->>'name' from graph.conflicts where table_name = 'people' and people.id = (key->>'id')::int8 and key->>'id' = '1'", tag: "UPDATE 1"},
		{sql: "select id from graph.conflicts order by id", rows: "2;3"},
		{sql: "commit", code: "55000", msg: "2 conflicting rows are unresolved"},
		{sql: "select count(*) from graph.commits", rows: "5"},
		{sql: "select id, name from people order by id", rows: "1|MAIN;2|<nil>;3|main3;4|main4"},
		// resolved: take dev's row 1, accept dev's delete of 3, keep main's 4
		{sql: "begin"},
		{sql: "call graph.merge('dev', strategy => 'stop')"},
		// a savepoint keeps the conflicts' state with the rows
		{sql: "savepoint s"},
		{sql: "delete from graph.conflicts", tag: "DELETE 3"},
		{sql: "select count(*) from graph.conflicts", rows: "0"},
		{sql: "rollback to savepoint s"},
		{sql: "select count(*) from graph.conflicts", rows: "3"},
		{sql: "update people set name = 'DEV' where id = 1", tag: "UPDATE 1"},
		{sql: "delete from people where id = 3", tag: "DELETE 1"},
		{sql: "delete from graph.conflicts where key->>'id' = '4'", tag: "DELETE 1"},
		{sql: "select count(*) from graph.conflicts", rows: "0"},
		{sql: "commit"},
		{sql: "select id, name, score from people order by id", rows: "1|DEV|1.5;2|<nil>|20;4|main4|4;5|dev5|5"},
		{sql: "select count(*) from graph.commits", rows: "6"},
		{sql: "select cardinality(parents), writer_kind from graph.commits limit 1", rows: "2|branch_merge"},
		{sql: "select count(*) from graph.conflicts", rows: "0"},
		// merged: nothing left to merge
		{sql: "select graph.merge('dev')", rows: "<nil>"},
	}...)
	runScript(t, c, steps)
}

// TestMergeStopAcrossProcesses: two processes over one data directory.
// A commit on the source by the other process after staging is not part
// of the merge (the staged source head is its merged parent); a commit
// on the target by the other process after staging fails COMMIT with
// 40001 and publishes nothing of the merge.
func TestMergeStopAcrossProcesses(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "g")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	serve := func(create bool) *pgx.Conn {
		st, err := objstore.NewLocal(dir)
		if err != nil {
			t.Fatal(err)
		}
		g, err := adapters.Open(ctx, st, adapters.Options{Create: create, Actor: "test", Location: dir})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(g.Close)
		c, err := pgx.Connect(ctx, startServerOn(t, g).url("main"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		return c
	}
	a := serve(true)
	b := serve(false)
	runScript(t, a, []step{
		{sql: "create table t (id int8 primary key, v text)"},
		{sql: "insert into t values (1, 'base'), (2, 'base')"},
		{sql: "call graph.create_branch('dev')"},
		{sql: "set graph.branch = 'dev'"},
		{sql: "update t set v = 'dev' where id = 1"},
		{sql: "set graph.branch = 'main'"},
		{sql: "update t set v = 'main' where id = 1"},
		{sql: "begin"},
		{sql: "call graph.merge('dev', strategy => 'stop')"},
		{sql: "select id, ours->>'v', theirs->>'v' from graph.conflicts", rows: "1|main|dev"},
	})
	runScript(t, b, []step{
		{sql: "set graph.branch = 'dev'"},
		{sql: "insert into t values (3, 'dev later')"},
	})
	runScript(t, a, []step{
		{sql: "update t set v = 'both' where id = 1", tag: "UPDATE 1"},
		{sql: "commit"},
		{sql: "select id, v from t order by id", rows: "1|both;2|base"},
		{sql: "select cardinality(parents) from graph.commits limit 1", rows: "2"},
		{sql: "begin"},
		// the first merge is the base: only the later row is merged now
		{sql: "select graph.merge('dev', strategy => 'stop')", rows: "staged: 0 conflicting rows"},
		{sql: "select id, v from t order by id", rows: "1|both;2|base;3|dev later"},
	})
	runScript(t, b, []step{{sql: "set graph.branch = 'main'"}, {sql: "insert into t values (4, 'main')"}})
	runScript(t, a, []step{
		{sql: "commit", code: "40001", msg: "could not serialize"},
		{sql: "select id, v from t order by id", rows: "1|both;2|base;4|main"},
	})
}

// TestMergeStopRefusedWhenTargetMoved: a commit on the target by another
// session after the merge was staged fails COMMIT with 40001 (the
// staged merge's snapshot is strict), and nothing of the merge is
// published.
func TestMergeStopRefusedWhenTargetMoved(t *testing.T) {
	ts := startServer(t, createPeople(t))
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	other := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	runScript(t, c, []step{
		{sql: "call graph.create_branch('dev')"},
		{sql: "set graph.branch = 'dev'"},
		{sql: "insert into people values (10, 'dev10', 1)"},
		{sql: "set graph.branch = 'main'"},
		{sql: "begin"},
		{sql: "call graph.merge('dev', strategy => 'stop')"},
		{sql: "select count(*) from people", rows: "4"},
	})
	if _, err := other.Exec(context.Background(), "insert into people values (11, 'main11', 1)"); err != nil {
		t.Fatal(err)
	}
	runScript(t, c, []step{
		{sql: "commit", code: "40001", msg: "could not serialize"},
		{sql: "select id from people where id >= 10 order by id", rows: "11"},
	})
}
