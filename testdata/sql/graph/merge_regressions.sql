-- merge_regressions.sql: merge histories that broke omnigraph's branch
-- merge, as regression cases (docs/architecture.md, "Merges: bases,
-- schema changes, conflicts resolved in SQL").
\ir social.psql
-- a branch whose changes cancel out (a row inserted, then deleted) merges
-- and stays mergeable
CALL graph.create_branch('netzero');
SET graph.branch = 'netzero';
INSERT INTO people VALUES (20, 'Temp', NULL, 1);
DELETE FROM people WHERE id = 20;
SET graph.branch = 'main';
CALL graph.merge('netzero');
SET graph.branch = 'netzero';
UPDATE people SET age = 37 WHERE id = 1;
SET graph.branch = 'main';
CALL graph.merge('netzero');
SELECT id, age FROM people WHERE id IN (1, 20) ORDER BY id;
-- a sibling's merge does not bring back an edge another branch deleted
CALL graph.create_branch('sib_a');
CALL graph.create_branch('sib_b');
SET graph.branch = 'sib_a';
DELETE FROM knows WHERE src = 1 AND dst = 2;
SET graph.branch = 'sib_b';
UPDATE knows SET since = 1999 WHERE src = 2 AND dst = 4;
SET graph.branch = 'main';
CALL graph.merge('sib_a');
CALL graph.merge('sib_b');
SELECT src, dst, since FROM knows WHERE src IN (1, 2) ORDER BY src, dst;
-- … nor when the sibling took in main first and merges back
CALL graph.merge('main', 'sib_b');
SET graph.branch = 'sib_b';
INSERT INTO knows VALUES (5, 1, 2024);
SET graph.branch = 'main';
CALL graph.merge('sib_b');
SELECT count(*) AS edges_1_2 FROM knows WHERE src = 1 AND dst = 2;
SELECT src, dst, since FROM knows WHERE src = 5 ORDER BY dst;
-- criss-cross: two branches that merged each other find the latest
-- common base (no false conflict on rows only one side changed since)
CALL graph.create_branch('cx_a');
CALL graph.create_branch('cx_b');
SET graph.branch = 'cx_a';
UPDATE people SET name = 'Ada L.' WHERE id = 1;
SET graph.branch = 'cx_b';
UPDATE people SET name = 'Grace H.' WHERE id = 2;
SET graph.branch = 'main';
CALL graph.merge('cx_a', 'cx_b');
CALL graph.merge('cx_b', 'cx_a');
SET graph.branch = 'cx_a';
UPDATE people SET name = 'Ada Lovelace' WHERE id = 1;
SET graph.branch = 'cx_b';
UPDATE people SET name = 'Grace Hopper' WHERE id = 2;
SET graph.branch = 'main';
CALL graph.merge('cx_a', 'cx_b');
CALL graph.merge('cx_b', 'cx_a');
SET graph.branch = 'cx_a';
SELECT id, name FROM people WHERE id IN (1, 2) ORDER BY id;
SET graph.branch = 'cx_b';
SELECT id, name FROM people WHERE id IN (1, 2) ORDER BY id;
SET graph.branch = 'main';
CALL graph.merge('cx_b');
SELECT id, name FROM people WHERE id IN (1, 2) ORDER BY id;
-- a branch's child stays readable after its parent was merged into main
-- and cleanup ran
CALL graph.create_branch('parent');
SET graph.branch = 'parent';
INSERT INTO companies VALUES (7, 'Parent Co', NULL);
CALL graph.create_branch('child', 'parent');
SET graph.branch = 'main';
CALL graph.merge('parent');
SET graph.branch = 'parent';
UPDATE companies SET name = 'Parent Co 2' WHERE id = 7;
SET graph.branch = 'main';
CALL graph.merge('parent');
\o /dev/null
CALL graph.cleanup();
\o
SET graph.branch = 'child';
SELECT id, name FROM companies WHERE id = 7;
-- a refused merge leaves the target writable
SET graph.branch = 'main';
CALL graph.create_branch('clash');
SET graph.branch = 'clash';
UPDATE companies SET name = 'Clash Co' WHERE id = 3;
SET graph.branch = 'main';
UPDATE companies SET name = 'Main Co' WHERE id = 3;
CALL graph.merge('clash');
INSERT INTO companies VALUES (8, 'After Co', NULL);
SELECT id, name FROM companies WHERE id IN (3, 8) ORDER BY id;
-- an edge table (no primary key) changed on both branches merges by
-- value: edges added on either side are kept, the same edge added on
-- both is one edge …
CALL graph.create_branch('edges');
SET graph.branch = 'edges';
INSERT INTO knows VALUES (3, 1, 2020), (4, 1, 2021);
DELETE FROM knows WHERE src = 6 AND dst = 1;
SET graph.branch = 'main';
INSERT INTO knows VALUES (3, 1, 2020), (4, 2, 2022);
CALL graph.merge('edges');
SELECT src, dst, since FROM knows WHERE src IN (3, 4, 6) ORDER BY src, dst;
-- … one pair added with different values on the two branches breaks
-- UNIQUE (src, dst) in the merged result …
CALL graph.create_branch('edges2');
SET graph.branch = 'edges2';
INSERT INTO knows VALUES (6, 2, 2000);
SET graph.branch = 'main';
INSERT INTO knows VALUES (6, 2, 2001);
CALL graph.merge('edges2');
-- … and so does one edge updated differently on both: by value an
-- update is the old value deleted (the same change on both) and a new one
-- added on each side (without the UNIQUE constraint both would be kept)
CALL graph.create_branch('edges3');
SET graph.branch = 'edges3';
UPDATE knows SET since = 1 WHERE src = 3 AND dst = 5;
SET graph.branch = 'main';
UPDATE knows SET since = 2 WHERE src = 3 AND dst = 5;
CALL graph.merge('edges3');
SELECT src, dst, since FROM knows WHERE src = 3 AND dst = 5;
-- staged with 'stop', edges merge by value beside a row conflict
CALL graph.create_branch('edges4');
SET graph.branch = 'edges4';
INSERT INTO knows VALUES (1, 5, 2030);
UPDATE people SET age = 90 WHERE id = 6;
SET graph.branch = 'main';
INSERT INTO knows VALUES (2, 5, 2031);
UPDATE people SET age = 91 WHERE id = 6;
BEGIN;
CALL graph.merge('edges4', strategy => 'stop');
SELECT src, dst, since FROM knows WHERE dst = 5 ORDER BY src;
SELECT key, columns FROM graph.conflicts;
DELETE FROM graph.conflicts;
COMMIT;
SELECT src, dst, since FROM knows WHERE dst = 5 ORDER BY src;
SELECT id, age FROM people WHERE id = 6;
-- edge cardinality bounds are checked on the merged result: each branch
-- keeps within graph.max_out = 2 (and graph.min_out = 1), together they
-- do not
CREATE TABLE node (id int8 PRIMARY KEY);
CREATE TABLE link (src int8 NOT NULL REFERENCES node (id), dst int8 NOT NULL REFERENCES node (id))
  WITH (graph.kind = edge, graph.max_out = 2, graph.min_out = 1);
BEGIN;
INSERT INTO node VALUES (1), (2), (3), (4);
INSERT INTO link VALUES (1, 2), (2, 1), (3, 1), (3, 2), (4, 1);
COMMIT;
CALL graph.create_branch('card');
SET graph.branch = 'card';
INSERT INTO link VALUES (1, 3);
DELETE FROM link WHERE src = 3 AND dst = 1;
SET graph.branch = 'main';
INSERT INTO link VALUES (1, 4);
DELETE FROM link WHERE src = 3 AND dst = 2;
CALL graph.merge('card');
DELETE FROM link WHERE src = 1 AND dst = 4;
CALL graph.merge('card');
INSERT INTO link VALUES (3, 4);
CALL graph.merge('card');
SELECT src, dst FROM link ORDER BY src, dst;
