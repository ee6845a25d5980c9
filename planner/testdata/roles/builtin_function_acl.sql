-- Privileges of built-in functions as PostgreSQL 15 keeps them: PUBLIC
-- may execute until a REVOKE; GRANT/REVOKE EXECUTE ON FUNCTION with and
-- without an argument list, WITH GRANT OPTION and CASCADE, ON ALL
-- FUNCTIONS IN SCHEMA pg_catalog, 42501 on a call (scalar, aggregate,
-- FROM) without EXECUTE, pg_proc.proacl, has_function_privilege, DROP
-- ROLE refused while a grant names the role, DROP OWNED, and a grant in
-- a transaction block rolled back. "-- as NAME" switches sessions.
-- as postgres
CREATE ROLE bfa LOGIN;
CREATE ROLE bfb LOGIN;
CREATE TABLE bft (id int PRIMARY KEY, s text);
INSERT INTO bft VALUES (1, 'one'), (2, 'two');
GRANT SELECT ON bft TO bfa, bfb;
SELECT proacl FROM pg_proc WHERE proname = 'md5' AND pg_get_function_identity_arguments(oid) = 'text';
SELECT has_function_privilege('bfa', 'md5(text)', 'EXECUTE'), has_function_privilege('bfa', 'md5(text)', 'EXECUTE WITH GRANT OPTION');
REVOKE EXECUTE ON FUNCTION md5(text) FROM PUBLIC;
SELECT proacl FROM pg_proc WHERE proname = 'md5' AND pg_get_function_identity_arguments(oid) = 'text';
SELECT has_function_privilege('bfa', 'md5(text)', 'EXECUTE'), has_function_privilege('postgres', 'md5(text)', 'EXECUTE');
SELECT md5('x');
-- as bfa
SELECT md5('x');
SELECT md5(s) FROM bft WHERE false;
SELECT md5('x'::bytea);
SELECT upper('x');
-- as postgres
GRANT EXECUTE ON FUNCTION md5(text) TO bfa WITH GRANT OPTION;
SELECT proacl FROM pg_proc WHERE proname = 'md5' AND pg_get_function_identity_arguments(oid) = 'text';
-- as bfa
SELECT md5('x');
GRANT EXECUTE ON FUNCTION md5(text) TO bfb;
-- as bfb
SELECT md5(s) FROM bft ORDER BY id;
GRANT EXECUTE ON FUNCTION md5(text) TO bfa;
REVOKE EXECUTE ON FUNCTION md5(text) FROM bfa;
-- as postgres
REVOKE EXECUTE ON FUNCTION md5(text) FROM bfa;
REVOKE GRANT OPTION FOR EXECUTE ON FUNCTION md5(text) FROM bfa CASCADE;
SELECT proacl FROM pg_proc WHERE proname = 'md5' AND pg_get_function_identity_arguments(oid) = 'text';
-- as bfb
SELECT md5('x');
-- as postgres
REVOKE EXECUTE ON FUNCTION sum(int4) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION generate_series(int4, int4) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION now FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pg_catalog.length(text) FROM PUBLIC;
-- as bfa
SELECT sum(id) FROM bft;
SELECT count(*) FROM bft;
SELECT * FROM generate_series(1, 2);
SELECT now() IS NOT NULL;
SELECT length('abc');
SELECT length('abc'::bytea);
-- as postgres
GRANT EXECUTE ON FUNCTION sum(int4), now(), length(text) TO bfa;
-- as bfa
SELECT sum(id) FROM bft;
SELECT now() IS NOT NULL;
SELECT length(s) FROM bft ORDER BY id;
-- as postgres
CREATE ROLE bfc;
GRANT EXECUTE ON FUNCTION now() TO bfc;
DROP ROLE bfc;
REVOKE EXECUTE ON FUNCTION now() FROM bfc;
DROP ROLE bfc;
BEGIN;
GRANT EXECUTE ON FUNCTION generate_series(int4, int4) TO bfb;
ROLLBACK;
-- as bfb
SELECT * FROM generate_series(1, 2);
-- as postgres
GRANT EXECUTE ON FUNCTION nosuchfn(int) TO bfa;
GRANT EXECUTE ON FUNCTION md5 TO bfa;
GRANT SELECT ON FUNCTION now() TO bfa;
GRANT EXECUTE ON FUNCTION now() TO nosuchrole;
DROP OWNED BY bfa;
SELECT has_function_privilege('bfa', 'sum(int4)', 'EXECUTE'), has_function_privilege('bfa', 'now()', 'EXECUTE');
DROP OWNED BY bfa;
DROP ROLE bfa;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA pg_catalog TO PUBLIC;
-- as bfb
SELECT sum(id), length(max(s)) FROM bft;
-- an operator runs its function: EXECUTE on it is checked
-- as postgres
REVOKE EXECUTE ON FUNCTION int4pl(int, int) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION texteq(text, text) FROM PUBLIC;
SELECT 1 + 1;
-- as bfb
SELECT 1 + 1;
SELECT id + 1 FROM bft WHERE false;
SELECT 2 - 1, 2 * 3, 1::bigint + 1;
SELECT 'a'::text = 'a';
SELECT s FROM bft WHERE s = 'one';
SELECT int4pl(1, 1);
-- as postgres
GRANT EXECUTE ON FUNCTION int4pl(int, int), texteq(text, text) TO bfb;
-- as bfb
SELECT 1 + 1, 'a'::text = 'a';
-- as postgres
GRANT EXECUTE ON FUNCTION int4pl(int, int), texteq(text, text) TO PUBLIC;
REVOKE EXECUTE ON FUNCTION int4pl(int, int), texteq(text, text) FROM bfb;
-- as bfb
-- ALTER FUNCTION … OWNER TO on a built-in function: the bootstrap
-- superuser owns it, so only a superuser gets past the owner check, and
-- naming that owner changes nothing
ALTER FUNCTION upper(text) OWNER TO bfb;
ALTER FUNCTION now() OWNER TO postgres;
ALTER ROUTINE now() OWNER TO nosuchrole;
ALTER PROCEDURE now() OWNER TO bfb;
ALTER FUNCTION nosuchfn() OWNER TO bfb;
-- as postgres
ALTER FUNCTION now() OWNER TO postgres;
ALTER FUNCTION pg_catalog.upper(text) OWNER TO CURRENT_USER;
SELECT pg_get_userbyid(proowner) FROM pg_proc WHERE proname = 'upper' AND pg_get_function_identity_arguments(oid) = 'text';
-- as postgres
REVOKE ALL ON TABLE bft FROM bfb;
DROP TABLE bft;
DROP ROLE bfb;
