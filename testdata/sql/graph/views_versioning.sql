-- views_versioning.sql: views are part of the branch's catalog — one
-- graph commit with the rest of a transaction, per branch, time travel
-- (SET graph.as_of sees the views of that version), merges.
\ir social.psql
SELECT count(*) AS commits_before FROM graph.commits \gset
-- a transaction's view DDL and writes are one graph commit
BEGIN;
CREATE VIEW over_fifty AS SELECT id, name FROM people WHERE age > 50;
INSERT INTO people VALUES (7, 'Frances', 'frances@example.com', 55);
SELECT * FROM over_fifty ORDER BY id;
COMMIT;
SELECT count(*) - :commits_before AS new_commits FROM graph.commits;
SELECT id AS with_view FROM graph.commits ORDER BY manifest_version DESC LIMIT 1 \gset
-- a rolled back view never existed
BEGIN;
CREATE VIEW scratch AS SELECT 1 AS one;
ROLLBACK;
SELECT count(*) - :commits_before AS new_commits FROM graph.commits;
SELECT viewname FROM pg_views WHERE schemaname = 'public' ORDER BY 1;
-- a branch has views of its own
CALL graph.create_branch('dev');
SET graph.branch = 'dev';
CREATE OR REPLACE VIEW over_fifty AS SELECT id, name, age FROM people WHERE age > 50;
CREATE VIEW dev_only AS SELECT name FROM over_fifty WHERE age > 60;
SELECT * FROM dev_only ORDER BY name;
SELECT viewname FROM pg_views WHERE schemaname = 'public' ORDER BY 1;
SET graph.branch = 'main';
SELECT viewname FROM pg_views WHERE schemaname = 'public' ORDER BY 1;
SELECT * FROM over_fifty ORDER BY id;
-- a merge brings the branch's views
CALL graph.merge('dev', 'main');
SELECT viewname FROM pg_views WHERE schemaname = 'public' ORDER BY 1;
SELECT * FROM dev_only ORDER BY name;
SELECT * FROM over_fifty ORDER BY id;
-- a view reads the snapshot of its statement: a later change of the
-- table shows through it
UPDATE people SET age = 66 WHERE id = 2;
SELECT * FROM dev_only ORDER BY name;
-- time travel: the views of that version, read-only
DROP VIEW over_fifty CASCADE;
SELECT viewname FROM pg_views WHERE schemaname = 'public' ORDER BY 1;
SET graph.as_of = :'with_view';
SELECT viewname FROM pg_views WHERE schemaname = 'public' ORDER BY 1;
SELECT * FROM over_fifty ORDER BY id;
SELECT pg_get_viewdef('over_fifty', true);
CREATE VIEW nope AS SELECT 1;
DROP VIEW over_fifty;
RESET graph.as_of;
SELECT * FROM over_fifty;
-- a view changed on a branch and dropped on the other does not merge
SET graph.branch = 'dev';
CREATE OR REPLACE VIEW dev_only AS SELECT name, age FROM over_fifty WHERE age > 60;
SET graph.branch = 'main';
SELECT graph.merge('dev', 'main');
