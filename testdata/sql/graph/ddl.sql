-- ddl.sql: schema changes on the loaded social graph — ALTER TABLE in
-- its forms (validated against existing rows), IF [NOT] EXISTS, DROP
-- with and without CASCADE, TRUNCATE, indexes, and the no-op statements
-- migration tools send.
\ir social.psql
CREATE TABLE IF NOT EXISTS people (id int8 PRIMARY KEY);
CREATE TABLE people (id int8 PRIMARY KEY);
ALTER TABLE people ADD COLUMN city text;
ALTER TABLE people ADD COLUMN name text;
ALTER TABLE people ALTER COLUMN city SET DEFAULT 'unknown';
INSERT INTO people (id, name) VALUES (7, 'Alan');
SELECT id, name, city FROM people WHERE id IN (1, 7) ORDER BY id;
ALTER TABLE people RENAME COLUMN city TO town;
SELECT town FROM people WHERE id = 7;
SELECT city FROM people;
-- constraints added later are checked against the rows already there
ALTER TABLE people ALTER COLUMN age SET NOT NULL;
UPDATE people SET age = 0 WHERE age IS NULL;
ALTER TABLE people ALTER COLUMN age SET NOT NULL;
INSERT INTO people (id, name) VALUES (8, 'Nobody');
ALTER TABLE people ALTER COLUMN age DROP NOT NULL;
ALTER TABLE people ADD CONSTRAINT adult CHECK (age >= 40);
ALTER TABLE people ADD CONSTRAINT sane_age CHECK (age < 150);
UPDATE people SET age = 200 WHERE id = 1;
ALTER TABLE people DROP CONSTRAINT sane_age;
UPDATE people SET age = 200 WHERE id = 1;
ALTER TABLE people DROP COLUMN town;
SELECT * FROM people ORDER BY id;
ALTER TABLE companies RENAME TO employers;
SELECT name FROM employers ORDER BY id;
SELECT * FROM companies;
CREATE INDEX people_name_idx ON people (name);
CREATE UNIQUE INDEX knows_pair ON knows (dst, src);
SELECT name FROM people WHERE name = 'Grace';
COMMENT ON TABLE people IS 'everyone in the graph';
CREATE SCHEMA IF NOT EXISTS public;
SET search_path = public;
-- a node table with edges cannot be dropped alone
DROP TABLE people;
DROP TABLE IF EXISTS nothing_here;
DROP TABLE nothing_here;
TRUNCATE works_at;
SELECT count(*) FROM works_at;
-- in a graph an edge table cannot outlive its endpoint table: CASCADE
-- drops the edge tables (PostgreSQL would drop only their FK constraints)
DROP TABLE people CASCADE;
SELECT * FROM knows;
SELECT name FROM graph.tables WHERE state <> 'dropped' ORDER BY name;
DROP TABLE employers;
SELECT name, kind FROM graph.tables WHERE state <> 'dropped' ORDER BY name;
