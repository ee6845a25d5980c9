package planner

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/objstore"
)

// TestGraphChanges: graph.changes(since) lists every row change after
// since in commit order (autocommits, a transaction, a merge commit), is
// resumable from any commit it returned, filters by table, follows a
// table across a rename, and refuses a commit of another history.
func TestGraphChanges(t *testing.T) {
	ts := startServer(t, createPeople(t))
	ctx := context.Background()
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	var c0 string
	if err := c.QueryRow(ctx, "select id from graph.commits limit 1").Scan(&c0); err != nil {
		t.Fatal(err)
	}
	runScript(t, c, []step{
		{sql: "select count(*) from graph.changes('" + c0 + "')", rows: "0"},
		{sql: "create table pets (id int8 primary key, name text)"},
		{sql: "insert into people values (4, 'cy', 4)"},
		{sql: "update people set name = 'ADA' where id = 1"},
		{sql: "begin"},
		{sql: "delete from people where id = 3"},
		{sql: "insert into pets values (1, 'rex')"},
		{sql: "commit"},
		{sql: "call graph.create_branch('dev')"},
		{sql: "set graph.branch = 'dev'"},
		{sql: "update pets set name = 'REX' where id = 1"},
		{sql: "set graph.branch = 'main'"},
		{sql: "call graph.merge('dev')"},
		{sql: "alter table pets rename to animals"},
		{sql: "insert into animals values (2, 'tom')"},
		{sql: "select dense_rank() over (order by manifest_version), table_name, change, key::text, old->>'name', new->>'name' from graph.changes('" + c0 + "') order by manifest_version, table_name, key::text",
			rows: "1|people|insert|{\"id\": 4}|<nil>|cy;" +
				"2|people|update|{\"id\": 1}|ada|ADA;" +
				"3|people|delete|{\"id\": 3}|bob|<nil>;3|pets|insert|{\"id\": 1}|<nil>|rex;" +
				"4|pets|update|{\"id\": 1}|rex|REX;" +
				"5|animals|insert|{\"id\": 2}|<nil>|tom"},
		{sql: "select new::text from graph.changes('" + c0 + "') where change = 'insert' and table_name = 'people'", rows: "{\"id\": 4, \"name\": \"cy\", \"score\": \"4\"}"},
		// the merge commit's row change carries the merge's commit id
		{sql: "select c.writer_kind from graph.changes('" + c0 + "') f join graph.commits c on c.id = f.commit_id where f.table_name = 'pets' and f.change = 'update'", rows: "branch_merge"},
		// resumable: after the commit that updated people, the rest
		{sql: "select count(*) from graph.changes('" + c0 + "') f where f.manifest_version > (select manifest_version from graph.changes('" + c0 + "') where change = 'update' and table_name = 'people')", rows: "4"},
		{sql: "select count(*) from graph.changes('" + c0 + "', 'animals')", rows: "3"},
		{sql: "select count(*) from graph.changes('" + c0 + "', 'people')", rows: "3"},
		{sql: "select count(*) from graph.changes('01JZZZZZZZZZZZZZZZZZZZZZZZ')", code: "22023", msg: ""},
		{sql: "select count(*) from graph.changes(NULL)", code: "22004", msg: "graph.changes"},
	})
	var mid string
	if err := c.QueryRow(ctx, "select commit_id from graph.changes('"+c0+"') where change = 'delete'").Scan(&mid); err != nil {
		t.Fatal(err)
	}
	runScript(t, c, []step{
		{sql: "select table_name, change from graph.changes('" + mid + "') order by manifest_version", rows: "pets|update;animals|insert"},
		// a commit of another branch's own history is not in main's
		{sql: "set graph.branch = 'dev'"},
		{sql: "insert into pets values (9, 'dev')"},
	})
	var devOnly string
	if err := c.QueryRow(ctx, "select id from graph.commits limit 1").Scan(&devOnly); err != nil {
		t.Fatal(err)
	}
	runScript(t, c, []step{
		{sql: "set graph.branch = 'main'"},
		{sql: "select count(*) from graph.changes('" + devOnly + "')", code: "22023", msg: "not in the history of branch"},
	})
}

// TestGraphChangesReadsOnlyChangedFragments: the feed of a commit that
// changed one row of a table of many fragments opens the fragments that
// commit changed, not the others.
func TestGraphChangesReadsOnlyChangedFragments(t *testing.T) {
	ctx := context.Background()
	store := &dataReadStore{Store: objstore.NewMem(), files: map[string]bool{}}
	g, err := adapters.Open(ctx, store, adapters.Options{Create: true, Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	ts := startServerOn(t, g)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	runScript(t, c, []step{{sql: "create table t (id int primary key, v text)"}})
	const fragments = 12
	for i := 1; i <= fragments; i++ { // one fragment per statement
		runScript(t, c, []step{{sql: "insert into t values (" + itoa(int64(i)) + ", 'x')"}})
	}
	var since string
	if err := c.QueryRow(ctx, "select id from graph.commits limit 1").Scan(&since); err != nil {
		t.Fatal(err)
	}
	runScript(t, c, []step{{sql: "update t set v = 'y' where id = 5"}})
	store.mu.Lock()
	clear(store.files)
	store.mu.Unlock()
	runScript(t, c, []step{{sql: "select change, key::text, old->>'v', new->>'v' from graph.changes('" + since + "')",
		rows: "update|{\"id\": 5}|x|y"}})
	store.mu.Lock()
	read := len(store.files)
	store.mu.Unlock()
	if read == 0 || read > 2 {
		t.Fatalf("the feed read %d data files of a table of %d+ fragments; want the changed ones (≤ 2)", read, fragments)
	}
}
