package planner

import (
	"context"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
)

// TestGraphDiffAndAt: graph.diff between branches, versions and commits
// in both directions, graph.diff_summary, graph.at joined with another
// version of the same table, across a column added on one side.
func TestGraphDiffAndAt(t *testing.T) {
	ts := startServer(t, createPeople(t))
	ctx := context.Background()
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	var v0 int64
	var c0 string
	if err := c.QueryRow(ctx, "select manifest_version, id from graph.commits order by manifest_version desc limit 1").Scan(&v0, &c0); err != nil {
		t.Fatal(err)
	}
	runScript(t, c, []step{
		{sql: "call graph.create_branch('dev')", tag: "CALL"},
		{sql: "set graph.branch = 'dev'"},
		{sql: "update people set name = 'ADA' where id = 1"},
		{sql: "delete from people where id = 3"},
		{sql: "insert into people values (4, 'cy', 4)"},
		{sql: "set graph.branch = 'main'"},
		{sql: "select from_id, from_name, to_id, to_name, diff_type from graph.diff('people', 'main', 'dev') order by coalesce(to_id, from_id)",
			rows: "1|ada|1|ADA|updated;3|bob|<nil>|<nil>|deleted;<nil>|<nil>|4|cy|added"},
		// the other way round: rows deleted on dev are added
		{sql: "select coalesce(from_id, to_id), diff_type from graph.diff('people', 'dev', 'main') order by 1",
			rows: "1|updated;3|added;4|deleted"},
		// a version number and a commit id of main name its snapshot
		{sql: "select count(*) from graph.diff('people', '" + itoa(v0) + "', 'dev')", rows: "3"},
		{sql: "select count(*) from graph.diff('people', '" + c0 + "', 'main')", rows: "0"},
		{sql: "select table_name, from_table_name, to_table_name, diff_type, rows_added, rows_deleted, rows_updated, schema_change from graph.diff_summary('main', 'dev')",
			rows: "people|people|people|modified|1|1|1|false"},
		{sql: "select count(*) from graph.diff_summary('main', 'main')", rows: "0"},
		// two versions joined in one query
		{sql: "select m.id, m.name, d.name from graph.at('people', 'main') m join graph.at('people', 'dev') d using (id) where m.name is distinct from d.name order by 1",
			rows: "1|ada|ADA"},
		{sql: "select count(*) from people p left join graph.at('people', 'dev') d on d.id = p.id where d.id is null", rows: "1"},
		// a column added on dev: from_age is NULL everywhere, not an update
		{sql: "set graph.branch = 'dev'"},
		{sql: "alter table people add column age int"},
		{sql: "update people set age = 30 where id = 2"},
		{sql: "set graph.branch = 'main'"},
		{sql: "select coalesce(from_id, to_id), from_age, to_age, diff_type from graph.diff('people', 'main', 'dev') order by 1",
			rows: "1|<nil>|<nil>|updated;2|<nil>|30|updated;3|<nil>|<nil>|deleted;4|<nil>|<nil>|added"},
		{sql: "select schema_change from graph.diff_summary('main', 'dev')", rows: "true"},
		{sql: "select count(*) from graph.at('people', 'main') where age is null", code: "42703", msg: "age"},
		// errors
		{sql: "select * from graph.at('nope', 'main')", code: "42P01", msg: `relation "nope" does not exist at main`},
		{sql: "select * from graph.at('people', 'not a ref')", code: "22007", msg: ""},
		{sql: "select * from graph.at('people')", code: "42883", msg: "graph.at takes 2 arguments"},
		{sql: "select * from people p, graph.at('people', p.name) x", code: "0A000", msg: "must be constants"},
		{sql: "select * from graph.nothing('people')", code: "42883", msg: ""},
	})
	// a binding of graph.at is not reused: a prepared statement reads the
	// branch head at each execution although main's catalog did not move
	p := ts.connect(t, pgx.QueryExecModeCacheStatement)
	count := func() int64 {
		var n int64
		if err := p.QueryRow(ctx, "select count(*) from graph.at('people', 'dev')").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := count()
	runScript(t, c, []step{
		{sql: "set graph.branch = 'dev'"},
		{sql: "insert into people values (5, 'di', 5, 1)"},
	})
	if after := count(); after != before+1 {
		t.Fatalf("graph.at('people', 'dev') counted %d then %d after an insert on dev", before, after)
	}
}

// dataReadStore records the Lance data files read.
type dataReadStore struct {
	objstore.Store
	mu    sync.Mutex
	files map[string]bool
}

func (s *dataReadStore) note(key string) {
	if lance.IsDataFileKey(key) {
		s.mu.Lock()
		s.files[key] = true
		s.mu.Unlock()
	}
}

func (s *dataReadStore) Get(ctx context.Context, key string) ([]byte, error) {
	s.note(key)
	return s.Store.Get(ctx, key)
}

func (s *dataReadStore) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	s.note(key)
	return s.Store.GetRange(ctx, key, off, n)
}

// TestGraphDiffReadsOnlyChangedFragments: a diff between two versions of
// a table opens the fragments that changed between them, not the others.
func TestGraphDiffReadsOnlyChangedFragments(t *testing.T) {
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
	var from int64
	if err := c.QueryRow(ctx, "select max(manifest_version) from graph.commits").Scan(&from); err != nil {
		t.Fatal(err)
	}
	runScript(t, c, []step{
		{sql: "update t set v = 'y' where id = 5"},
		{sql: "insert into t values (100, 'z')"},
	})
	store.mu.Lock()
	clear(store.files)
	store.mu.Unlock()
	runScript(t, c, []step{{sql: "select coalesce(from_id, to_id), from_v, to_v, diff_type from graph.diff('t', '" + itoa(from) + "', 'main') order by 1",
		rows: "5|x|y|updated;100|<nil>|z|added"}})
	store.mu.Lock()
	read := len(store.files)
	store.mu.Unlock()
	// the fragment that lost row 5 and the two new ones at most
	if read == 0 || read > 3 {
		t.Fatalf("the diff read %d data files of a table of %d+ fragments; want the changed ones (≤ 3)", read, fragments)
	}
}

// TestGraphSchemaDiff: graph.schema_diff lists each schema change between
// two refs as one row per object, in SQL terms: columns paired by column
// id (a rename is one row), constraints, indexes and triggers by name,
// tables by table id (added, dropped, renamed); the same ref has none.
func TestGraphSchemaDiff(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	const q = "select table_name, from_table_name, to_table_name, object_type, object_name, diff_type, from_definition, to_definition from graph.schema_diff('main', 'dev') order by table_name, object_type, object_name"
	runScript(t, c, []step{
		{sql: "create table acct (id int8 primary key, owner text, balance int4 not null default 0)"},
		{sql: "create table gone (id int8 primary key)"},
		{sql: "create table old (id int8)"},
		{sql: "call graph.create_branch('dev')", tag: "CALL"},
		{sql: "set graph.branch = 'dev'"},
		{sql: "alter table acct rename column owner to holder"},
		{sql: "alter table acct add column note text default 'n'"},
		{sql: "alter table acct alter column balance type int8"},
		{sql: "alter table acct add constraint positive check (balance >= 0)"},
		{sql: "create index acct_holder on acct (holder)"},
		{sql: "drop table gone"},
		{sql: "alter table old rename to renamed"},
		{sql: "create table fresh (k text)"},
		{sql: "set graph.branch = 'main'"},
		{sql: q, rows: "acct|acct|acct|column|balance|modified|balance integer NOT NULL DEFAULT 0|balance bigint NOT NULL DEFAULT 0;" +
			"acct|acct|acct|column|holder|renamed|owner text|holder text;" +
			"acct|acct|acct|column|note|added|<nil>|note text DEFAULT 'n'::text;" +
			"acct|acct|acct|constraint|positive|added|<nil>|CHECK (balance >= 0);" +
			"acct|acct|acct|index|acct_holder|added|<nil>|INDEX (holder);" +
			"fresh|<nil>|fresh|table|fresh|added|<nil>|(k text);" +
			"gone|gone|<nil>|table|gone|dropped|(id bigint NOT NULL)|<nil>;" +
			"renamed|old|renamed|table|renamed|renamed|old|renamed"},
		{sql: "select count(*) from graph.schema_diff('main', 'main')", rows: "0"},
		{sql: "select * from graph.schema_diff('main')", code: "42883", msg: "graph.schema_diff takes 2 arguments"},
	})
}
