-- Role statements as PostgreSQL 15 answers them. "-- as NAME" switches
-- to a session of that user (opened on first use).
-- as postgres
CREATE ROLE readers;
CREATE USER reader PASSWORD 'pw' IN ROLE readers;
CREATE ROLE writer LOGIN CONNECTION LIMIT 3 CREATEDB;
CREATE ROLE manager LOGIN CREATEROLE;
CREATE ROLE nolog;
CREATE ROLE reader;
CREATE ROLE pg_x;
CREATE ROLE x SUPERUSER NOSUPERUSER;
CREATE ROLE x CONNECTION LIMIT -2;
ALTER ROLE nobody LOGIN;
DROP ROLE nobody;
DROP ROLE IF EXISTS nobody;
DROP ROLE postgres;
GRANT readers TO writer;
GRANT writer TO readers;
GRANT readers TO readers;
GRANT nobody TO writer;
GRANT readers TO nobody;
REVOKE readers FROM manager;
SELECT r.rolname, r.rolsuper, r.rolinherit, r.rolcreaterole, r.rolcreatedb, r.rolcanlogin, r.rolconnlimit, r.rolpassword, r.rolvaliduntil, r.rolbypassrls, r.rolreplication, ARRAY(SELECT b.rolname FROM pg_catalog.pg_auth_members m JOIN pg_catalog.pg_roles b ON (m.roleid = b.oid) WHERE m.member = r.oid) AS memberof FROM pg_catalog.pg_roles r WHERE r.rolname !~ '^pg_' ORDER BY 1;
SELECT usename, usecreatedb, usesuper, passwd FROM pg_user ORDER BY 1;
SELECT pg_has_role('reader', 'readers', 'MEMBER'), pg_has_role('writer', 'readers', 'USAGE'), pg_has_role('readers', 'writer', 'MEMBER'), pg_has_role('reader', 'readers', 'MEMBER WITH ADMIN OPTION');
SELECT pg_has_role('reader', 'readers', 'FLY');
SELECT pg_has_role('nobody', 'readers', 'MEMBER');
SELECT pg_has_role('readers', 'USAGE');
CREATE TABLE owned (id int PRIMARY KEY);
CREATE SEQUENCE owned_seq;
ALTER TABLE owned OWNER TO nobody;
ALTER TABLE owned OWNER TO writer;
ALTER SEQUENCE owned_seq OWNER TO writer;
-- (give them back: the sessions below compare as the original owner)
ALTER TABLE owned OWNER TO postgres;
ALTER SEQUENCE owned_seq OWNER TO postgres;
-- as reader
SELECT current_user, session_user;
ALTER TABLE owned OWNER TO reader;
ALTER SEQUENCE owned_seq OWNER TO reader;
CREATE ROLE x;
ALTER ROLE writer NOLOGIN;
ALTER ROLE reader PASSWORD 'pw2';
ALTER ROLE reader CREATEDB;
DROP ROLE writer;
GRANT readers TO manager;
SET ROLE writer;
SET ROLE nobody;
SET ROLE readers;
SELECT current_user, session_user;
RESET ROLE;
SELECT current_user, pg_has_role('readers', 'MEMBER'), pg_has_role('writer', 'MEMBER');
-- as manager
CREATE ROLE su SUPERUSER;
CREATE ROLE rep REPLICATION;
ALTER ROLE postgres NOLOGIN;
CREATE ROLE temp;
GRANT readers TO temp;
GRANT readers TO temp;
GRANT temp TO readers;
REVOKE readers FROM temp;
REVOKE readers FROM temp;
ALTER ROLE temp RENAME TO temp2;
ALTER ROLE temp2 RENAME TO readers;
ALTER ROLE manager RENAME TO boss;
ALTER ROLE temp2 VALID UNTIL '2030-01-01 00:00:00+00';
SELECT rolname, rolvaliduntil FROM pg_roles WHERE rolname = 'temp2';
DROP ROLE temp2;
DROP ROLE postgres;
DROP ROLE manager;
CREATE GROUP grp;
ALTER GROUP grp ADD USER reader;
SELECT pg_has_role('reader', 'grp', 'USAGE');
ALTER GROUP grp DROP USER reader;
SELECT pg_has_role('reader', 'grp', 'USAGE');
DROP ROLE grp, nolog;
-- as postgres
CREATE ROLE noinh NOINHERIT LOGIN IN ROLE readers;
SELECT pg_has_role('noinh', 'readers', 'USAGE'), pg_has_role('noinh', 'readers', 'MEMBER');
GRANT manager TO reader WITH ADMIN OPTION;
SELECT m.admin_option, r.rolname, u.rolname FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.roleid JOIN pg_roles u ON u.oid = m.member WHERE r.rolname !~ '^pg_' ORDER BY 2, 3;
-- as reader
GRANT manager TO writer;
REVOKE manager FROM writer;
-- as postgres
REVOKE ADMIN OPTION FOR manager FROM reader;
SELECT m.admin_option FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.roleid WHERE r.rolname = 'manager';
SELECT datacl FROM pg_database WHERE datname = current_database();
REVOKE CONNECT ON DATABASE roles_diff FROM PUBLIC;
GRANT CONNECT ON DATABASE roles_diff TO reader;
GRANT CONNECT, TEMPORARY ON DATABASE roles_diff TO manager WITH GRANT OPTION;
GRANT CONNECT ON DATABASE nope TO reader;
GRANT SELECT ON DATABASE roles_diff TO reader;
SELECT datacl FROM pg_database WHERE datname = current_database();
SELECT has_database_privilege('reader', 'roles_diff', 'CONNECT'), has_database_privilege('writer', 'roles_diff', 'CONNECT'), has_database_privilege('manager', 'roles_diff', 'CONNECT WITH GRANT OPTION'), has_database_privilege('roles_diff', 'TEMP'), has_database_privilege('reader', 'roles_diff', 'CREATE');
SELECT has_database_privilege('reader', 'roles_diff', 'FLY');
DROP ROLE manager;
-- as manager
GRANT CONNECT ON DATABASE roles_diff TO writer;
REVOKE CONNECT ON DATABASE roles_diff FROM writer;
-- as reader
GRANT CONNECT ON DATABASE roles_diff TO writer;
-- as postgres
SELECT datacl FROM pg_database WHERE datname = current_database();
SELECT has_database_privilege('writer', 'roles_diff', 'CONNECT');
REVOKE ALL ON DATABASE roles_diff FROM manager;
GRANT CONNECT ON DATABASE roles_diff TO PUBLIC;
REVOKE ALL ON DATABASE roles_diff FROM writer, reader;
SELECT datacl FROM pg_database WHERE datname = current_database();
-- as postgres
ALTER ROLE writer RENAME TO w2;
ALTER ROLE w2 RENAME TO writer;
DROP ROLE reader, writer;
-- as manager
DROP ROLE postgres;
-- as postgres
CREATE ROLE su2 SUPERUSER;
DROP ROLE su2;
ALTER ROLE su2 RENAME TO su3;
