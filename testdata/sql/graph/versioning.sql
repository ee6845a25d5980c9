-- versioning.sql: commits, branches and time travel on the social graph.
-- Commit ids and times differ between runs, so they are captured with
-- \gset and never printed.
\ir social.psql
SHOW graph.branch;
SELECT name, kind, row_count FROM graph.tables ORDER BY name;
-- every DDL statement and every COPY above was one graph commit
SELECT count(*) AS commits, count(DISTINCT id) AS distinct_ids, bool_and(branch = 'main') AS all_main FROM graph.commits;
SELECT writer_kind, count(*) FROM graph.commits GROUP BY writer_kind ORDER BY writer_kind;
SELECT id AS loaded, manifest_version AS loaded_version FROM graph.commits ORDER BY manifest_version DESC LIMIT 1 \gset
-- a commit message is recorded on the next commit
SET graph.commit_message = 'Ada turns 37';
UPDATE people SET age = 37 WHERE id = 1;
SELECT message, writer_kind FROM graph.commits ORDER BY manifest_version DESC LIMIT 1;
SELECT current_setting('graph.last_commit') = id AS last_commit_is_head FROM graph.commits ORDER BY manifest_version DESC LIMIT 1;
DELETE FROM people WHERE id = 6;
-- time travel: the snapshot as loaded, by commit id and by manifest version
SET graph.as_of = :'loaded';
SELECT id, name, age FROM people ORDER BY id;
SELECT count(*) AS knows FROM knows;
-- an as-of snapshot is read-only
UPDATE people SET age = 1 WHERE id = 1;
INSERT INTO people (id, name) VALUES (99, 'Nope');
SET graph.as_of = :'loaded_version';
SELECT count(*) AS people FROM people;
SET graph.as_of = 'no such commit';
SET graph.as_of = '999999';
RESET graph.as_of;
SELECT id, name, age FROM people ORDER BY id;
-- a branch: writes there stay there
CALL graph.create_branch('feature');
SELECT name, forked_from FROM graph.branches ORDER BY name;
CALL graph.create_branch('feature');
SET graph.branch = 'feature';
SHOW graph.branch;
INSERT INTO people VALUES (7, 'Hedy', 'hedy@example.com', 105);
INSERT INTO knows VALUES (7, 1, 1940);
UPDATE works_at SET role = 'inventor' WHERE src = 1;
SELECT p.name, w.role FROM people p JOIN works_at w ON w.src = p.id ORDER BY p.name;
-- schema changes on a branch leave main's schema alone
ALTER TABLE people ADD COLUMN city text;
UPDATE people SET city = 'Vienna' WHERE id = 7;
SELECT id, name, city FROM people WHERE city IS NOT NULL;
SET graph.branch = 'main';
SELECT count(*) AS people_on_main FROM people;
SELECT role FROM works_at WHERE src = 1;
SELECT city FROM people;
-- the database name is the branch
\c feature
SELECT current_database(), count(*) AS people FROM people;
SELECT branch, count(*) FROM graph.commits GROUP BY branch ORDER BY branch;
\c main
SELECT graph.delete_branch('feature');
SELECT name FROM graph.branches ORDER BY name;
SET graph.branch = 'feature';
-- branch procedures are control operations, refused inside a transaction
BEGIN;
CALL graph.create_branch('inside');
ROLLBACK;
