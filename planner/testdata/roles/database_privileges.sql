-- Database privileges as PostgreSQL 15 keeps them, a database being a
-- branch: CONNECT and TEMPORARY for PUBLIC by default, CREATE for the
-- owner only; GRANT/REVOKE CREATE, TEMPORARY, CONNECT ON DATABASE to and
-- from PUBLIC and roles, WITH GRANT OPTION, pg_database.datacl,
-- has_database_privilege; CREATE SCHEMA and ALTER SCHEMA … OWNER TO
-- need CREATE on the database, a session's first temporary table needs
-- TEMPORARY; GRANTED BY. Every session connects before CONNECT is
-- revoked (an open session keeps its database). "-- as NAME" switches
-- sessions.
-- as postgres
CREATE ROLE da LOGIN;
CREATE ROLE db LOGIN;
CREATE ROLE dc LOGIN;
CREATE ROLE dgrp;
GRANT dgrp TO db;
SELECT datname, datacl FROM pg_database WHERE datname = current_database();
SELECT has_database_privilege('da', current_database(), 'CREATE'), has_database_privilege('da', current_database(), 'TEMP'), has_database_privilege('da', current_database(), 'CONNECT');
-- as da
CREATE SCHEMA s_da;
CREATE SCHEMA s_da2 AUTHORIZATION da;
CREATE SCHEMA IF NOT EXISTS public;
CREATE SCHEMA IF NOT EXISTS s_da;
SELECT has_database_privilege(current_database(), 'CREATE');
CREATE TEMP TABLE tt (a int);
INSERT INTO tt VALUES (1);
SELECT * FROM tt;
-- as dc
SELECT 1;
-- as postgres
GRANT CREATE ON DATABASE db_diff TO dgrp;
SELECT datname, datacl FROM pg_database WHERE datname = current_database();
-- as db
CREATE SCHEMA s_db;
CREATE SCHEMA s_db2 AUTHORIZATION da;
CREATE SCHEMA s_db3 AUTHORIZATION dgrp;
SELECT nspname, pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname LIKE 's\_%' ORDER BY 1;
GRANT CREATE ON DATABASE db_diff TO da;
-- as postgres
REVOKE TEMPORARY ON DATABASE db_diff FROM PUBLIC;
SELECT datname, datacl FROM pg_database WHERE datname = current_database();
SELECT has_database_privilege('db', current_database(), 'TEMPORARY'), has_database_privilege('postgres', current_database(), 'TEMPORARY');
-- as db
CREATE TEMP TABLE tt2 (a int);
CREATE TEMPORARY SEQUENCE tseq;
CREATE TABLE pg_temp.tt3 (a int);
-- as postgres
CREATE TEMP TABLE tt4 (a int);
DROP TABLE tt4;
GRANT TEMP ON DATABASE db_diff TO dgrp;
-- as db
CREATE TEMP TABLE tt2 (a int);
DROP TABLE tt2;
-- as postgres
REVOKE CREATE ON DATABASE db_diff FROM dgrp;
SELECT datname, datacl FROM pg_database WHERE datname = current_database();
-- as db
CREATE SCHEMA s_db4;
ALTER SCHEMA s_db OWNER TO dgrp;
ALTER SCHEMA s_db RENAME TO s_db5;
DROP SCHEMA s_db;
-- as postgres
GRANT CREATE ON DATABASE db_diff TO db WITH GRANT OPTION;
-- as db
ALTER SCHEMA s_db3 OWNER TO db;
GRANT CREATE ON DATABASE db_diff TO dc;
-- as dc
CREATE SCHEMA s_dc;
-- as postgres
REVOKE CREATE ON DATABASE db_diff FROM db;
REVOKE CREATE ON DATABASE db_diff FROM db CASCADE;
SELECT datname, datacl FROM pg_database WHERE datname = current_database();
-- as dc
CREATE SCHEMA s_dc2;
-- as postgres
REVOKE CONNECT ON DATABASE db_diff FROM PUBLIC;
GRANT CONNECT ON DATABASE db_diff TO da;
SELECT datname, datacl FROM pg_database WHERE datname = current_database();
SELECT has_database_privilege('da', current_database(), 'CONNECT'), has_database_privilege('db', current_database(), 'CONNECT'), has_database_privilege('dc', current_database(), 'CONNECT WITH GRANT OPTION');
GRANT ALL ON DATABASE db_diff TO dc;
SELECT datname, datacl FROM pg_database WHERE datname = current_database();
REVOKE ALL PRIVILEGES ON DATABASE db_diff FROM dc, da;
GRANT CONNECT, TEMPORARY ON DATABASE db_diff TO PUBLIC;
SELECT datname, datacl FROM pg_database WHERE datname = current_database();
GRANT SELECT ON DATABASE db_diff TO da;
GRANT USAGE ON DATABASE db_diff TO da;
GRANT CONNECT ON DATABASE no_such_db TO da;
GRANT CONNECT (x) ON DATABASE db_diff TO da;
GRANT CONNECT ON DATABASE db_diff TO PUBLIC WITH GRANT OPTION;
-- GRANTED BY names the current role, else PostgreSQL 15 refuses it
GRANT CONNECT ON DATABASE db_diff TO da GRANTED BY postgres;
GRANT CONNECT ON DATABASE db_diff TO da GRANTED BY da;
GRANT CONNECT ON DATABASE db_diff TO da GRANTED BY CURRENT_USER;
REVOKE CONNECT ON DATABASE db_diff FROM da GRANTED BY CURRENT_ROLE;
GRANT CONNECT ON DATABASE db_diff TO da GRANTED BY nosuch;
GRANT CONNECT ON DATABASE db_diff TO da GRANTED BY PUBLIC;
GRANT CONNECT ON DATABASE no_such_db TO da GRANTED BY da;
CREATE TABLE gt (a int);
CREATE TYPE gmood AS ENUM ('x');
CREATE FUNCTION gf() RETURNS int LANGUAGE sql AS 'SELECT 1';
GRANT SELECT ON gt TO da GRANTED BY postgres;
GRANT SELECT ON gt TO da GRANTED BY da;
GRANT SELECT ON no_such_table TO da GRANTED BY da;
REVOKE SELECT ON gt FROM da GRANTED BY db;
GRANT USAGE ON SCHEMA public TO da GRANTED BY da;
GRANT USAGE ON TYPE gmood TO da GRANTED BY da;
GRANT EXECUTE ON FUNCTION gf() TO da GRANTED BY da;
GRANT EXECUTE ON FUNCTION now() TO da GRANTED BY da;
GRANT USAGE ON SEQUENCE no_such_seq TO da GRANTED BY SESSION_USER;
SELECT relname, relacl FROM pg_class WHERE relname = 'gt';
-- GRANT role … GRANTED BY: recorded as the grantor; only a superuser
-- may name another role
GRANT dgrp TO da GRANTED BY dc;
GRANT dgrp TO dc GRANTED BY postgres;
SELECT pg_get_userbyid(roleid), pg_get_userbyid(member), pg_get_userbyid(grantor) FROM pg_auth_members WHERE roleid = (SELECT oid FROM pg_roles WHERE rolname = 'dgrp') ORDER BY 2;
GRANT dgrp TO db WITH ADMIN OPTION;
GRANT dgrp TO postgres GRANTED BY nosuch;
-- as db
GRANT dgrp TO da GRANTED BY db;
GRANT dgrp TO dc GRANTED BY postgres;
GRANT dgrp TO postgres GRANTED BY da;
REVOKE dgrp FROM dc GRANTED BY da;
-- as postgres
SELECT pg_get_userbyid(roleid), pg_get_userbyid(member), pg_get_userbyid(grantor) FROM pg_auth_members WHERE roleid = (SELECT oid FROM pg_roles WHERE rolname = 'dgrp') ORDER BY 2;
REVOKE dgrp FROM da;
DROP TABLE gt;
DROP TYPE gmood;
DROP FUNCTION gf();
