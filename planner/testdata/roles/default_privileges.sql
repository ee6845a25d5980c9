-- ALTER DEFAULT PRIVILEGES as PostgreSQL 15 applies it: the acting
-- role's and FOR ROLE defaults, for every schema and IN SCHEMA public,
-- tables (views too) and sequences (serial columns' too), grant
-- options, revokes, what a created relation then holds (relacl, the
-- privileges enforced), pg_default_acl and \ddp, DROP ROLE refused
-- while defaults name a role. "-- as NAME" switches sessions.
-- as postgres
CREATE ROLE alice LOGIN;
CREATE ROLE bob LOGIN;
CREATE ROLE carol LOGIN;
CREATE ROLE readers;
SELECT 0::regclass, 0::regnamespace;
GRANT readers TO carol;
GRANT CREATE ON SCHEMA public TO alice, bob;
-- as alice
ALTER DEFAULT PRIVILEGES GRANT SELECT ON TABLES TO readers;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT INSERT ON TABLES TO bob;
ALTER DEFAULT PRIVILEGES GRANT USAGE ON SEQUENCES TO bob WITH GRANT OPTION;
SELECT pg_get_userbyid(defaclrole), (SELECT nspname FROM pg_namespace WHERE oid = defaclnamespace), defaclnamespace = 0, defaclobjtype, defaclacl FROM pg_default_acl ORDER BY 1, 2, 3, 4;
SELECT pg_catalog.pg_get_userbyid(d.defaclrole) AS "Owner",
  n.nspname AS "Schema",
  CASE d.defaclobjtype WHEN 'r' THEN 'table' WHEN 'S' THEN 'sequence' WHEN 'f' THEN 'function' WHEN 'T' THEN 'type' WHEN 'n' THEN 'schema' END AS "Type",
  pg_catalog.array_to_string(d.defaclacl, E'\n') AS "Access privileges"
FROM pg_catalog.pg_default_acl d
     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = d.defaclnamespace
ORDER BY 1, 2, 3;
CREATE TABLE t1 (id serial PRIMARY KEY, v text);
CREATE VIEW v1 AS SELECT id, v FROM t1;
CREATE SEQUENCE s1;
INSERT INTO t1 (v) VALUES ('a');
CREATE TABLE c1 AS SELECT 1 AS x;
CREATE TABLE i1 (id int GENERATED ALWAYS AS IDENTITY);
SELECT relname, relacl FROM pg_class WHERE relname IN ('t1', 'v1', 's1', 't1_id_seq', 'c1', 'i1', 'i1_id_seq') ORDER BY 1;
-- as carol
SELECT v FROM t1;
SELECT v FROM v1;
INSERT INTO t1 (v) VALUES ('c');
SELECT nextval('s1');
-- as bob
INSERT INTO t1 (v) VALUES ('b');
SELECT v FROM t1;
SELECT nextval('s1');
GRANT USAGE ON SEQUENCE s1 TO carol;
-- as carol
SELECT nextval('s1');
-- as bob
ALTER DEFAULT PRIVILEGES FOR ROLE alice GRANT DELETE ON TABLES TO bob;
ALTER DEFAULT PRIVILEGES FOR ROLE nobody GRANT DELETE ON TABLES TO bob;
ALTER DEFAULT PRIVILEGES GRANT SELECT ON TABLES TO nobody;
ALTER DEFAULT PRIVILEGES IN SCHEMA nope GRANT SELECT ON TABLES TO alice;
ALTER DEFAULT PRIVILEGES GRANT USAGE ON TABLES TO alice;
ALTER DEFAULT PRIVILEGES GRANT INSERT ON SEQUENCES TO alice;
ALTER DEFAULT PRIVILEGES GRANT FLY ON TABLES TO alice;
ALTER DEFAULT PRIVILEGES GRANT SELECT (id) ON TABLES TO alice;
ALTER DEFAULT PRIVILEGES GRANT SELECT ON TABLES TO PUBLIC WITH GRANT OPTION;
ALTER DEFAULT PRIVILEGES IN SCHEMA public IN SCHEMA public GRANT SELECT ON TABLES TO alice;
ALTER DEFAULT PRIVILEGES GRANT SELECT ON TABLES TO PUBLIC;
ALTER DEFAULT PRIVILEGES REVOKE TRUNCATE, TRIGGER ON TABLES FROM bob;
CREATE TABLE t2 (id int);
SELECT relacl FROM pg_class WHERE relname = 't2';
-- as carol
SELECT * FROM t2;
TRUNCATE t2;
-- as bob
SELECT pg_get_userbyid(defaclrole), (SELECT nspname FROM pg_namespace WHERE oid = defaclnamespace), defaclnamespace = 0, defaclobjtype, defaclacl FROM pg_default_acl ORDER BY 1, 2, 3, 4;
ALTER DEFAULT PRIVILEGES GRANT TRUNCATE, TRIGGER ON TABLES TO bob;
ALTER DEFAULT PRIVILEGES REVOKE SELECT ON TABLES FROM PUBLIC;
SELECT pg_get_userbyid(defaclrole), (SELECT nspname FROM pg_namespace WHERE oid = defaclnamespace), defaclnamespace = 0, defaclobjtype, defaclacl FROM pg_default_acl ORDER BY 1, 2, 3, 4;
-- as postgres
ALTER DEFAULT PRIVILEGES FOR ROLE alice, bob IN SCHEMA public GRANT UPDATE ON TABLES TO carol;
ALTER DEFAULT PRIVILEGES FOR ROLE bob GRANT ALL ON SEQUENCES TO alice;
ALTER DEFAULT PRIVILEGES GRANT SELECT ON TABLES TO alice;
CREATE TABLE t3 (id int);
SELECT relacl FROM pg_class WHERE relname = 't3';
SELECT pg_get_userbyid(defaclrole), (SELECT nspname FROM pg_namespace WHERE oid = defaclnamespace), defaclnamespace = 0, defaclobjtype, defaclacl FROM pg_default_acl ORDER BY 1, 2, 3, 4;
-- DROP ROLE: dave is named only by alice's defaults, erin only owns some
CREATE ROLE dave;
CREATE ROLE erin;
ALTER DEFAULT PRIVILEGES FOR ROLE alice GRANT SELECT ON SEQUENCES TO dave;
ALTER DEFAULT PRIVILEGES FOR ROLE erin IN SCHEMA public GRANT SELECT ON TABLES TO PUBLIC;
DROP ROLE dave;
DROP ROLE erin;
ALTER DEFAULT PRIVILEGES FOR ROLE alice REVOKE SELECT ON SEQUENCES FROM dave;
ALTER DEFAULT PRIVILEGES FOR ROLE erin IN SCHEMA public REVOKE SELECT ON TABLES FROM PUBLIC;
DROP ROLE dave;
DROP ROLE erin;
-- as alice
CREATE TABLE t4 (id int);
SELECT relacl FROM pg_class WHERE relname = 't4';
ALTER DEFAULT PRIVILEGES REVOKE ALL ON TABLES FROM alice;
CREATE TABLE t5 (id int);
SELECT relacl FROM pg_class WHERE relname = 't5';
SELECT * FROM t5;
ALTER DEFAULT PRIVILEGES GRANT ALL ON TABLES TO alice;
ALTER DEFAULT PRIVILEGES REVOKE SELECT ON TABLES FROM readers;
ALTER DEFAULT PRIVILEGES REVOKE GRANT OPTION FOR USAGE ON SEQUENCES FROM bob;
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE INSERT ON TABLES FROM bob;
SELECT pg_get_userbyid(defaclrole), (SELECT nspname FROM pg_namespace WHERE oid = defaclnamespace), defaclnamespace = 0, defaclobjtype, defaclacl FROM pg_default_acl ORDER BY 1, 2, 3, 4;
ALTER DEFAULT PRIVILEGES REVOKE USAGE ON SEQUENCES FROM bob;
ALTER DEFAULT PRIVILEGES FOR ROLE alice IN SCHEMA public REVOKE UPDATE ON TABLES FROM carol;
SELECT pg_get_userbyid(defaclrole), (SELECT nspname FROM pg_namespace WHERE oid = defaclnamespace), defaclnamespace = 0, defaclobjtype, defaclacl FROM pg_default_acl ORDER BY 1, 2, 3, 4;
-- as postgres
ALTER DEFAULT PRIVILEGES FOR ROLE bob IN SCHEMA public REVOKE UPDATE ON TABLES FROM carol;
ALTER DEFAULT PRIVILEGES FOR ROLE bob REVOKE ALL ON SEQUENCES FROM alice;
ALTER DEFAULT PRIVILEGES REVOKE SELECT ON TABLES FROM alice;
SELECT pg_get_userbyid(defaclrole), (SELECT nspname FROM pg_namespace WHERE oid = defaclnamespace), defaclnamespace = 0, defaclobjtype, defaclacl FROM pg_default_acl ORDER BY 1, 2, 3, 4;
