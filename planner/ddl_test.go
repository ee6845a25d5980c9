package planner

import (
	"testing"

	"github.com/jackc/pgx/v5"
)

// graphSchema creates a small social graph through SQL DDL.
var graphSchema = []step{
	{sql: "create table person (id int8 primary key, name text not null, age int4 check (age >= 0), email text unique)", tag: "CREATE TABLE"},
	{sql: "create table company (id int8 primary key, name text not null)", tag: "CREATE TABLE"},
	{sql: "create table knows (src int8 not null references person(id) on delete cascade, dst int8 not null references person(id) on delete cascade, since int4) with (graph.kind = edge)", tag: "CREATE TABLE"},
	{sql: "create table works_at (src int8 not null references person(id), dst int8 not null references company(id) on delete set null, role text) with (graph.kind = edge)", tag: "CREATE TABLE"},
}

// TestConstraints: each constraint class violated once, with
// PostgreSQL's SQLSTATE, message and detail.
func TestConstraints(t *testing.T) {
	steps := append(append([]step(nil), graphSchema...), []step{
		{sql: "insert into person values (1, 'ada', 36, 'ada@x'), (2, 'bob', 40, 'bob@x'), (3, 'cy', 20, null)", tag: "INSERT 0 3"},
		{sql: "insert into company values (10, 'acme')"},
		{sql: "insert into knows values (1, 2, 2020), (2, 3, 2021), (1, 3, 2019)", tag: "INSERT 0 3"},
		{sql: "insert into works_at values (1, 10, 'eng'), (2, 10, 'ops')"},
		{sql: "insert into person values (1, 'dup', 1, null)", code: "23505", msg: `duplicate key value violates unique constraint "person_pkey"`, detail: "Key (id)=(1) already exists."},
		{sql: "insert into person values (4, 'dup', 1, 'ada@x')", code: "23505", msg: `duplicate key value violates unique constraint "person_email_key"`, detail: "Key (email)=(ada@x) already exists."},
		{sql: "insert into person (id, age) values (4, 1)", code: "23502", msg: `null value in column "name" of relation "person" violates not-null constraint`, detail: "Failing row contains (4, null, 1, null)."},
		{sql: "insert into person values (4, 'neg', -1, null)", code: "23514", msg: `new row for relation "person" violates check constraint "person_age_check"`, detail: "Failing row contains (4, neg, -1, null)."},
		{sql: "update person set age = -5 where id = 2", code: "23514", msg: `violates check constraint "person_age_check"`},
		{sql: "insert into knows values (1, 99, 2000)", code: "23503", msg: `insert or update on table "knows" violates foreign key constraint "knows_dst_fkey"`, detail: `Key (dst)=(99) is not present in table "person".`},
		{sql: "delete from person where id = 2", code: "23503", msg: `update or delete on table "person" violates foreign key constraint "works_at_src_fkey" on table "works_at"`, detail: `Key (id)=(2) is still referenced from table "works_at".`},
		{sql: "update person set id = 20 where id = 2", code: "23503", msg: `violates foreign key constraint "knows_src_fkey" on table "knows"`},
		// CASCADE deletes incident edges in the same statement (and commit)
		{sql: "delete from person where id = 3", tag: "DELETE 1"},
		{sql: "select src, dst from knows order by src, dst", rows: "1|2"},
		// SET NULL clears the reference (works_at.dst is NOT NULL here: 23502)
		{sql: "delete from company where id = 10", code: "23502", msg: `null value in column "dst" of relation "works_at"`},
		{sql: "select count(*) from works_at", rows: "2"},
	}...)
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			ts := startServer(t, nil)
			runScript(t, ts.connect(t, m.mode), steps)
		})
	}
}

// TestTransactionalDDL: DDL and DML of one transaction publish together
// or roll back together.
func TestTransactionalDDL(t *testing.T) {
	steps := []step{
		{sql: "begin"},
		{sql: "create table t1 (id int8 primary key, v text)"},
		{sql: "insert into t1 values (1, 'a'), (2, 'b')"},
		{sql: "select count(*) from t1", rows: "2"},
		{sql: "rollback"},
		{sql: "select * from t1", code: "42P01", msg: `relation "t1" does not exist`},
		{sql: "begin"},
		{sql: "create table t1 (id int8 primary key, v text)"},
		{sql: "insert into t1 values (1, 'a'), (2, 'b')"},
		{sql: "update t1 set v = 'B' where id = 2"},
		{sql: "savepoint s"},
		{sql: "create table t2 (id int8 primary key)"},
		{sql: "rollback to savepoint s"},
		{sql: "select * from t2", code: "42P01", msg: `relation "t2" does not exist`},
		{sql: "rollback to savepoint s"},
		{sql: "commit"},
		{sql: "select id, v from t1 order by id", rows: "1|a;2|B"},
		{sql: "select * from t2", code: "42P01", msg: `relation "t2" does not exist`},
		{sql: "begin"},
		{sql: "insert into t1 values (3, 'c')"},
		{sql: "truncate t1"},
		{sql: "insert into t1 values (4, 'd')"},
		{sql: "select id from t1", rows: "4"},
		{sql: "commit"},
		{sql: "select id from t1", rows: "4"},
		{sql: "drop table t1", tag: "DROP TABLE"},
		{sql: "select * from t1", code: "42P01", msg: `relation "t1" does not exist`},
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			ts := startServer(t, nil)
			runScript(t, ts.connect(t, m.mode), steps)
		})
	}
}

// TestSerial: serial and identity columns take values from their
// sequence in INSERT (VALUES, DEFAULT, SELECT, DEFAULT VALUES) and COPY;
// values are never reused, even after a rollback.
func TestSerial(t *testing.T) {
	steps := []step{
		{sql: "create table items (id serial primary key, name text default 'unnamed', n int8 generated by default as identity)", tag: "CREATE TABLE"},
		{sql: "insert into items (name) values ('a'), ('b') returning id, n", rows: "1|1;2|2"},
		{sql: "insert into items values (DEFAULT, 'c', DEFAULT) returning id, name, n", rows: "3|c|3"},
		{sql: "insert into items default values returning id, name", rows: "4|unnamed"},
		{sql: "insert into items (name) select name || '2' from items where id <= 2 order by id returning id, name", rows: "5|a2;6|b2"},
		{sql: "begin"},
		{sql: "insert into items (name) values ('rolled back') returning id", rows: "7"},
		{sql: "rollback"},
		{sql: "insert into items (id, name) values (100, 'explicit')"},
		{sql: "insert into items (name) values ('after') returning id", rows: "8"},
		{sql: "select count(*), max(id) from items", rows: "8|100"},
		{sql: "select currval('items_id_seq')", rows: "8"},
		{sql: "select nextval('items_id_seq')", rows: "9"},
		{sql: "select setval('items_id_seq', 200)", rows: "200"},
		{sql: "insert into items (name) values ('x') returning id", rows: "201"},
		{sql: "select lastval()", rows: "10"},
		{sql: "select nextval('nope_seq')", code: "42P01", msg: `relation "nope_seq" does not exist`},
		{sql: "merge into items t using (values ('m1'), ('after')) s(name) on t.name = s.name when not matched then insert (name) values (s.name) returning t.id, t.name", rows: "202|m1"},
		{sql: "update items set id = default where name = 'm1' returning id", rows: "203"},
		{sql: "truncate items restart identity"},
		{sql: "insert into items (name) values ('fresh') returning id, n", rows: "1|1"},
		{sql: "create sequence s1 start 10"},
		{sql: "select nextval('s1'), nextval('s1')", rows: "10|11"},
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			ts := startServer(t, nil)
			runScript(t, ts.connect(t, m.mode), steps)
		})
	}
}

// TestMaxOut: graph.max_out bounds each source's outgoing edges at the
// statement (INSERT and UPDATE), counting pending edges.
func TestMaxOut(t *testing.T) {
	ts := startServer(t, nil)
	runScript(t, ts.connect(t, pgx.QueryExecModeSimpleProtocol), []step{
		{sql: "create table n (id int8 primary key)"},
		{sql: "create table e (src int8 not null references n(id), dst int8 not null references n(id)) with (graph.kind = edge, graph.max_out = 2)"},
		{sql: "insert into n select g from generate_series(1, 4) g"},
		{sql: "insert into e values (1, 2), (1, 3)", tag: "INSERT 0 2"},
		{sql: "insert into e values (1, 4)", code: "23514", msg: `edge table "e" violates graph.max_out = 2`, detail: "Source (src)=(1) would have 3 outgoing edges."},
		{sql: "insert into e values (2, 1), (2, 3), (2, 4)", code: "23514", msg: "graph.max_out = 2"},
		{sql: "begin"},
		{sql: "delete from e where dst = 3"},
		{sql: "insert into e values (1, 4)", tag: "INSERT 0 1"},
		{sql: "update e set src = 1 where src = 1 and dst = 2", tag: "UPDATE 1"},
		{sql: "insert into e values (1, 1)", code: "23514", msg: "graph.max_out = 2"},
		{sql: "rollback"},
	})
}

// TestAlterTable: ALTER TABLE forms that rewrite the table (ADD/DROP/
// RENAME COLUMN, TYPE) and catalog-only ones (constraints validated
// against existing rows), in autocommit and inside a transaction.
func TestAlterTable(t *testing.T) {
	steps := []step{
		{sql: "create table a (id int8 primary key, v text)"},
		{sql: "insert into a values (1, 'x'), (2, null)"},
		{sql: "alter table a add column n int4 default 7", tag: "ALTER TABLE"},
		{sql: "select id, v, n from a order by id", rows: "1|x|7;2|<nil>|7"},
		{sql: "insert into a (id) values (3) returning n", rows: "7"},
		{sql: "alter table a rename column v to w"},
		{sql: "select w from a where id = 1", rows: "x"},
		{sql: "alter table a alter column w set not null", code: "23502", msg: `column "w" of relation "a" contains null values`},
		{sql: "update a set w = 'y' where w is null"},
		{sql: "alter table a alter column w set not null"},
		{sql: "insert into a (id) values (4)", code: "23502", msg: `null value in column "w" of relation "a"`},
		{sql: "alter table a add constraint n_pos check (n > 10)", code: "23514", msg: `check constraint "n_pos" of relation "a" is violated by some row`},
		{sql: "begin"},
		{sql: "alter table a drop column n"},
		{sql: "insert into a values (5, 'z')"},
		{sql: "select string_agg(id::text || w, ',' order by id) from a", rows: "1x,2y,3y,5z"},
		{sql: "alter table a rename to b"},
		{sql: "select count(*) from b", rows: "4"},
		{sql: "commit"},
		{sql: "select * from a", code: "42P01", msg: `relation "a" does not exist`},
		{sql: "select string_agg(id::text || w, ',' order by id) from b", rows: "1x,2y,3y,5z"},
		{sql: "alter table b alter column id type int4"},
		{sql: "insert into b values (6, 'q')"},
		{sql: "select count(*), sum(id) from b", rows: "5|17"},
	}
	for _, m := range modes[:1] {
		t.Run(m.name, func(t *testing.T) {
			ts := startServer(t, nil)
			runScript(t, ts.connect(t, m.mode), steps)
		})
	}
}

// TestMinOut: graph.min_out is checked when the change is published (a
// node needs its edges in the same transaction).
func TestMinOut(t *testing.T) {
	ts := startServer(t, nil)
	runScript(t, ts.connect(t, pgx.QueryExecModeSimpleProtocol), []step{
		{sql: "create table n (id int8 primary key)"},
		{sql: "create table e (src int8 not null references n(id), dst int8 not null references n(id)) with (graph.kind = edge, graph.min_out = 1)"},
		{sql: "insert into n values (1)", code: "23514", msg: `edge table "e" violates graph.min_out = 1`, detail: "Source (src)=(1) has 0 outgoing edges."},
		{sql: "begin"},
		{sql: "insert into n values (1), (2)"},
		{sql: "insert into e values (1, 2), (2, 1)"},
		{sql: "commit"},
		{sql: "select count(*) from e", rows: "2"},
		{sql: "delete from e where src = 2", code: "23514", msg: "graph.min_out = 1"},
		{sql: "begin"},
		{sql: "delete from e where src = 2"},
		{sql: "commit", code: "23514", msg: "graph.min_out = 1"},
		{sql: "select count(*) from e", rows: "2"},
	})
}
