-- branches.sql: branching from a branch and from an older commit, and
-- merging a branch back.
\ir social.psql
SELECT id AS loaded FROM graph.commits ORDER BY manifest_version DESC LIMIT 1 \gset
UPDATE people SET age = age + 1;
DELETE FROM people WHERE id = 6;
-- a branch forked at the loaded commit sees the graph as loaded
CALL graph.create_branch('as_loaded', 'main', :'loaded');
SET graph.branch = 'as_loaded';
SELECT id, name, age FROM people ORDER BY id;
SET graph.branch = 'main';
-- a branch of a branch
CALL graph.create_branch('dev');
SET graph.branch = 'dev';
CALL graph.create_branch('dev_child');
INSERT INTO people VALUES (7, 'Hedy', 'hedy@example.com', 105);
INSERT INTO knows VALUES (7, 1, 1940), (1, 7, 1940);
SELECT name, forked_from FROM graph.branches ORDER BY name;
-- merge dev into main: its new node and edges arrive in one commit
SET graph.branch = 'main';
SELECT count(*) AS people_before_merge FROM people;
SELECT graph.merge('dev') AS merge_commit \gset
SELECT :'merge_commit' = id AS merge_is_head, writer_kind, merged_parent IS NOT NULL AS has_merged_parent
FROM graph.commits ORDER BY manifest_version DESC LIMIT 1;
SELECT count(*) AS people_after_merge FROM people;
SELECT p.name FROM knows k JOIN people p ON p.id = k.src WHERE k.dst = 1 ORDER BY p.name;
-- conflicting changes to the same row on both sides: the merge is refused
SET graph.branch = 'dev';
UPDATE people SET age = 1 WHERE id = 2;
SET graph.branch = 'main';
UPDATE people SET age = 2 WHERE id = 2;
SELECT graph.merge('dev');
SELECT age FROM people WHERE id = 2;
SELECT graph.delete_branch('dev');
SELECT graph.delete_branch('dev_child');
SELECT graph.delete_branch('dev');
SELECT graph.delete_branch('as_loaded');
SELECT name FROM graph.branches ORDER BY name;
