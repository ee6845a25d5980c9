-- Created schemas and privileges as PostgreSQL 15 has them: the owner
-- (the creating role, or AUTHORIZATION's) creates in its schema, other
-- roles may not; only the owner drops, renames or gives it away.
-- "-- as NAME" switches sessions.
-- as postgres
CREATE ROLE alice LOGIN;
CREATE ROLE bob LOGIN;
CREATE SCHEMA owned_by_alice AUTHORIZATION alice;
CREATE SCHEMA admin_only;
SELECT n.nspname, r.rolname FROM pg_namespace n JOIN pg_roles r ON r.oid = n.nspowner WHERE n.nspname IN ('owned_by_alice', 'admin_only') ORDER BY 1;
CREATE SCHEMA nobody AUTHORIZATION no_such_role;
-- as alice
CREATE TABLE owned_by_alice.t (a int);
INSERT INTO owned_by_alice.t VALUES (1);
SELECT * FROM owned_by_alice.t;
CREATE TABLE admin_only.t (a int);
-- as bob
CREATE TABLE owned_by_alice.u (a int);
DROP SCHEMA owned_by_alice CASCADE;
ALTER SCHEMA owned_by_alice RENAME TO mine;
ALTER SCHEMA owned_by_alice OWNER TO bob;
SELECT * FROM owned_by_alice.t;
-- as postgres
ALTER SCHEMA admin_only OWNER TO bob;
-- as bob
CREATE TABLE admin_only.t (a int);
DROP TABLE admin_only.t;
DROP SCHEMA admin_only;
-- as alice
DROP SCHEMA owned_by_alice CASCADE;
-- as postgres
DROP ROLE alice;
DROP ROLE bob;
