-- DROP OWNED as PostgreSQL 15 runs it in one database: who may, what is
-- dropped (tables, views, sequences the role owns), what is revoked
-- (its privileges on other roles' relations, on the database, in
-- default privileges; what it granted cascades), and that DROP ROLE
-- then succeeds. "-- as NAME" switches sessions.
-- as postgres
CREATE ROLE alice LOGIN;
CREATE ROLE bob LOGIN;
CREATE ROLE carol LOGIN;
GRANT CREATE ON SCHEMA public TO alice, bob;
CREATE TABLE pt (id int PRIMARY KEY);
GRANT SELECT ON pt TO alice WITH GRANT OPTION;
GRANT INSERT ON pt TO alice;
GRANT CONNECT ON DATABASE do_diff TO alice;
ALTER DEFAULT PRIVILEGES GRANT SELECT ON TABLES TO alice;
-- as alice
CREATE TABLE a1 (id serial PRIMARY KEY, v text);
CREATE VIEW av AS SELECT id FROM a1;
CREATE SEQUENCE aseq;
GRANT SELECT ON pt TO carol;
ALTER DEFAULT PRIVILEGES GRANT SELECT ON TABLES TO bob;
-- as bob
CREATE TABLE b1 (id int);
GRANT SELECT ON b1 TO alice;
DROP OWNED BY alice;
-- as carol
DROP OWNED BY alice;
SELECT count(*) FROM pt;
-- as postgres
DROP OWNED BY nobody;
DROP OWNED BY postgres;
SELECT relname, pg_get_userbyid(relowner), relacl FROM pg_class WHERE relname IN ('pt', 'a1', 'av', 'aseq', 'a1_id_seq', 'b1') ORDER BY 1;
DROP OWNED BY alice;
SELECT relname, pg_get_userbyid(relowner), relacl FROM pg_class WHERE relname IN ('pt', 'a1', 'av', 'aseq', 'a1_id_seq', 'b1') ORDER BY 1;
SELECT pg_get_userbyid(defaclrole), defaclacl FROM pg_default_acl ORDER BY 1;
SELECT datacl FROM pg_database WHERE datname = current_database();
DROP ROLE alice;
-- as carol
SELECT count(*) FROM pt;
-- as bob
DROP OWNED BY bob;
SELECT count(*) FROM pg_class WHERE relname = 'b1';
-- as postgres
DROP OWNED BY carol, bob;
DROP ROLE bob;
DROP ROLE carol;
