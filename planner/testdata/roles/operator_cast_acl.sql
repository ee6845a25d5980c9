-- EXECUTE on the functions behind prefix operators and casts, as
-- PostgreSQL 15's executor checks it: a cast PostgreSQL performs with a
-- function (pg_cast.castmethod 'f': explicit, CAST, function-style,
-- assignment to a column, implicit to a common type) and a prefix
-- operator (pg_operator.oprcode) are refused to a role without EXECUTE
-- on that function, constant or not, also when no row is read; casts
-- through text input/output, cross-type operators and literals the
-- parser negates call no such function. "-- as NAME" switches sessions.
-- as postgres
CREATE ROLE oca LOGIN;
CREATE TABLE oct (i int, b bigint, s text, n numeric);
INSERT INTO oct VALUES (1, 2, 'x', 1.5);
GRANT SELECT, INSERT, UPDATE ON oct TO oca;
-- as oca
SELECT i::bigint, -i, @ b, ~ i, n::int FROM oct;
-- as postgres
REVOKE EXECUTE ON FUNCTION int8(int4) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION int4um(int4) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION int4(numeric) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION int8abs(int8) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION int4not(int4) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION "numeric"(int4) FROM PUBLIC;
SELECT proname, proacl FROM pg_proc WHERE proname IN ('int8', 'int4um', 'int8abs', 'int4not') AND pg_get_function_identity_arguments(oid) IN ('integer', 'bigint') ORDER BY 1;
SELECT has_function_privilege('oca', 'int8(int4)', 'EXECUTE'), has_function_privilege('oca', 'int4um(int4)', 'EXECUTE');
-- a superuser is not refused
SELECT 1::bigint, -i, n::int FROM oct;
-- as oca
-- casts
SELECT 1::bigint;
SELECT i::bigint FROM oct;
SELECT CAST(i AS int8) FROM oct;
SELECT i::int8 FROM oct WHERE false;
SELECT int8(i) FROM oct;
SELECT n::int FROM oct;
SELECT 1.5::int;
SELECT i FROM oct WHERE i = 1::bigint;
SELECT i FROM oct WHERE i IN (1::bigint, 2);
SELECT i + 0.5 FROM oct;
SELECT i::text, s, '7'::bigint, i::float8 FROM oct;
SELECT b FROM oct WHERE b = i;
SELECT b + i FROM oct;
INSERT INTO oct (b) SELECT 1 WHERE false;
UPDATE oct SET b = i WHERE false;
INSERT INTO oct (b) VALUES (5);
-- prefix operators
SELECT -1, - 2, -2147483648;
SELECT -i FROM oct;
SELECT -(i) FROM oct WHERE false;
SELECT -(1::int);
SELECT -b, -n FROM oct;
SELECT @ b FROM oct;
SELECT @ i FROM oct;
SELECT ~ i FROM oct;
SELECT ~ b FROM oct;
-- as postgres
GRANT EXECUTE ON FUNCTION int8(int4), int4um(int4) TO oca;
-- as oca
SELECT i::bigint, -i FROM oct ORDER BY b;
SELECT @ b FROM oct;
-- as postgres
GRANT EXECUTE ON FUNCTION int8(int4), int4um(int4), int4(numeric), int8abs(int8), int4not(int4), "numeric"(int4) TO PUBLIC;
REVOKE EXECUTE ON FUNCTION int8(int4), int4um(int4) FROM oca;
-- as oca
SELECT i::bigint, -i, @ b, ~ i, n::int, i + 0.5 FROM oct ORDER BY b;
-- as postgres
DELETE FROM oct WHERE b = 5;
REVOKE ALL ON oct FROM oca;
DROP TABLE oct;
DROP ROLE oca;
