-- SET ROLE (and SET SESSION AUTHORIZATION to the session's own role):
-- who may, what current_user and session_user then say, which
-- privileges statements run with, SET LOCAL and transactions, RESET and
-- DISCARD ALL, as PostgreSQL 15 has them. (SET SESSION AUTHORIZATION to
-- another role answers 0A000 in pgproxy.)
-- "-- as NAME" switches sessions.
-- as postgres
CREATE ROLE sa_user LOGIN;
CREATE ROLE sa_other LOGIN;
CREATE ROLE sa_grp NOLOGIN;
CREATE ROLE sa_noinh LOGIN NOINHERIT;
GRANT sa_grp TO sa_user;
GRANT sa_grp TO sa_noinh;
CREATE TABLE sa_t (id int PRIMARY KEY, v text);
INSERT INTO sa_t VALUES (1, 'one');
GRANT SELECT ON sa_t TO sa_grp;
GRANT INSERT ON sa_t TO sa_other;
SET SESSION AUTHORIZATION DEFAULT;
SET SESSION AUTHORIZATION postgres;
RESET SESSION AUTHORIZATION;
SELECT current_user, session_user;
SET ROLE sa_user;
SELECT current_user, session_user;
SELECT * FROM sa_t;
INSERT INTO sa_t VALUES (2, 'two');
SET ROLE sa_grp;
SELECT current_user, session_user;
SELECT * FROM sa_t;
SET ROLE sa_other;
INSERT INTO sa_t VALUES (2, 'two');
SELECT * FROM sa_t;
SET ROLE nobody_here;
RESET ROLE;
SELECT current_user, session_user;
-- a transaction's SET LOCAL, SET and ROLLBACK
BEGIN;
SET LOCAL ROLE sa_user;
SELECT current_user;
COMMIT;
SELECT current_user;
BEGIN;
SET ROLE sa_user;
SELECT current_user;
ROLLBACK;
SELECT current_user;
BEGIN;
SET ROLE sa_other;
SAVEPOINT s1;
SET ROLE sa_user;
SELECT current_user;
ROLLBACK TO SAVEPOINT s1;
SELECT current_user;
COMMIT;
SELECT current_user;
RESET ROLE;
SHOW role;
SHOW session_authorization;
SET ROLE sa_user;
SHOW role;
RESET ALL;
SELECT current_user;
SHOW role;
RESET ROLE;
BEGIN ISOLATION LEVEL REPEATABLE READ;
SET LOCAL ROLE sa_user;
SET LOCAL statement_timeout = '5s';
RESET ALL;
SELECT current_user;
SHOW transaction_isolation;
SHOW statement_timeout;
COMMIT;
SELECT current_user;
SET ROLE sa_user;
DISCARD ALL;
SELECT current_user;
-- a non-superuser: its own session authorization, SET ROLE to its groups
-- as sa_user
SET SESSION AUTHORIZATION sa_user;
SELECT current_user, session_user;
SET ROLE sa_grp;
SELECT current_user, session_user;
SELECT * FROM sa_t;
INSERT INTO sa_t VALUES (3, 'three');
SET ROLE sa_other;
SET ROLE postgres;
SET ROLE NONE;
SELECT current_user;
CREATE TABLE sa_mine (id int);
SET ROLE sa_grp;
CREATE TABLE sa_grps (id int);
RESET ROLE;
SELECT c.relname, pg_get_userbyid(c.relowner) FROM pg_class c WHERE c.relname IN ('sa_mine', 'sa_grps') ORDER BY 1;
-- NOINHERIT: privileges of the group only after SET ROLE
-- as sa_noinh
SELECT * FROM sa_t;
SET ROLE sa_grp;
SELECT * FROM sa_t;
RESET ROLE;
SELECT has_table_privilege('sa_t', 'SELECT'), pg_has_role('sa_grp', 'USAGE'), pg_has_role('sa_grp', 'MEMBER');
-- a superuser after SET ROLE is only that role
-- as postgres
SET ROLE sa_other;
SELECT * FROM sa_t;
CREATE ROLE sa_nope;
SET ROLE postgres;
RESET ROLE;
DROP TABLE sa_mine;
DROP TABLE sa_grps;
DROP TABLE sa_t;
