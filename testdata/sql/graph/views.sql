-- differential: postgresql (PostgreSQL 15 must print the same transcript)
-- views.sql: SQL views over the social graph — psql's \dv, \d and \d+
-- (with the view definition), views over views and edges, DDL in
-- transactions, dependencies with their NOTICEs and errors.
\ir social.psql
-- as the user PostgreSQL's run has (psql's \dv prints the owner)
\set QUIET on
\c - postgres
\set QUIET off
CREATE VIEW adults AS SELECT id, name, age FROM people WHERE age >= 40;
CREATE VIEW friendships (person, friend, since) AS
  SELECT p.name, f.name, k.since
  FROM knows k JOIN people p ON p.id = k.src JOIN people f ON f.id = k.dst;
CREATE VIEW employment AS
  SELECT p.name AS person, c.name AS company, w.role
  FROM works_at w JOIN people p ON p.id = w.src JOIN companies c ON c.id = w.dst;
CREATE VIEW senior_friends AS SELECT person, count(*) AS friends FROM friendships f JOIN adults a ON a.name = f.person GROUP BY person;
\dv
\d adults
\d+ friendships
\d+ senior_friends
SELECT * FROM adults ORDER BY id;
SELECT * FROM friendships ORDER BY person, friend;
SELECT * FROM senior_friends ORDER BY person;
SELECT company, count(*) FROM employment GROUP BY company ORDER BY company;
-- the definition is checked when the view is created
CREATE VIEW broken AS SELECT shoe_size FROM people;
CREATE VIEW broken AS SELECT * FROM nobody;
-- DDL on views is transactional
BEGIN;
CREATE VIEW young AS SELECT name FROM people WHERE age < 40;
SELECT * FROM young ORDER BY name;
ROLLBACK;
SELECT * FROM young;
BEGIN;
DROP VIEW senior_friends;
CREATE OR REPLACE VIEW adults AS SELECT id, name, age, email FROM people WHERE age >= 50;
COMMIT;
\d adults
SELECT * FROM adults ORDER BY id;
-- dependencies: the drop names them, CASCADE takes them along
CREATE TABLE notes (id int4 PRIMARY KEY, person int8, body text);
INSERT INTO notes VALUES (1, 1, 'first'), (2, 2, 'second');
CREATE VIEW noted AS SELECT p.name, n.body FROM notes n JOIN people p ON p.id = n.person;
CREATE VIEW noted_count AS SELECT count(*) AS n FROM noted;
DROP TABLE notes;
ALTER TABLE notes DROP COLUMN body;
ALTER TABLE notes ALTER COLUMN body TYPE varchar(10);
ALTER TABLE notes RENAME COLUMN body TO text;
SELECT * FROM noted ORDER BY name;
\d+ noted
DROP TABLE notes CASCADE;
\dv
DROP VIEW friendships, adults;
\dv
