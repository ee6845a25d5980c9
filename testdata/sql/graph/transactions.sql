-- differential: postgresql (PostgreSQL 15 must print the same transcript)
-- transactions.sql: explicit transactions over the social graph —
-- read-your-writes, ROLLBACK, savepoints, the failed state, READ ONLY,
-- transactional DDL, serial ids and defaults.
\ir social.psql
BEGIN;
INSERT INTO people VALUES (20, 'Tess', 'tess@example.com', 29);
INSERT INTO knows VALUES (20, 1, 2024);
-- the transaction sees its own writes, in joins too
SELECT p.name, k.since FROM knows k JOIN people p ON p.id = k.src WHERE k.dst = 1 ORDER BY p.name;
UPDATE people SET age = 30 WHERE id = 20;
SELECT name, age FROM people WHERE id = 20;
ROLLBACK;
SELECT count(*) AS tess FROM people WHERE id = 20;
SELECT count(*) AS ada_known_by FROM knows WHERE dst = 1;
-- DDL and DML commit together
BEGIN;
CREATE TABLE projects (
  id    int4 PRIMARY KEY,
  title text NOT NULL,
  owner int8 REFERENCES people (id)
);
INSERT INTO projects VALUES (1, 'analytical engine', 1);
SAVEPOINT before_dup;
INSERT INTO projects VALUES (1, 'duplicate', 2);
SELECT 1;
ROLLBACK TO SAVEPOINT before_dup;
INSERT INTO projects VALUES (2, 'cobol', 2);
RELEASE SAVEPOINT before_dup;
SAVEPOINT undo_delete;
DELETE FROM projects WHERE id = 1;
ROLLBACK TO undo_delete;
COMMIT;
SELECT p.id, p.title, o.name FROM projects p JOIN people o ON o.id = p.owner ORDER BY p.id;
-- an error puts the transaction in the failed state until it ends
BEGIN;
INSERT INTO projects VALUES (3, 'unix', 3);
SELECT 1 / 0;
SELECT count(*) FROM projects;
COMMIT;
SELECT count(*) AS projects FROM projects;
-- DDL rolls back
BEGIN;
CREATE TABLE scratch (id int4 PRIMARY KEY);
INSERT INTO scratch VALUES (1);
DROP TABLE projects;
ROLLBACK;
SELECT * FROM scratch;
SELECT count(*) AS projects FROM projects;
-- READ ONLY transactions refuse writes
BEGIN READ ONLY;
SELECT count(*) FROM people;
INSERT INTO people VALUES (21, 'Nope', NULL, NULL);
ROLLBACK;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SHOW transaction_isolation;
COMMIT;
