-- GRANT/REVOKE USAGE, CREATE ON SCHEMA for schemas made by CREATE
-- SCHEMA, as PostgreSQL 15 keeps them: the owner holds both, PUBLIC
-- nothing; USAGE is checked on every lookup, CREATE on creation;
-- nspacl and has_schema_privilege show them; a schema dropped and
-- created again starts from the default.
-- "-- as NAME" switches sessions.
-- as postgres
CREATE ROLE so LOGIN;
CREATE ROLE su LOGIN;
CREATE ROLE sgrp;
GRANT sgrp TO su;
CREATE SCHEMA app AUTHORIZATION so;
SELECT nspname, nspacl FROM pg_namespace WHERE nspname = 'app';
-- as so
CREATE TABLE app.t (a int);
INSERT INTO app.t VALUES (1);
GRANT SELECT ON app.t TO su;
-- as su
SELECT * FROM app.t;
CREATE TABLE app.u (a int);
SELECT has_schema_privilege('app', 'USAGE'), has_schema_privilege('app', 'CREATE');
-- as so
GRANT USAGE ON SCHEMA app TO sgrp;
-- as postgres
DROP ROLE sgrp;
-- as so
SELECT nspacl FROM pg_namespace WHERE nspname = 'app';
-- as su
SELECT * FROM app.t;
CREATE TABLE app.u (a int);
SELECT has_schema_privilege('app', 'USAGE'), has_schema_privilege('app', 'CREATE'), has_schema_privilege('su', 'app', 'USAGE WITH GRANT OPTION');
GRANT USAGE ON SCHEMA app TO PUBLIC;
-- as so
GRANT CREATE ON SCHEMA app TO su WITH GRANT OPTION;
-- as su
CREATE TABLE app.u (a int);
GRANT CREATE ON SCHEMA app TO sgrp;
-- as so
SELECT nspacl FROM pg_namespace WHERE nspname = 'app';
REVOKE CREATE ON SCHEMA app FROM su;
REVOKE CREATE ON SCHEMA app FROM su CASCADE;
SELECT nspacl FROM pg_namespace WHERE nspname = 'app';
-- as su
SELECT * FROM app.t;
CREATE TABLE app.v (a int);
-- as so
REVOKE ALL ON SCHEMA app FROM sgrp;
-- as su
SELECT * FROM app.t;
SELECT has_schema_privilege('app', 'USAGE');
-- as so
GRANT USAGE ON SCHEMA nosuch TO su;
GRANT SELECT ON SCHEMA app TO su;
DROP TABLE app.t;
-- as su
DROP TABLE app.u;
-- as postgres
DROP SCHEMA app;
CREATE SCHEMA app AUTHORIZATION so;
SELECT nspacl FROM pg_namespace WHERE nspname = 'app';
-- as su
SELECT has_schema_privilege('app', 'USAGE');
-- as postgres
DROP SCHEMA app;
