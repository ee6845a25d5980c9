-- Role statements inside transaction blocks, as PostgreSQL 15 runs
-- them: seen by the transaction's later statements, by nobody else
-- before COMMIT, gone after ROLLBACK or ROLLBACK TO SAVEPOINT, and
-- published with the transaction's grants at COMMIT. "-- as NAME"
-- switches sessions.
-- as postgres
CREATE ROLE alice LOGIN;
CREATE TABLE t (id int PRIMARY KEY, v text);
INSERT INTO t VALUES (1, 'one');
BEGIN;
CREATE ROLE r1 LOGIN;
SELECT rolname, rolcanlogin FROM pg_roles WHERE rolname = 'r1';
ROLLBACK;
SELECT count(*) FROM pg_roles WHERE rolname = 'r1';
-- created and granted to in one transaction
BEGIN;
CREATE ROLE r2;
GRANT SELECT ON t TO r2;
GRANT r2 TO alice;
SELECT has_table_privilege('alice', 't', 'SELECT'), pg_has_role('alice', 'r2', 'MEMBER');
-- as alice
SELECT count(*) FROM pg_roles WHERE rolname = 'r2';
SELECT * FROM t;
-- as postgres
COMMIT;
SELECT relacl FROM pg_class WHERE relname = 't';
-- as alice
SELECT count(*) FROM pg_roles WHERE rolname = 'r2';
SELECT * FROM t;
-- savepoints
-- as postgres
BEGIN;
CREATE ROLE r3;
SAVEPOINT a;
CREATE ROLE r4;
ALTER ROLE r3 CREATEDB;
ROLLBACK TO SAVEPOINT a;
CREATE ROLE r5 IN ROLE r3;
SELECT rolname, rolcreatedb FROM pg_roles WHERE rolname IN ('r3', 'r4', 'r5') ORDER BY 1;
RELEASE SAVEPOINT a;
COMMIT;
SELECT rolname, rolcreatedb FROM pg_roles WHERE rolname IN ('r3', 'r4', 'r5') ORDER BY 1;
SELECT pg_has_role('r5', 'r3', 'MEMBER');
-- errors inside the block: the statement's error, then the block is aborted
BEGIN;
CREATE ROLE r6;
CREATE ROLE r2;
COMMIT;
SELECT count(*) FROM pg_roles WHERE rolname = 'r6';
BEGIN;
CREATE ROLE r7;
DROP ROLE nosuch;
ROLLBACK;
BEGIN;
CREATE ROLE r8;
SELECT 1 / 0;
COMMIT;
SELECT count(*) FROM pg_roles WHERE rolname IN ('r7', 'r8');
-- ALTER, rename, revoke membership, rolled back
BEGIN;
ALTER ROLE r2 LOGIN CONNECTION LIMIT 3;
ALTER ROLE r3 RENAME TO r3x;
REVOKE r2 FROM alice;
SELECT rolname, rolcanlogin, rolconnlimit FROM pg_roles WHERE rolname IN ('r2', 'r3', 'r3x') ORDER BY 1;
SELECT pg_has_role('alice', 'r2', 'MEMBER');
ROLLBACK;
SELECT rolname, rolcanlogin, rolconnlimit FROM pg_roles WHERE rolname IN ('r2', 'r3', 'r3x') ORDER BY 1;
SELECT pg_has_role('alice', 'r2', 'MEMBER');
-- SET ROLE to a role created in the block
BEGIN;
CREATE ROLE r9;
GRANT SELECT ON t TO r9;
SET LOCAL ROLE r9;
SELECT current_user;
SELECT count(*) FROM t;
ROLLBACK;
SELECT current_user;
-- schema and database privileges, default privileges
BEGIN;
GRANT CREATE ON SCHEMA public TO alice;
GRANT CONNECT ON DATABASE rt_diff TO r2;
ALTER DEFAULT PRIVILEGES GRANT SELECT ON TABLES TO r2;
SELECT has_schema_privilege('alice', 'public', 'CREATE');
-- as alice
SELECT has_schema_privilege('alice', 'public', 'CREATE');
CREATE TABLE at1 (id int);
-- as postgres
ROLLBACK;
SELECT has_schema_privilege('alice', 'public', 'CREATE');
SELECT count(*) FROM pg_default_acl;
-- as alice
CREATE TABLE at1 (id int);
-- revoke and drop in one transaction
-- as postgres
BEGIN;
REVOKE r2 FROM alice;
REVOKE SELECT ON t FROM r2;
DROP ROLE r2;
COMMIT;
SELECT count(*) FROM pg_roles WHERE rolname = 'r2';
SELECT relacl FROM pg_class WHERE relname = 't';
-- as alice
SELECT * FROM t;
-- as postgres
BEGIN;
DROP ROLE r5;
DROP ROLE r3;
COMMIT;
SELECT count(*) FROM pg_roles WHERE rolname IN ('r3', 'r5');
BEGIN READ ONLY;
CREATE ROLE r10;
ROLLBACK;
