-- Privileges of user types (enums and domains) as PostgreSQL 15 keeps
-- them: USAGE for PUBLIC and the owner by default, GRANT/REVOKE USAGE ON
-- TYPE and ON DOMAIN, pg_type.typacl, has_type_privilege, 42501 when a
-- role without USAGE declares a column, function argument or result, or
-- domain of the type (a cast or a value of the type needs none), ALTER
-- TYPE … OWNER TO moving the ACL, DROP ROLE while a type names the role,
-- and ALTER DEFAULT PRIVILEGES … ON TYPES. "-- as NAME" switches
-- sessions.
-- as postgres
CREATE ROLE ta LOGIN;
CREATE ROLE tb LOGIN;
CREATE ROLE tgrp;
GRANT tgrp TO tb;
GRANT CREATE ON SCHEMA public TO ta, tb;
CREATE TYPE mood AS ENUM ('sad', 'ok');
CREATE DOMAIN posint AS int CHECK (VALUE > 0);
SELECT typname, typacl FROM pg_type WHERE typname IN ('mood', 'posint', '_mood') ORDER BY 1;
SELECT has_type_privilege('ta', 'mood', 'USAGE'), has_type_privilege('ta', 'posint', 'USAGE WITH GRANT OPTION'), has_type_privilege('mood', 'USAGE');
-- as ta
CREATE TABLE ta_ok (m mood, p posint);
DROP TABLE ta_ok;
-- as postgres
REVOKE USAGE ON TYPE mood FROM PUBLIC;
REVOKE USAGE ON DOMAIN posint FROM PUBLIC;
SELECT typname, typacl FROM pg_type WHERE typname IN ('mood', 'posint', '_mood') ORDER BY 1;
SELECT has_type_privilege('ta', 'mood', 'USAGE'), has_type_privilege('ta', 'posint', 'USAGE'), has_type_privilege('ta', 'int4', 'USAGE'), has_type_privilege('mood', 'USAGE');
SELECT has_type_privilege('ta', 'mood[]', 'USAGE'), has_type_privilege('ta', '_posint', 'USAGE'), has_type_privilege('postgres', 'mood', 'USAGE');
SELECT has_type_privilege('ta', 'mood', 'SELECT');
SELECT has_type_privilege('ta', 'nosuch', 'USAGE');
SELECT has_type_privilege('nobody', 'mood', 'USAGE');
SELECT has_type_privilege('ta', 'mood'::regtype, 'USAGE'), has_type_privilege('ta', 4294967295::oid, 'USAGE') IS NULL;
-- as ta
CREATE TABLE t1 (m mood);
CREATE TABLE t2 (p posint);
CREATE TABLE t3 (m mood[]);
CREATE TABLE t5 (a int, m mood NOT NULL DEFAULT 'ok');
SELECT 'sad'::mood;
SELECT CAST(1 AS posint);
SELECT NULL::mood, ARRAY['ok']::mood[];
SELECT has_type_privilege('mood', 'USAGE'), has_type_privilege('posint', 'USAGE');
CREATE TABLE t4 (a int);
ALTER TABLE t4 ADD COLUMN m mood;
ALTER TABLE t4 ADD COLUMN b int;
CREATE FUNCTION f(mood) RETURNS int LANGUAGE sql AS 'SELECT 1';
CREATE FUNCTION g() RETURNS mood LANGUAGE sql AS 'SELECT NULL::mood';
CREATE FUNCTION h(x int) RETURNS int LANGUAGE sql AS 'SELECT x::posint';
SELECT h(3);
CREATE DOMAIN d3 AS mood;
CREATE VIEW v AS SELECT 'ok'::mood AS m;
CREATE VIEW v3 AS SELECT 'ok'::mood::text AS m;
SELECT * FROM v3;
DROP VIEW v3;
DROP FUNCTION h(int);
-- as postgres
CREATE TABLE tm (m mood, p posint);
INSERT INTO tm VALUES ('ok', 1);
GRANT SELECT, INSERT, UPDATE ON tm TO ta;
-- as ta
SELECT * FROM tm;
INSERT INTO tm VALUES ('sad', 2);
UPDATE tm SET m = 'ok' WHERE p = 2;
SELECT m::text, p FROM tm ORDER BY p;
-- as postgres
GRANT USAGE ON TYPE mood TO ta WITH GRANT OPTION;
GRANT USAGE ON TYPE posint TO ta;
GRANT USAGE ON DOMAIN mood TO ta;
GRANT USAGE ON TYPE _mood TO ta;
GRANT USAGE ON TYPE mood[] TO ta;
GRANT SELECT ON TYPE mood TO ta;
GRANT CREATE ON DOMAIN posint TO ta;
GRANT USAGE ON TYPE nosuch TO ta;
GRANT USAGE ON DOMAIN nosuch TO ta;
GRANT USAGE ON TYPE mood TO nosuch;
GRANT USAGE (x) ON TYPE mood TO ta;
GRANT bogus ON TYPE mood TO ta;
GRANT ALL ON TYPE mood TO tgrp;
GRANT ALL PRIVILEGES ON DOMAIN posint TO tgrp;
SELECT typname, typacl FROM pg_type WHERE typname IN ('mood', 'posint', '_mood') ORDER BY 1;
SELECT has_type_privilege('ta', 'mood', 'USAGE WITH GRANT OPTION'), has_type_privilege('tb', 'mood', 'USAGE'), has_type_privilege('tb', 'posint', 'usage');
-- as ta
CREATE TABLE t1 (m mood, p posint);
CREATE TABLE t3 (m mood[]);
CREATE FUNCTION f(mood) RETURNS posint LANGUAGE sql AS 'SELECT 1';
CREATE DOMAIN d3 AS mood;
GRANT USAGE ON TYPE mood TO tb;
GRANT USAGE ON TYPE posint TO tb;
REVOKE USAGE ON TYPE posint FROM tb;
SELECT typname, typacl FROM pg_type WHERE typname IN ('mood', 'posint') ORDER BY 1;
-- as tb
CREATE TABLE tb1 (m mood, p posint);
CREATE TABLE tb2 (d d3);
GRANT USAGE ON TYPE posint TO ta;
-- as postgres
REVOKE USAGE ON TYPE mood FROM ta;
REVOKE GRANT OPTION FOR USAGE ON TYPE mood FROM ta;
REVOKE USAGE ON TYPE mood FROM ta CASCADE;
SELECT typname, typacl FROM pg_type WHERE typname IN ('mood', 'posint') ORDER BY 1;
DROP ROLE tgrp;
-- as ta
CREATE TABLE t6 (m mood);
ALTER TYPE mood OWNER TO ta;
-- as postgres
ALTER TYPE mood OWNER TO tb;
SELECT t.typname, r.rolname, t.typacl FROM pg_type t JOIN pg_roles r ON r.oid = t.typowner WHERE t.typname IN ('mood', 'posint', '_mood') ORDER BY 1;
ALTER TYPE _mood OWNER TO ta;
ALTER DOMAIN posint OWNER TO ta;
ALTER TYPE mood OWNER TO nosuch;
SELECT t.typname, r.rolname, t.typacl FROM pg_type t JOIN pg_roles r ON r.oid = t.typowner WHERE t.typname IN ('mood', 'posint', '_mood') ORDER BY 1;
-- as tb
REVOKE ALL ON TYPE mood FROM PUBLIC;
GRANT USAGE ON TYPE mood TO ta;
ALTER TYPE mood OWNER TO ta;
ALTER TYPE mood OWNER TO tb;
-- as ta
ALTER DOMAIN posint OWNER TO tb;
SELECT typname, typacl FROM pg_type WHERE typname IN ('mood', 'posint') ORDER BY 1;
-- as postgres
CREATE ROLE tc;
CREATE TYPE tc_owned AS ENUM ('x');
ALTER TYPE tc_owned OWNER TO tc;
GRANT USAGE ON TYPE posint TO tc;
DROP ROLE tc;
REVOKE USAGE ON TYPE posint FROM tc;
DROP ROLE tc;
DROP TYPE tc_owned;
DROP ROLE tc;
-- default privileges for types
ALTER DEFAULT PRIVILEGES REVOKE USAGE ON TYPES FROM PUBLIC;
ALTER DEFAULT PRIVILEGES FOR ROLE ta GRANT USAGE ON TYPES TO tb;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE ON TYPES TO ta;
ALTER DEFAULT PRIVILEGES GRANT SELECT ON TYPES TO ta;
ALTER DEFAULT PRIVILEGES GRANT USAGE ON TYPES TO PUBLIC WITH GRANT OPTION;
SELECT pg_get_userbyid(defaclrole), (SELECT nspname FROM pg_namespace WHERE oid = defaclnamespace), defaclobjtype, defaclacl FROM pg_default_acl ORDER BY 1, 2, 3;
CREATE TYPE colour AS ENUM ('red');
CREATE DOMAIN small AS int;
SELECT typname, typacl FROM pg_type WHERE typname IN ('colour', 'small', '_colour') ORDER BY 1;
-- as ta
CREATE TYPE shape AS ENUM ('round');
SELECT typname, typacl FROM pg_type WHERE typname = 'shape';
-- as tb
CREATE TABLE tb3 (s shape, c colour, sm small);
-- as postgres
ALTER DEFAULT PRIVILEGES GRANT USAGE ON TYPES TO PUBLIC;
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE USAGE ON TYPES FROM ta;
ALTER DEFAULT PRIVILEGES FOR ROLE ta REVOKE USAGE ON TYPES FROM tb;
SELECT pg_get_userbyid(defaclrole), (SELECT nspname FROM pg_namespace WHERE oid = defaclnamespace), defaclobjtype, defaclacl FROM pg_default_acl ORDER BY 1, 2, 3;
