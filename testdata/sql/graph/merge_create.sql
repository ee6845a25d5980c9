-- merge_create.sql: relations each branch creates after a fork
-- (docs/architecture.md, "Merges: bases, schema changes, conflicts
-- resolved in SQL"): a table created off main has a random table id, so
-- tables, views, sequences and functions both sides created merge in
-- either direction with their rows, constraints, indexes and edge
-- endpoints; an OID the target already uses is replaced by a fresh one.
CREATE TABLE base (id int8 PRIMARY KEY, v text);
INSERT INTO base VALUES (1, 'x');
CALL graph.create_branch('dev');
-- main creates a table, an index, a sequence and a view
CREATE TABLE a (id int8 PRIMARY KEY, note text UNIQUE, n int4 CHECK (n > 0));
CREATE INDEX a_n_idx ON a (n);
INSERT INTO a VALUES (1, 'a1', 1), (2, 'a2', 2);
CREATE SEQUENCE main_seq;
CREATE VIEW a_view AS SELECT id, note FROM a;
-- dev creates others, among them a node table and an edge table
-- between its rows, and a function
SET graph.branch = 'dev';
CREATE TABLE b (id int8 PRIMARY KEY, qty int4 NOT NULL CHECK (qty >= 0), tag text);
CREATE INDEX b_tag_idx ON b (tag);
INSERT INTO b VALUES (10, 1, 't'), (11, 2, 'u');
CREATE SEQUENCE dev_seq;
SELECT nextval('dev_seq');
CREATE VIEW b_view AS SELECT id, qty FROM b;
CREATE TABLE person (id int8 PRIMARY KEY, name text NOT NULL);
CREATE TABLE follows (
  src int8 NOT NULL REFERENCES person (id) ON DELETE CASCADE,
  dst int8 NOT NULL REFERENCES person (id) ON DELETE CASCADE,
  UNIQUE (src, dst)
) WITH (graph.kind = edge);
INSERT INTO person VALUES (1, 'p1'), (2, 'p2'), (3, 'p3');
INSERT INTO follows VALUES (1, 2), (2, 3);
CREATE FUNCTION dbl(x int4) RETURNS int4 LANGUAGE sql AS 'SELECT x * 2';
-- their table ids are random (bit 62 set), main's come from the counter
SELECT name, table_id >= 4611686018427387904 AS random_id FROM graph.tables ORDER BY 1;
SET graph.branch = 'main';
SELECT id AS before_merge FROM graph.commits ORDER BY manifest_version DESC LIMIT 1 \gset
CALL graph.merge('dev');
SELECT id AS first_merge FROM graph.commits ORDER BY manifest_version DESC LIMIT 1 \gset
SELECT * FROM a ORDER BY id;
SELECT * FROM b ORDER BY id;
SELECT * FROM a_view ORDER BY id;
SELECT * FROM b_view ORDER BY id;
SELECT p.name, q.name FROM follows f JOIN person p ON p.id = f.src JOIN person q ON q.id = f.dst ORDER BY 1;
SELECT nextval('dev_seq'), nextval('main_seq'), dbl(21);
-- every relation keeps an OID of its own
SELECT count(*) AS relations, count(DISTINCT oid) AS oids FROM pg_class
 WHERE relname IN ('base', 'a', 'b', 'a_view', 'b_view', 'main_seq', 'dev_seq', 'person', 'follows');
SELECT tablename, indexname FROM pg_indexes WHERE tablename IN ('a', 'b', 'follows') ORDER BY 1, 2;
-- constraints came along
INSERT INTO b VALUES (12, -1, 'x');
INSERT INTO b VALUES (10, 5, 'dup');
INSERT INTO a VALUES (3, 'a1', 3);
INSERT INTO follows VALUES (1, 9);
DELETE FROM person WHERE id = 3;
SELECT src, dst FROM follows ORDER BY 1, 2;
-- and the other way: main's relations arrive on dev
CALL graph.merge('main', 'dev');
SET graph.branch = 'dev';
SELECT * FROM a ORDER BY id;
SELECT * FROM a_view ORDER BY id;
SELECT nextval('main_seq');
SELECT src, dst FROM follows ORDER BY 1, 2;
SELECT count(*) AS relations, count(DISTINCT oid) AS oids FROM pg_class
 WHERE relname IN ('base', 'a', 'b', 'a_view', 'b_view', 'main_seq', 'dev_seq', 'person', 'follows');
-- both go on writing to the tables the other created, then merge again
INSERT INTO a VALUES (5, 'dev-a', 5);
INSERT INTO b VALUES (13, 3, 'v');
INSERT INTO follows VALUES (2, 1);
SET graph.branch = 'main';
INSERT INTO b VALUES (14, 4, 'w');
UPDATE person SET name = 'P1' WHERE id = 1;
UPDATE a SET n = 20 WHERE id = 2;
CALL graph.merge('dev');
SELECT * FROM a ORDER BY id;
SELECT * FROM b ORDER BY id;
SELECT p.name, q.name FROM follows f JOIN person p ON p.id = f.src JOIN person q ON q.id = f.dst ORDER BY 1;
-- time travel reads each version's catalog and rows
SET graph.as_of = :'first_merge';
SELECT * FROM b ORDER BY id;
SELECT count(*) AS relations, count(DISTINCT oid) AS oids FROM pg_class
 WHERE relname IN ('base', 'a', 'b', 'a_view', 'b_view', 'main_seq', 'dev_seq', 'person', 'follows');
SET graph.as_of = :'before_merge';
SELECT * FROM b;
SELECT * FROM a ORDER BY id;
RESET graph.as_of;
CALL graph.merge('main', 'dev');
SET graph.branch = 'dev';
SELECT * FROM b ORDER BY id;
SELECT * FROM person ORDER BY id;
SET graph.branch = 'main';
-- one name created on both branches is a schema conflict, even with the
-- same definition: the two tables hold different rows and are
-- different tables (rename one on its branch, merge, then combine)
CALL graph.create_branch('twin');
CREATE TABLE t (id int8 PRIMARY KEY);
INSERT INTO t VALUES (1);
SET graph.branch = 'twin';
CREATE TABLE t (id int8 PRIMARY KEY);
INSERT INTO t VALUES (2);
SET graph.branch = 'main';
CALL graph.merge('twin');
SET graph.branch = 'twin';
ALTER TABLE t RENAME TO t_twin;
SET graph.branch = 'main';
CALL graph.merge('twin');
SELECT * FROM t UNION ALL SELECT * FROM t_twin ORDER BY 1;
