-- merge_schema_both.sql: tables re-columned on both branches
-- (docs/architecture.md, "Merges: bases, schema changes, conflicts
-- resolved in SQL"): the columns merge three ways by column id and the
-- rows per primary key into one table holding both sides' changes;
-- schema changes that collide are conflicts in SQL names.
CREATE TABLE acct (id int8 PRIMARY KEY, owner text, balance int4, memo text);
INSERT INTO acct VALUES (1, 'ada', 100, 'm1'), (2, 'bob', 50, 'm2'), (3, 'cy', 10, 'm3');
CALL graph.create_branch('dev');
-- main adds a column and changes rows
ALTER TABLE acct ADD COLUMN currency text DEFAULT 'EUR';
UPDATE acct SET balance = 101 WHERE id = 1;
INSERT INTO acct VALUES (4, 'dee', 4, 'm4', 'USD');
-- dev adds another column, renames one, drops one, changes rows
SET graph.branch = 'dev';
ALTER TABLE acct ADD COLUMN note text DEFAULT 'n';
ALTER TABLE acct RENAME COLUMN owner TO holder;
ALTER TABLE acct DROP COLUMN memo;
UPDATE acct SET holder = 'Bob', note = 'vip' WHERE id = 2;
DELETE FROM acct WHERE id = 3;
INSERT INTO acct VALUES (5, 'eve', 5, 'new');
SET graph.branch = 'main';
CALL graph.merge('dev');
SELECT * FROM acct ORDER BY id;
-- the merged table keeps both sides' defaults
INSERT INTO acct (id, holder, balance) VALUES (6, 'fay', 6);
SELECT * FROM acct WHERE id = 6;
-- dev goes on changing rows: its columns still line up by id
SET graph.branch = 'dev';
UPDATE acct SET note = 'late' WHERE id = 5;
SET graph.branch = 'main';
CALL graph.merge('dev');
SELECT id, holder, note FROM acct WHERE id = 5;
-- and dev takes the merged table back
CALL graph.merge('main', 'dev');
SET graph.branch = 'dev';
SELECT * FROM acct ORDER BY id;
SET graph.branch = 'main';
-- one side retypes a column, the other adds one
CALL graph.create_branch('b2');
ALTER TABLE acct ALTER COLUMN balance TYPE int8;
SET graph.branch = 'b2';
ALTER TABLE acct ADD COLUMN flag bool DEFAULT true;
UPDATE acct SET balance = 7 WHERE id = 2;
SET graph.branch = 'main';
CALL graph.merge('b2');
SELECT id, balance, pg_typeof(balance), flag FROM acct ORDER BY id;
-- both add a column of the same name and type: one column
CALL graph.create_branch('b3');
ALTER TABLE acct ADD COLUMN tag text;
UPDATE acct SET tag = 'm' WHERE id = 1;
SET graph.branch = 'b3';
ALTER TABLE acct ADD COLUMN tag text;
UPDATE acct SET tag = 'b' WHERE id = 2;
SET graph.branch = 'main';
CALL graph.merge('b3');
SELECT id, tag FROM acct ORDER BY id;
-- schema conflicts: the same column added with different types, one
-- column renamed differently on both
CALL graph.create_branch('b4');
ALTER TABLE acct ADD COLUMN z int4;
ALTER TABLE acct RENAME COLUMN note TO remark;
SET graph.branch = 'b4';
ALTER TABLE acct ADD COLUMN z text;
ALTER TABLE acct RENAME COLUMN note TO comment;
SET graph.branch = 'main';
CALL graph.merge('b4');
-- a column both set differently in a row: a row conflict, settled by a
-- strategy
CALL graph.create_branch('b5');
ALTER TABLE acct ADD COLUMN w int4;
UPDATE acct SET holder = 'ADA' WHERE id = 1;
SET graph.branch = 'b5';
ALTER TABLE acct ADD COLUMN v int4;
UPDATE acct SET holder = 'Ada L.' WHERE id = 1;
SET graph.branch = 'main';
CALL graph.merge('b5');
CALL graph.merge('b5', strategy => 'theirs');
SELECT id, holder, w, v FROM acct WHERE id = 1;
-- … or staged ('stop') and resolved in SQL: the staged table has both
-- sides' columns; conflicts show each side's row in them (a column a
-- side lacks as its DEFAULT). Row 1: both set holder (v merged from b6);
-- row 2: deleted on main, updated on b6; row 4: updated on main,
-- deleted on b6; row 7: added on both with different values.
CALL graph.create_branch('b6');
ALTER TABLE acct ADD COLUMN m text DEFAULT 'dm';
UPDATE acct SET holder = 'main1' WHERE id = 1;
DELETE FROM acct WHERE id = 2;
UPDATE acct SET balance = 44 WHERE id = 4;
INSERT INTO acct (id, holder, balance) VALUES (7, 'main7', 7);
SET graph.branch = 'b6';
ALTER TABLE acct ADD COLUMN b text DEFAULT 'db';
UPDATE acct SET holder = 'b6one', v = 11 WHERE id = 1;
UPDATE acct SET balance = 22 WHERE id = 2;
DELETE FROM acct WHERE id = 4;
INSERT INTO acct (id, holder, balance) VALUES (7, 'b6seven', 7);
UPDATE acct SET b = 'b6' WHERE id = 5;
SET graph.branch = 'main';
BEGIN;
CALL graph.merge('b6', strategy => 'stop');
SELECT id, holder, balance, v, m, b FROM acct ORDER BY id;
SELECT id, kind, key, columns, ours->>'holder' AS ours_holder, theirs->>'holder' AS theirs_holder,
  ours->>'b' AS ours_b, theirs->>'m' AS theirs_m FROM graph.conflicts ORDER BY id;
COMMIT;
BEGIN;
CALL graph.merge('b6', strategy => 'stop');
-- take b6's holder for rows 1 and 7; keep main's deletion of row 2 and
-- its updated row 4 (DELETE FROM graph.conflicts keeps the staged rows)
UPDATE acct a SET holder = c.theirs->>'holder' FROM graph.conflicts c
  WHERE c.key->>'id' = '1' AND a.id = 1;
DELETE FROM graph.conflicts WHERE key->>'id' IN ('2', '4');
UPDATE acct a SET holder = c.theirs->>'holder' FROM graph.conflicts c
  WHERE c.key->>'id' = '7' AND a.id = 7;
SELECT count(*) AS open_conflicts FROM graph.conflicts;
COMMIT;
SELECT id, holder, balance, v, m, b FROM acct ORDER BY id;
SELECT cardinality(parents) AS parents FROM graph.commits ORDER BY manifest_version DESC LIMIT 1;
SELECT graph.merge('b6') AS nothing;
