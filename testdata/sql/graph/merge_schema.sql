-- merge_schema.sql: merges through schema changes (docs/architecture.md,
-- "Merges: bases, schema changes, conflicts resolved in SQL"): rows
-- changed on one branch merge into a table re-columned on the other, in
-- both directions; definitions changed on both merge part by part;
-- incompatible changes are schema conflicts in SQL names.
CREATE TABLE acct (id int8 PRIMARY KEY, owner text, balance int4);
INSERT INTO acct VALUES (1, 'ada', 100), (2, 'bob', 50), (3, 'cy', 10);
CALL graph.create_branch('b3');
-- main re-columns acct; b3 changes its rows
ALTER TABLE acct ADD COLUMN currency text DEFAULT 'EUR';
ALTER TABLE acct RENAME COLUMN owner TO holder;
SET graph.branch = 'b3';
UPDATE acct SET balance = balance + 1 WHERE id = 1;
UPDATE acct SET owner = 'Bob' WHERE id = 2;
DELETE FROM acct WHERE id = 3;
INSERT INTO acct VALUES (4, 'dee', 7);
SET graph.branch = 'main';
CALL graph.merge('b3');
SELECT * FROM acct ORDER BY id;
-- the other direction: b3 re-columns, main changes rows
SET graph.branch = 'b3';
CALL graph.merge('main', 'b3');
ALTER TABLE acct ALTER COLUMN balance TYPE int8;
ALTER TABLE acct DROP COLUMN currency;
SET graph.branch = 'main';
UPDATE acct SET currency = 'USD', balance = 200 WHERE id = 1;
CALL graph.merge('b3');
SELECT id, holder, balance, pg_typeof(balance) FROM acct ORDER BY id;
-- a column both set differently: a conflict naming the row and column …
CALL graph.create_branch('b4');
ALTER TABLE acct ADD COLUMN note text;
UPDATE acct SET holder = 'ADA' WHERE id = 1;
SET graph.branch = 'b4';
UPDATE acct SET holder = 'Ada L.' WHERE id = 1;
SET graph.branch = 'main';
CALL graph.merge('b4');
-- … staged with 'stop' and resolved in SQL
BEGIN;
CALL graph.merge('b4', strategy => 'stop');
SELECT table_name, key, kind, columns, base->>'holder' AS base, ours->>'holder' AS ours, theirs->>'holder' AS theirs FROM graph.conflicts;
UPDATE acct SET holder = 'Ada L.' WHERE id = 1;
SELECT count(*) FROM graph.conflicts;
COMMIT;
SELECT id, holder FROM acct ORDER BY id;
-- definitions changed on both: different constraints merge, and each is
-- checked on the merged rows
CALL graph.create_branch('b5');
ALTER TABLE acct ADD CONSTRAINT positive CHECK (balance >= 0);
SET graph.branch = 'b5';
ALTER TABLE acct ADD CONSTRAINT named CHECK (holder <> '');
INSERT INTO acct VALUES (5, 'eve', -1);
SET graph.branch = 'main';
CALL graph.merge('b5');
SET graph.branch = 'b5';
UPDATE acct SET balance = 1 WHERE id = 5;
SET graph.branch = 'main';
CALL graph.merge('b5');
INSERT INTO acct VALUES (6, '', 1);
-- the same constraint changed differently: a schema conflict
CALL graph.create_branch('b6');
ALTER TABLE acct DROP CONSTRAINT positive;
ALTER TABLE acct ADD CONSTRAINT positive CHECK (balance > 0);
SET graph.branch = 'b6';
ALTER TABLE acct DROP CONSTRAINT positive;
ALTER TABLE acct ADD CONSTRAINT positive CHECK (balance > -10);
SET graph.branch = 'main';
CALL graph.merge('b6');
-- the source re-columned, main changed the same rows: 'stop' stages
-- main's version of each conflicting row in the source's columns (row 1
-- keeps b7's tier, the column only b7 changed)
CALL graph.create_branch('b7');
SET graph.branch = 'b7';
ALTER TABLE acct ADD COLUMN tier int4 DEFAULT 1;
UPDATE acct SET holder = 'b7-ada', tier = 2 WHERE id = 1;
UPDATE acct SET balance = 77 WHERE id = 2;
DELETE FROM acct WHERE id = 4;
SET graph.branch = 'main';
UPDATE acct SET holder = 'main-ada' WHERE id = 1;
DELETE FROM acct WHERE id = 2;
UPDATE acct SET balance = 44 WHERE id = 4;
CALL graph.merge('b7');
BEGIN;
CALL graph.merge('b7', strategy => 'stop');
SELECT id, holder, balance, tier FROM acct ORDER BY id;
SELECT key, kind, columns, ours->>'holder' AS ours, theirs->>'holder' AS theirs, ours->>'tier' AS ours_tier
  FROM graph.conflicts ORDER BY id;
UPDATE acct SET holder = 'Ada' WHERE id = 1;
DELETE FROM graph.conflicts WHERE key->>'id' IN ('2', '4');
COMMIT;
SELECT id, holder, balance, tier FROM acct ORDER BY id;
