-- GRANT … WITH GRANT OPTION chains and what REVOKE does to them: the
-- grantor recorded at each link, REVOKE RESTRICT refused while
-- dependent grants exist (2BP01), CASCADE taking the chain down,
-- REVOKE GRANT OPTION FOR, grant options held through a group, column,
-- sequence, schema and function chains, DROP ROLE of a grantor, as
-- PostgreSQL 15 has them. "-- as NAME" switches sessions.
-- as postgres
CREATE ROLE ga LOGIN;
CREATE ROLE gb LOGIN;
CREATE ROLE gc LOGIN;
CREATE ROLE gd LOGIN;
CREATE ROLE gg;
GRANT gg TO gd;
CREATE TABLE gt (id int PRIMARY KEY, a text, b text);
INSERT INTO gt VALUES (1, 'a1', 'b1');
CREATE SEQUENCE gs;
CREATE SCHEMA gsch;
CREATE FUNCTION gf(int) RETURNS int LANGUAGE sql AS 'SELECT $1 + 1';
REVOKE EXECUTE ON FUNCTION gf(int) FROM PUBLIC;
GRANT SELECT, UPDATE ON gt TO ga WITH GRANT OPTION;
-- as ga
GRANT SELECT ON gt TO gb WITH GRANT OPTION;
GRANT UPDATE ON gt TO gb;
-- as gb
GRANT SELECT ON gt TO gc;
GRANT UPDATE ON gt TO gc;
GRANT SELECT ON gt TO ga;
GRANT INSERT ON gt TO gc;
-- as gc
SELECT * FROM gt;
GRANT SELECT ON gt TO gd;
-- as postgres
SELECT relacl FROM pg_class WHERE relname = 'gt';
SELECT grantor, grantee, privilege_type, is_grantable FROM information_schema.role_table_grants WHERE table_name = 'gt' ORDER BY grantee, grantor, privilege_type;
SELECT grantor, grantee, privilege_type, is_grantable FROM information_schema.table_privileges WHERE table_name = 'gt' ORDER BY grantee, grantor, privilege_type;
SELECT has_table_privilege('gb', 'gt', 'SELECT WITH GRANT OPTION'), has_table_privilege('gc', 'gt', 'SELECT WITH GRANT OPTION'), has_table_privilege('gb', 'gt', 'UPDATE WITH GRANT OPTION'), has_table_privilege('gc', 'gt', 'SELECT, UPDATE');
REVOKE SELECT ON gt FROM ga;
REVOKE SELECT ON gt FROM ga RESTRICT;
REVOKE GRANT OPTION FOR SELECT ON gt FROM ga;
SELECT relacl FROM pg_class WHERE relname = 'gt';
-- as gb
REVOKE SELECT ON gt FROM gc;
REVOKE SELECT ON gt FROM gd;
-- as ga
REVOKE SELECT ON gt FROM gb;
REVOKE GRANT OPTION FOR SELECT ON gt FROM gb;
REVOKE GRANT OPTION FOR SELECT ON gt FROM gb CASCADE;
-- as postgres
SELECT relacl FROM pg_class WHERE relname = 'gt';
-- as gc
SELECT * FROM gt;
-- as gb
SELECT * FROM gt;
GRANT SELECT ON gt TO gc;
-- as postgres
REVOKE ALL ON gt FROM ga CASCADE;
SELECT relacl FROM pg_class WHERE relname = 'gt';
-- as gb
SELECT * FROM gt;
UPDATE gt SET a = 'x';
-- grant options held through a group: the grant is recorded as the group's
-- as postgres
GRANT SELECT ON gt TO gg WITH GRANT OPTION;
-- as gd
GRANT SELECT ON gt TO gc;
GRANT SELECT ON gt TO gc GRANTED BY gd;
GRANT SELECT ON gt TO gc GRANTED BY gg;
-- as postgres
SELECT relacl FROM pg_class WHERE relname = 'gt';
REVOKE SELECT ON gt FROM gg;
REVOKE SELECT ON gt FROM gg CASCADE;
SELECT relacl FROM pg_class WHERE relname = 'gt';
-- a superuser's grant is recorded as the owner's; the owner's own grant options
ALTER TABLE gt OWNER TO ga;
GRANT SELECT ON gt TO gb;
SELECT relacl FROM pg_class WHERE relname = 'gt';
REVOKE SELECT ON gt FROM ga;
SELECT relacl FROM pg_class WHERE relname = 'gt';
-- as ga
SELECT * FROM gt;
GRANT SELECT ON gt TO ga;
-- as postgres
GRANT SELECT ON gt TO ga;
ALTER TABLE gt OWNER TO postgres;
SELECT relacl FROM pg_class WHERE relname = 'gt';
-- grants without the option
-- as gc
GRANT SELECT ON gt TO gd;
GRANT DELETE ON gt TO gd;
-- as postgres
SELECT relacl FROM pg_class WHERE relname = 'gt';
-- column chains
GRANT SELECT (a), UPDATE (a, b) ON gt TO gc WITH GRANT OPTION;
-- as gc
GRANT SELECT (a) ON gt TO gd WITH GRANT OPTION;
GRANT UPDATE (b) ON gt TO gd;
GRANT SELECT (b) ON gt TO gd;
-- as gd
GRANT SELECT (a) ON gt TO gg;
SELECT a FROM gt;
-- as postgres
SELECT attname, attacl FROM pg_attribute WHERE attrelid = 'gt'::regclass AND attacl IS NOT NULL ORDER BY attname;
SELECT grantor, grantee, column_name, privilege_type, is_grantable FROM information_schema.column_privileges WHERE table_name = 'gt' ORDER BY column_name, grantee, grantor, privilege_type;
REVOKE SELECT (a) ON gt FROM gc;
REVOKE GRANT OPTION FOR SELECT (a) ON gt FROM gc;
REVOKE SELECT (a) ON gt FROM gc CASCADE;
REVOKE UPDATE ON gt FROM gc CASCADE;
SELECT attname, attacl FROM pg_attribute WHERE attrelid = 'gt'::regclass AND attacl IS NOT NULL ORDER BY attname;
-- as gd
SELECT a FROM gt;
-- sequence, schema and function chains
-- as postgres
GRANT USAGE ON SEQUENCE gs TO ga WITH GRANT OPTION;
GRANT USAGE ON SCHEMA gsch TO ga WITH GRANT OPTION;
GRANT EXECUTE ON FUNCTION gf(int) TO ga WITH GRANT OPTION;
-- as ga
GRANT USAGE ON SEQUENCE gs TO gb;
GRANT USAGE ON SCHEMA gsch TO gb WITH GRANT OPTION;
GRANT EXECUTE ON FUNCTION gf(int) TO gb;
GRANT SELECT ON SEQUENCE gs TO gb;
-- as gb
SELECT nextval('gs');
SELECT gf(1);
GRANT USAGE ON SCHEMA gsch TO gc;
-- as postgres
SELECT relacl FROM pg_class WHERE relname = 'gs';
SELECT nspacl FROM pg_namespace WHERE nspname = 'gsch';
SELECT proacl FROM pg_proc WHERE proname = 'gf';
REVOKE USAGE ON SEQUENCE gs FROM ga;
REVOKE USAGE ON SCHEMA gsch FROM ga;
REVOKE EXECUTE ON FUNCTION gf(int) FROM ga;
REVOKE GRANT OPTION FOR USAGE ON SCHEMA gsch FROM ga CASCADE;
REVOKE ALL ON SEQUENCE gs FROM ga CASCADE;
REVOKE ALL ON FUNCTION gf(int) FROM ga CASCADE;
SELECT relacl FROM pg_class WHERE relname = 'gs';
SELECT nspacl FROM pg_namespace WHERE nspname = 'gsch';
SELECT proacl FROM pg_proc WHERE proname = 'gf';
-- as gb
SELECT nextval('gs');
SELECT gf(1);
-- DROP ROLE of a grantor (its schema grant revoked first: PostgreSQL lists
-- the dependent objects in OID order, which pgproxy does not reproduce
-- across object kinds)
-- as postgres
REVOKE ALL ON SCHEMA gsch FROM ga CASCADE;
GRANT SELECT ON gt TO ga WITH GRANT OPTION;
-- as ga
GRANT SELECT ON gt TO gb;
-- as postgres
DROP ROLE ga;
REVOKE SELECT ON gt FROM ga CASCADE;
DROP ROLE ga;
SELECT relacl FROM pg_class WHERE relname = 'gt';
DROP TABLE gt;
DROP SEQUENCE gs;
DROP SCHEMA gsch;
DROP FUNCTION gf(int);
