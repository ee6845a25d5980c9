-- merge_conflicts.sql: three-way merges on the social graph — conflicts
-- staged in a transaction and resolved in SQL (graph.merge strategy
-- 'stop', graph.conflicts), merges across schema changes, and the change
-- feed of the merged branch. Commit ids differ between runs: captured
-- with \gset, never printed.
\ir social.psql
SELECT id AS loaded FROM graph.commits ORDER BY manifest_version DESC LIMIT 1 \gset
CALL graph.create_branch('edit');
CALL graph.create_branch('recolumn');
SET graph.branch = 'edit';
UPDATE people SET age = 40 WHERE id = 1;
UPDATE people SET email = 'grace@navy.mil' WHERE id = 2;
DELETE FROM knows WHERE src = 3;
INSERT INTO people VALUES (8, 'Katherine', 'kj@example.com', 101);
SET graph.branch = 'main';
UPDATE people SET age = 38 WHERE id = 1;
-- a plain merge refuses the row both branches changed
CALL graph.merge('edit');
-- 'stop' needs a transaction block; there it stages the merge: the clean
-- changes are there, the conflict is listed
CALL graph.merge('edit', strategy => 'stop');
BEGIN;
CALL graph.merge('edit', strategy => 'stop');
SELECT id, name, email, age FROM people WHERE id IN (1, 2, 8) ORDER BY id;
SELECT id, table_name, kind, key, columns, base->>'age' AS base_age, ours->>'age' AS ours_age, theirs->>'age' AS theirs_age FROM graph.conflicts;
-- COMMIT is refused while a conflict is left (and rolls back)
COMMIT;
SELECT age FROM people WHERE id = 1;
-- resolve with SQL: take the larger age
BEGIN;
CALL graph.merge('edit', strategy => 'stop');
UPDATE people p SET age = greatest((c.ours->>'age')::int, (c.theirs->>'age')::int)
  FROM graph.conflicts c WHERE c.table_name = 'people' AND p.id = (c.key->>'id')::int8;
SELECT count(*) AS open_conflicts FROM graph.conflicts;
COMMIT;
SELECT id, name, email, age FROM people WHERE id IN (1, 2, 8) ORDER BY id;
SELECT count(*) AS knows FROM knows;
SELECT cardinality(parents) AS parents, writer_kind, message FROM graph.commits ORDER BY manifest_version DESC LIMIT 1;
-- merging again finds nothing to do
SELECT graph.merge('edit') AS nothing;
-- schema changes: a column added on one branch merges when main left the table alone …
SET graph.branch = 'recolumn';
ALTER TABLE companies ADD COLUMN country text;
UPDATE companies SET country = 'UK' WHERE id = 1;
SET graph.branch = 'main';
CALL graph.merge('recolumn');
SELECT id, name, country FROM companies ORDER BY id;
-- … and rows changed on one branch merge into a table re-columned on the other
-- (merge_schema.sql has the details)
CALL graph.create_branch('late');
SET graph.branch = 'late';
INSERT INTO companies (id, name) VALUES (9, 'Late Ltd');
SET graph.branch = 'main';
ALTER TABLE companies ADD COLUMN hq text;
CALL graph.merge('late');
SELECT id, name, hq FROM companies WHERE id = 9;
-- the change feed since the load, commit by commit
SELECT dense_rank() OVER (ORDER BY manifest_version) AS n, table_name, change, key, new->>'age' AS new_age
  FROM graph.changes(:'loaded') WHERE table_name = 'people' ORDER BY manifest_version, key::text;
-- per-column merges: one row updated on both branches in different columns merges …
CALL graph.create_branch('cols');
SET graph.branch = 'cols';
UPDATE people SET age = 77 WHERE id = 1;
SET graph.branch = 'main';
UPDATE people SET email = 'ada@cols.example' WHERE id = 1;
CALL graph.merge('cols');
SELECT id, email, age FROM people WHERE id = 1;
-- … and the same column set to different values on both is a conflict
CALL graph.create_branch('cols2');
SET graph.branch = 'cols2';
UPDATE people SET age = 78 WHERE id = 1;
SET graph.branch = 'main';
UPDATE people SET age = 79 WHERE id = 1;
CALL graph.merge('cols2');
SELECT id, email, age FROM people WHERE id = 1;
-- with 'stop', a row both branches updated is staged per column: the
-- source's email is taken, the age both set stays main's until resolved
CALL graph.create_branch('cols3');
SET graph.branch = 'cols3';
UPDATE people SET age = 50, email = 'ada@cols3.example' WHERE id = 1;
SET graph.branch = 'main';
UPDATE people SET age = 51 WHERE id = 1;
BEGIN;
CALL graph.merge('cols3', strategy => 'stop');
SELECT id, email, age FROM people WHERE id = 1;
SELECT key, columns, ours->>'age' AS ours_age, theirs->>'age' AS theirs_age FROM graph.conflicts;
UPDATE people SET age = 50 WHERE id = 1;
SELECT count(*) AS open_conflicts FROM graph.conflicts;
COMMIT;
SELECT id, email, age FROM people WHERE id = 1;
