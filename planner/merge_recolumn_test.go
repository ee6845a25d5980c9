package planner

import (
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestMergeIntoRecolumned pins merges of rows changed on one branch into
// a table re-columned on the other (docs/sql.md, "Merging across schema
// changes"): columns line up by id (a rename maps, a dropped column
// drops, an added one takes its DEFAULT, a retyped one converts or
// conflicts naming the column), rows merge per key and per column in
// both directions, a column both set differently is a conflict the
// strategies settle, and constraints are re-validated on the result.
func TestMergeIntoRecolumned(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	setup := func(table string) []step {
		return []step{
			{sql: "create table " + table + " (id int8 primary key, name text, qty int4, note text)"},
			{sql: "insert into " + table + " values (1, 'a', 10, 'n1'), (2, 'b', 20, 'n2'), (3, 'c', 30, 'n3'), (4, 'd', 40, 'n4')"},
		}
	}
	var steps []step
	for _, tb := range []string{"t1", "t2", "t3", "t4", "t5", "t6"} {
		steps = append(steps, setup(tb)...)
	}
	steps = append(steps, []step{
		{sql: "update t5 set note = id::text"},
		{sql: "call graph.create_branch('b')"},
		// main re-columns every table
		{sql: "alter table t1 add column flag int4 default 7"},
		{sql: "alter table t2 rename column name to label"},
		{sql: "alter table t3 drop column note"},
		{sql: "alter table t4 alter column qty type text"},
		{sql: "alter table t5 alter column note type int4 using note::int4"},
		{sql: "alter table t6 add column extra text default 'x', add constraint short check (length(name) < 3)"},
		{sql: "update t1 set flag = 8 where id = 2"},
		{sql: "update t2 set label = 'B' where id = 2"},
		// b changes rows of every table
		{sql: "set graph.branch = 'b'"},
		{sql: "insert into t1 values (5, 'e', 50, 'n5')"},
		{sql: "update t1 set qty = 21 where id = 2"},
		{sql: "delete from t1 where id = 3"},
		{sql: "update t2 set name = 'cc' where id = 3"},
		{sql: "update t2 set qty = 22 where id = 2"},
		{sql: "update t3 set note = 'gone', qty = 31 where id = 3"},
		{sql: "insert into t3 values (6, 'f', 60, 'n6')"},
		{sql: "update t4 set qty = 41 where id = 4"},
		{sql: "update t5 set note = 'not a number' where id = 1"},
		{sql: "update t6 set name = 'long name' where id = 1"},
		{sql: "set graph.branch = 'main'"},
		// t5's text does not convert to main's int4, t6 breaks main's CHECK:
		// both refuse the merge, naming what
		{sql: "call graph.merge('b')", code: "40001", msg: `t5 (re-columned on main while b changed its rows: row (id)=(1): the value of column "note" on b does not convert to its type on main)`},
		{sql: "set graph.branch = 'b'"},
		{sql: "update t5 set note = '5' where id = 1"},
		{sql: "set graph.branch = 'main'"},
		{sql: "call graph.merge('b')", code: "23514", msg: `new row for relation "t6" violates check constraint "short"`},
		{sql: "set graph.branch = 'b'"},
		{sql: "update t6 set name = 'z' where id = 1"},
		{sql: "set graph.branch = 'main'"},
		{sql: "call graph.merge('b')", tag: "CALL"},
		// t1: the new row takes the default, the update keeps main's flag
		{sql: "select * from t1 order by id", rows: "1|a|10|n1|7;2|b|21|n2|8;4|d|40|n4|7;5|e|50|n5|7"},
		// t2: b's change to name lands in label; per-column with main's
		{sql: "select * from t2 order by id", rows: "1|a|10|n1;2|B|22|n2;3|cc|30|n3;4|d|40|n4"},
		// t3: b's change to the dropped column drops
		{sql: "select * from t3 order by id", rows: "1|a|10;2|b|20;3|c|31;4|d|40;6|f|60"},
		// t4: b's int4 converts to main's text
		{sql: "select id, qty, pg_typeof(qty) from t4 order by id", rows: "1|10|text;2|20|text;3|30|text;4|41|text"},
		{sql: "select * from t5 where id = 1", rows: "1|a|10|5"},
		{sql: "select * from t6 where id = 1", rows: "1|z|10|n1|x"},
	}...)
	runScript(t, c, steps)
}

// TestMergeRecolumnedConflicts: a column both branches set differently
// in a table one of them re-columned is a conflict naming the row and
// the column; 'ours' and 'theirs' settle it, whichever side re-columned.
func TestMergeRecolumnedConflicts(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	runScript(t, c, []step{
		{sql: "create table p (id int8 primary key, name text, qty int4)"},
		{sql: "insert into p values (1, 'a', 1), (2, 'b', 2)"},
		{sql: "call graph.create_branch('x')"},
		{sql: "call graph.create_branch('y')"},
		{sql: "call graph.create_branch('z')"},
		{sql: "alter table p add column w int4"},
		{sql: "update p set name = 'main', w = 1 where id = 1"},
		{sql: "delete from p where id = 2"},
		{sql: "set graph.branch = 'x'"},
		{sql: "update p set name = 'x' where id = 1"},
		{sql: "set graph.branch = 'y'"},
		{sql: "update p set name = 'y' where id = 1"},
		{sql: "update p set qty = 9 where id = 2"},
		{sql: "set graph.branch = 'main'"},
		{sql: "call graph.merge('x')", code: "40001", msg: `p (re-columned on main while x changed its rows: row (id)=(1): column "name" set differently on both branches)`},
		{sql: "call graph.merge('y')", code: "40001", msg: `row (id)=(2): updated on y but deleted on main`},
		{sql: "call graph.merge('x', strategy => 'ours')", tag: "CALL"},
		{sql: "select * from p order by id", rows: "1|main|1|1"},
		{sql: "call graph.merge('y', strategy => 'theirs')", tag: "CALL"},
		{sql: "select * from p order by id", rows: "1|y|1|<nil>;2|b|9|<nil>"},
		// the re-columning side as source: z changed rows, main re-columned
		{sql: "set graph.branch = 'z'"},
		{sql: "update p set name = 'z' where id = 1"},
		{sql: "call graph.merge('main', 'z')", code: "40001", msg: `re-columned on main while z changed its rows: row (id)=(1): column "name" set differently on both branches`},
		{sql: "call graph.merge('main', 'z', strategy => 'ours')", tag: "CALL"},
		{sql: "select * from p order by id", rows: "1|z|1|<nil>;2|b|9|<nil>"},
	})
}

// TestMergeStopIntoRecolumned: a 'stop' merge of rows into a table the
// target re-columned stages the rows both changed (in the target's
// columns: base and theirs mapped by column id), the per-column merge of
// a row both updated, and publishes once they are resolved in SQL.
func TestMergeStopIntoRecolumned(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	runScript(t, c, []step{
		{sql: "create table p (id int8 primary key, name text, qty int4)"},
		{sql: "insert into p values (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)"},
		{sql: "call graph.create_branch('dev')"},
		{sql: "alter table p rename column name to label"},
		{sql: "alter table p add column w int4 default 0"},
		{sql: "update p set label = 'MAIN' where id = 1"},
		{sql: "delete from p where id = 3"},
		{sql: "set graph.branch = 'dev'"},
		{sql: "update p set name = 'DEV', qty = 10 where id = 1"},
		{sql: "update p set qty = 30 where id = 3"},
		{sql: "insert into p values (4, 'd', 4)"},
		{sql: "set graph.branch = 'main'"},
		{sql: "begin"},
		{sql: "select graph.merge('dev', strategy => 'stop')", rows: "staged: 2 conflicting rows"},
		// row 1: dev's qty merged in, main's label kept; 4 added with w's default
		{sql: "select * from p order by id", rows: "1|MAIN|10|0;2|b|2|0;4|d|4|0"},
		{sql: "select key::text, kind, columns, base->>'label', ours->>'label', theirs->>'label', theirs->>'qty' from graph.conflicts order by id",
			rows: "{\"id\": 1}|changed on both|label|a|MAIN|DEV|10;" +
				"{\"id\": 3}|deleted on target, changed on source|id, label, qty, w|c|<nil>|c|30"},
		// updating the staged row resolves its conflict; the row main
		// deleted is taken back from dev and its conflict dismissed
		{sql: "update p set label = 'BOTH' where id = 1", tag: "UPDATE 1"},
		{sql: "select key::text from graph.conflicts", rows: "{\"id\": 3}"},
		{sql: "insert into p values (3, 'c', 30, 0)", tag: "INSERT 0 1"},
		{sql: "commit", code: "55000", msg: "1 conflicting row"},
		{sql: "begin"},
		{sql: "call graph.merge('dev', strategy => 'stop')"},
		{sql: "update p set label = 'BOTH' where id = 1", tag: "UPDATE 1"},
		{sql: "insert into p values (3, 'c', 30, 0)", tag: "INSERT 0 1"},
		{sql: "delete from graph.conflicts", tag: "DELETE 1"},
		{sql: "commit", tag: "COMMIT"},
		{sql: "select * from p order by id", rows: "1|BOTH|10|0;2|b|2|0;3|c|30|0;4|d|4|0"},
		{sql: "select cardinality(parents), writer_kind from graph.commits limit 1", rows: "2|branch_merge"},
	})
}

// TestMergeRecolumnedKeyless: rows of a table without a primary key merge
// across a re-columning by value, on the columns both incarnations have
// (merge_recolumn_keyless.go): edges one side added or deleted apply to
// the other side's re-columned table in both directions (new columns
// take their DEFAULT), and a value whose copies both sides changed
// differently is a conflict on the table.
func TestMergeRecolumnedKeyless(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	runScript(t, c, []step{
		{sql: "create table e (src int8, dst int8)"},
		{sql: "insert into e values (1, 2), (1, 2), (2, 3), (3, 4)"},
		// main re-columns, b changes rows
		{sql: "call graph.create_branch('b')"},
		{sql: "alter table e add column w int4 default 0"},
		{sql: "update e set w = 5 where src = 3"},
		{sql: "set graph.branch = 'b'"},
		{sql: "insert into e values (5, 6)"},
		{sql: "delete from e where src = 2"},
		{sql: "set graph.branch = 'main'"},
		{sql: "call graph.merge('b')", tag: "CALL"},
		{sql: "select * from e order by 1, 2, 3", rows: "1|2|0;1|2|0;3|4|5;5|6|0"},
		// c re-columns (and adds a row after), main changes rows
		{sql: "call graph.create_branch('c')"},
		{sql: "set graph.branch = 'c'"},
		{sql: "alter table e rename column dst to target"},
		{sql: "alter table e add column label text default 'x'"},
		{sql: "insert into e values (9, 9, 9, 'c')"},
		{sql: "set graph.branch = 'main'"},
		{sql: "insert into e values (7, 8, 1)"},
		{sql: "delete from e where src = 5"},
		{sql: "call graph.merge('c')", tag: "CALL"},
		{sql: "select * from e order by 1, 2, 3", rows: "1|2|0|x;1|2|0|x;3|4|5|x;7|8|1|x;9|9|9|c"},
		// copies of one value changed differently on both: a conflict
		{sql: "call graph.create_branch('d')"},
		{sql: "delete from e where src = 1"},
		{sql: "set graph.branch = 'd'"},
		{sql: "alter table e add column z int4"},
		{sql: "insert into e values (1, 2, 0, 'x', 1)"},
		{sql: "set graph.branch = 'main'"},
		{sql: "call graph.merge('d')", code: "40001", msg: `e (re-columned on d while rows changed on both branches in different ways`},
		{sql: "call graph.merge('d', strategy => 'theirs')", code: "40001", msg: `e (re-columned on d while rows changed on both branches in different ways`},
		{sql: "select count(*) from e", rows: "3"},
	})
}

// TestMergeRecolumnedOnBoth pins merges of tables both branches
// re-columned (docs/architecture.md, "Merges: bases, schema changes,
// conflicts resolved in SQL"): columns merge three ways by id (each
// side's added columns, a rename on one side and a drop on the other),
// rows per key and per column with the one-sided columns' defaults;
// later merges in both directions keep lining the columns up; colliding
// schema changes are conflicts in SQL names, row conflicts are settled
// by 'ours'/'theirs', and a table without a primary key is 0A000.
func TestMergeRecolumnedOnBoth(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	runScript(t, c, []step{
		{sql: "create table acct (id int8 primary key, owner text, balance int4, memo text)"},
		{sql: "insert into acct values (1, 'ada', 100, 'm1'), (2, 'bob', 50, 'm2'), (3, 'cy', 10, 'm3')"},
		{sql: "create table e (src int8, dst int8)"},
		{sql: "insert into e values (1, 2)"},
		{sql: "call graph.create_branch('dev')"},
		{sql: "alter table acct add column currency text default 'EUR'"},
		{sql: "update acct set balance = 101 where id = 1"},
		{sql: "insert into acct values (4, 'dee', 4, 'm4', 'USD')"},
		{sql: "alter table e add column w int4"},
		{sql: "set graph.branch = 'dev'"},
		{sql: "alter table acct add column note text default 'n'"},
		{sql: "alter table acct rename column owner to holder"},
		{sql: "alter table acct drop column memo"},
		{sql: "update acct set holder = 'Bob', note = 'vip' where id = 2"},
		{sql: "delete from acct where id = 3"},
		{sql: "insert into acct values (5, 'eve', 5, 'new')"},
		{sql: "alter table e add column label text"},
		{sql: "set graph.branch = 'main'"},
		{sql: "call graph.merge('dev')", code: "0A000", msg: `table "e" re-columned on both dev and main, and the table has no primary key to line its rows up by`},
		{sql: "set graph.branch = 'dev'"},
		{sql: "drop table e"},
		{sql: "set graph.branch = 'main'"},
		{sql: "drop table e"},
		{sql: "call graph.merge('dev')", tag: "CALL"},
		{sql: "select * from acct order by id", rows: "1|ada|101|EUR|n;2|Bob|50|EUR|vip;4|dee|4|USD|n;5|eve|5|EUR|new"},
		// later merges line the columns up by id in both directions
		{sql: "set graph.branch = 'dev'"},
		{sql: "update acct set note = 'late' where id = 5"},
		{sql: "set graph.branch = 'main'"},
		{sql: "update acct set currency = 'GBP' where id = 5"},
		{sql: "call graph.merge('dev')", tag: "CALL"},
		{sql: "call graph.merge('main', 'dev')", tag: "CALL"},
		{sql: "set graph.branch = 'dev'"},
		{sql: "select * from acct where id = 5", rows: "5|eve|5|GBP|late"},
		{sql: "set graph.branch = 'main'"},
		// a column dropped on one side and renamed on the other
		{sql: "call graph.create_branch('x')"},
		{sql: "alter table acct drop column note"},
		{sql: "set graph.branch = 'x'"},
		{sql: "alter table acct rename column note to remark"},
		{sql: "alter table acct add column k int4"},
		{sql: "set graph.branch = 'main'"},
		{sql: "call graph.merge('x')", code: "40001", msg: `column "note" was dropped on main but renamed to "remark" on x`},
		// a column both set differently: 'ours' keeps main's value
		{sql: "call graph.create_branch('y')"},
		{sql: "alter table acct add column a int4"},
		{sql: "update acct set balance = 1 where id = 1"},
		{sql: "set graph.branch = 'y'"},
		{sql: "alter table acct add column b int4 default 9"},
		{sql: "update acct set balance = 2 where id = 1"},
		{sql: "insert into acct values (7, 'gil', 7)"},
		{sql: "set graph.branch = 'main'"},
		{sql: "call graph.merge('y')", code: "40001", msg: `row (id)=(1): column "balance" set differently on both branches`},
		{sql: "call graph.merge('y', strategy => 'ours')", tag: "CALL"},
		{sql: "select id, balance, a, b from acct where id in (1, 7) order by id", rows: "1|1|<nil>|9;7|7|<nil>|9"},
	})
}
