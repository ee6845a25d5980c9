-- Schema privileges as PostgreSQL 15 has them for schema public: only
-- its owner (pg_database_owner, i.e. the database owner) and superusers
-- may create in it until someone grants CREATE; GRANT/REVOKE ON SCHEMA
-- with grant options and warnings; what CREATE guards (CREATE TABLE,
-- VIEW, SEQUENCE, CTAS, SELECT INTO, CREATE INDEX, renaming relations,
-- ALTER … OWNER TO); has_schema_privilege, nspacl and \dn+'s query; DROP
-- ROLE and DROP OWNED with schema grants. "-- as NAME" switches sessions.
-- as postgres
CREATE ROLE alice LOGIN;
CREATE ROLE bob LOGIN;
CREATE ROLE carol LOGIN;
CREATE ROLE grp;
GRANT grp TO carol;
CREATE TABLE pt (id int PRIMARY KEY, v text);
GRANT SELECT ON pt TO PUBLIC;
SELECT nspname, pg_get_userbyid(nspowner), nspacl FROM pg_namespace WHERE nspname = 'public';
SELECT has_schema_privilege('alice', 'public', 'CREATE'), has_schema_privilege('alice', 'public', 'USAGE');
SELECT has_schema_privilege('postgres', 'public', 'CREATE'), has_schema_privilege('public', 'USAGE, CREATE');
SELECT has_schema_privilege('alice', 'public', 'USAGE WITH GRANT OPTION');
SELECT has_schema_privilege('alice', 2200, 'CREATE'), has_schema_privilege('alice', 'pg_catalog', 'USAGE');
SELECT has_schema_privilege('alice', 'pg_catalog', 'CREATE');
SELECT has_schema_privilege('alice', 'nosuch', 'CREATE');
SELECT has_schema_privilege('alice', 'public', 'SELECT');
SELECT has_schema_privilege('nobody', 'public', 'USAGE');
SELECT has_schema_privilege('alice', 99999::oid, 'USAGE') IS NULL;
-- as alice
CREATE TABLE a1 (id int);
CREATE TABLE IF NOT EXISTS pt (id int);
CREATE VIEW av AS SELECT 1 AS x;
CREATE SEQUENCE aseq;
CREATE TABLE a2 AS SELECT 1 AS x;
SELECT 1 AS x INTO a3;
SELECT has_schema_privilege('public', 'CREATE');
GRANT CREATE ON SCHEMA public TO bob;
-- as postgres
GRANT CREATE ON SCHEMA public TO alice WITH GRANT OPTION;
GRANT USAGE ON SCHEMA public TO grp;
SELECT nspacl FROM pg_namespace WHERE nspname = 'public';
GRANT SELECT ON SCHEMA public TO alice;
GRANT INSERT (id) ON SCHEMA public TO alice;
GRANT FROBNICATE ON SCHEMA public TO alice;
GRANT CREATE ON SCHEMA nosuch TO alice;
GRANT CREATE ON SCHEMA public TO nobody;
-- what pg_dump emits for the built-in schemas, in a transaction too
BEGIN;
GRANT USAGE ON SCHEMA pg_catalog TO PUBLIC;
GRANT USAGE ON SCHEMA information_schema TO PUBLIC;
COMMIT;
-- as alice
SELECT has_schema_privilege('public', 'CREATE'), has_schema_privilege('public', 'CREATE WITH GRANT OPTION');
CREATE TABLE a1 (id int PRIMARY KEY, v text);
CREATE VIEW av AS SELECT id FROM a1;
CREATE SEQUENCE aseq;
CREATE TABLE a2 AS SELECT 1 AS x;
CREATE INDEX a1_v ON a1 (v);
GRANT CREATE ON SCHEMA public TO bob;
GRANT ALL ON SCHEMA public TO carol;
SELECT nspacl FROM pg_namespace WHERE nspname = 'public';
-- as bob
CREATE TABLE b1 (id int);
SELECT has_schema_privilege('bob', 'public', 'CREATE');
-- as carol
CREATE TABLE c1 (id int);
-- as alice
REVOKE CREATE ON SCHEMA public FROM bob;
-- as bob
CREATE TABLE b2 (id int);
ALTER TABLE b1 RENAME TO b1x;
ALTER TABLE b1 RENAME COLUMN id TO bid;
CREATE INDEX b1_id ON b1 (id);
ALTER TABLE b1 OWNER TO alice;
-- as postgres
ALTER TABLE b1 OWNER TO carol;
-- as alice
REVOKE CREATE ON SCHEMA public FROM carol;
SELECT nspacl FROM pg_namespace WHERE nspname = 'public';
-- as postgres
REVOKE GRANT OPTION FOR CREATE ON SCHEMA public FROM alice;
REVOKE GRANT OPTION FOR CREATE ON SCHEMA public FROM alice CASCADE;
SELECT nspacl FROM pg_namespace WHERE nspname = 'public';
-- as carol
ALTER TABLE b1 RENAME TO c2;
REVOKE CREATE ON SCHEMA public FROM alice;
GRANT USAGE ON SCHEMA public TO bob;
-- as postgres
SELECT n.nspname AS "Name", pg_catalog.pg_get_userbyid(n.nspowner) AS "Owner",
  pg_catalog.array_to_string(n.nspacl, E'\n') AS "Access privileges",
  pg_catalog.obj_description(n.oid, 'pg_namespace') AS "Description"
FROM pg_catalog.pg_namespace n
WHERE n.nspname !~ '^pg_' AND n.nspname NOT IN ('information_schema', 'graph')
ORDER BY 1;
ALTER TABLE b1 OWNER TO bob;
DROP ROLE alice;
-- as alice
DROP OWNED BY alice;
-- as postgres
SELECT nspacl FROM pg_namespace WHERE nspname = 'public';
DROP ROLE alice;
REVOKE ALL ON SCHEMA public FROM grp;
GRANT ALL ON SCHEMA public TO bob;
SELECT nspacl FROM pg_namespace WHERE nspname = 'public';
REVOKE ALL ON SCHEMA public FROM bob;
SELECT nspacl FROM pg_namespace WHERE nspname = 'public';
DROP OWNED BY bob, carol;
DROP ROLE bob;
DROP ROLE carol;
DROP ROLE grp;
