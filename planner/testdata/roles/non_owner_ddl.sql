-- Statements a role that owns nothing may not run on others' objects.
-- "-- as NAME" switches sessions.
-- as postgres
CREATE ROLE aown LOGIN;
CREATE ROLE evil LOGIN;
GRANT CREATE ON SCHEMA public TO aown;
-- as aown
CREATE TABLE pt (a int PRIMARY KEY, b int);
CREATE INDEX pt_b ON pt (b);
CREATE SEQUENCE ps;
CREATE VIEW pv AS SELECT a FROM pt;
CREATE TYPE mood AS ENUM ('sad', 'ok');
CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1';
CREATE FUNCTION trg() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NEW; END';
CREATE TRIGGER t1 BEFORE INSERT ON pt FOR EACH ROW EXECUTE FUNCTION trg();
COMMENT ON TABLE pt IS 'mine';
INSERT INTO pt VALUES (1, 1), (2, 2), (3, 2);
-- as evil
ALTER INDEX pt_b RENAME TO pt_x;
ALTER TABLE pt RENAME COLUMN b TO c;
ALTER TABLE pt DISABLE TRIGGER t1;
DROP TRIGGER t1 ON pt;
CREATE TRIGGER t2 BEFORE INSERT ON pt FOR EACH ROW EXECUTE FUNCTION trg();
ALTER SEQUENCE ps RESTART WITH 5;
SELECT nextval('ps');
SELECT setval('ps', 10);
ALTER VIEW pv RENAME TO pv2;
CREATE OR REPLACE VIEW pv AS SELECT a, b FROM pt;
DROP TYPE mood;
ALTER TYPE mood ADD VALUE 'happy';
ALTER TYPE mood RENAME TO mood2;
DROP FUNCTION f();
ALTER FUNCTION f() RENAME TO g;
CREATE OR REPLACE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 2';
COMMENT ON TABLE pt IS 'evil';
COMMENT ON INDEX pt_b IS 'evil';
COMMENT ON FUNCTION f() IS 'evil';
TRUNCATE pt;
ANALYZE pt;
REINDEX TABLE pt;
CLUSTER pt USING pt_b;
LOCK TABLE pt IN ACCESS EXCLUSIVE MODE;
ALTER TABLE pt OWNER TO evil;
GRANT SELECT ON pt TO evil;
REVOKE ALL ON pt FROM aown;
SELECT obj_description('pt'::regclass);
SELECT f();
VACUUM (ANALYZE) pt;
-- as postgres
GRANT CREATE ON SCHEMA public TO evil;
-- as evil
CREATE TABLE stolen (LIKE pt);
CREATE TABLE stolen_v (LIKE pv INCLUDING ALL);
CREATE TABLE stolen_s (LIKE pt INCLUDING ALL);
-- as aown
GRANT SELECT ON pt TO evil;
-- as evil
CREATE TABLE copied (LIKE pt INCLUDING ALL);
SELECT count(*) FROM copied;
DROP TABLE copied;
-- as postgres
REVOKE CREATE ON SCHEMA public FROM evil;
-- as aown
REVOKE SELECT ON pt FROM evil;
SELECT count(*) FROM pg_stats WHERE tablename = 'pt';
ANALYZE pt;
SELECT attname, null_frac, n_distinct FROM pg_stats WHERE tablename = 'pt' ORDER BY 1;
-- as postgres
DROP TABLE pt CASCADE;
DROP SEQUENCE ps;
DROP TYPE mood;
DROP FUNCTION f();
DROP FUNCTION trg();
REVOKE CREATE ON SCHEMA public FROM aown;
