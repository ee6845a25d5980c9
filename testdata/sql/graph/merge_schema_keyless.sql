-- merge_schema_keyless.sql: a table without a primary key (an edge
-- table) re-columned on one branch while the other changes its rows
-- (docs/architecture.md, "Merges: bases, schema changes, conflicts
-- resolved in SQL"): rows merge by value on the columns both branches
-- have; copies both changed differently conflict; re-columned on both
-- is 0A000.
CREATE TABLE knows (src int8, dst int8);
INSERT INTO knows VALUES (1, 2), (1, 2), (2, 3), (3, 4);
CALL graph.create_branch('dev');
-- main re-columns, dev adds and deletes edges
ALTER TABLE knows ADD COLUMN since int4 DEFAULT 2020;
UPDATE knows SET since = 1999 WHERE src = 3;
SET graph.branch = 'dev';
INSERT INTO knows VALUES (5, 6);
DELETE FROM knows WHERE src = 2;
SET graph.branch = 'main';
CALL graph.merge('dev');
SELECT * FROM knows ORDER BY src, dst, since;
-- the other direction: dev re-columns, main adds and deletes edges
CALL graph.merge('main', 'dev');
SET graph.branch = 'dev';
ALTER TABLE knows RENAME COLUMN dst TO target;
ALTER TABLE knows ADD COLUMN label text DEFAULT 'friend';
INSERT INTO knows VALUES (9, 9, 2001, 'dev');
SET graph.branch = 'main';
INSERT INTO knows VALUES (7, 8, 2024);
DELETE FROM knows WHERE src = 5;
CALL graph.merge('dev');
SELECT * FROM knows ORDER BY src, target, since;
-- copies of one edge changed differently on both: a conflict on the table
CALL graph.create_branch('b2');
DELETE FROM knows WHERE src = 1;
SET graph.branch = 'b2';
ALTER TABLE knows ADD COLUMN weight int4;
INSERT INTO knows VALUES (1, 2, 2020, 'friend', 1);
SET graph.branch = 'main';
CALL graph.merge('b2');
-- re-columned on both: no identity to line rows up by
ALTER TABLE knows ADD COLUMN note text;
CALL graph.merge('b2');
SELECT count(*) FROM knows;
