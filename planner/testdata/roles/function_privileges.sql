-- Function privileges as PostgreSQL 15 reports them for the built-in
-- functions (PUBLIC holds EXECUTE): has_function_privilege by
-- signature, OID and role, its errors, and the errors GRANT/REVOKE …
-- ON FUNCTION raise before anything is granted. (A valid GRANT or
-- REVOKE on a built-in function answers 0A000 in pgproxy: their ACLs
-- are not stored, TestFunctionGrantsRefused; user functions:
-- function_acl.sql.) "-- as NAME" switches sessions.
-- as postgres
CREATE ROLE cu LOGIN;
CREATE ROLE cg;
GRANT cg TO cu;
SELECT has_function_privilege('cu', 'now()', 'EXECUTE');
SELECT has_function_privilege('now()', 'EXECUTE');
SELECT has_function_privilege('cu', 'lower(text)', 'EXECUTE WITH GRANT OPTION');
SELECT has_function_privilege('postgres', 'lower(text)', 'EXECUTE WITH GRANT OPTION');
SELECT has_function_privilege('cu', 'upper(text)', ' execute ');
SELECT has_function_privilege('cu', 'upper(text)', 'EXECUTE, EXECUTE WITH GRANT OPTION');
SELECT has_function_privilege('cu', 'now()'::regprocedure, 'EXECUTE');
SELECT has_function_privilege('cu', 'now()'::regprocedure::oid, 'EXECUTE');
SELECT has_function_privilege('cu', 999999::oid, 'EXECUTE') IS NULL;
SELECT has_function_privilege('cu', 'pg_catalog.length(text)', 'EXECUTE');
SELECT has_function_privilege('cu', 'nosuch()', 'EXECUTE');
SELECT has_function_privilege('cu', 'now', 'EXECUTE');
SELECT has_function_privilege('nobody', 'now()', 'EXECUTE');
SELECT has_function_privilege('cu', 'now()', 'SELECT');
SELECT has_function_privilege('cu', 'now()', 'execute, usage');
-- as cu
SELECT has_function_privilege('now()', 'EXECUTE'), has_function_privilege('now()', 'EXECUTE WITH GRANT OPTION');
SELECT has_function_privilege('cg', 'abs(integer)', 'EXECUTE');
-- as postgres
GRANT EXECUTE ON FUNCTION nosuch() TO cu;
GRANT EXECUTE ON FUNCTION nosuch TO cu;
GRANT EXECUTE ON FUNCTION nosuch(int) TO cu;
GRANT EXECUTE ON FUNCTION abs TO cu;
GRANT EXECUTE ON FUNCTION lower(int) TO cu;
GRANT EXECUTE ON FUNCTION lower(text) TO nobody;
GRANT SELECT ON FUNCTION lower(text) TO cu;
REVOKE UPDATE ON FUNCTION lower(text) FROM cu;
GRANT EXECUTE ON PROCEDURE now() TO cu;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA nosuch TO cu;
REVOKE EXECUTE ON FUNCTION nosuch(text, int) FROM cu;
