-- The owner of a schema may drop any relation in it — tables, views,
-- sequences and indexes other roles own there — as PostgreSQL's
-- DROP checks ownership of the relation or of its schema; it may not
-- alter them. A role owning neither gets 42501.
-- "-- as NAME" switches sessions.
-- as postgres
CREATE ROLE sown LOGIN;
CREATE ROLE town LOGIN;
CREATE ROLE other LOGIN;
CREATE SCHEMA app AUTHORIZATION sown;
-- as sown
GRANT USAGE, CREATE ON SCHEMA app TO town;
GRANT USAGE ON SCHEMA app TO other;
-- as town
CREATE TABLE app.t (a int PRIMARY KEY, b int);
CREATE INDEX t_b ON app.t (b);
CREATE TABLE app.t2 (a int);
CREATE TABLE app.t3 (a int);
CREATE VIEW app.v AS SELECT a FROM app.t2;
CREATE SEQUENCE app.s;
INSERT INTO app.t VALUES (1, 2);
-- as other
DROP TABLE app.t2;
DROP VIEW app.v;
DROP SEQUENCE app.s;
DROP INDEX app.t_b;
DROP TABLE app.t;
-- as sown
ALTER TABLE app.t ADD COLUMN c int;
ALTER TABLE app.t RENAME TO t9;
CREATE INDEX t_a2 ON app.t (a);
SELECT * FROM app.t;
DROP INDEX app.t_b;
DROP VIEW app.v;
DROP SEQUENCE app.s;
DROP TABLE app.t2;
DROP TABLE app.t, app.t3;
SELECT relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE nspname = 'app' ORDER BY 1;
-- as postgres
DROP SCHEMA app CASCADE;
