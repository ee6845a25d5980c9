-- Column privileges as PostgreSQL 15 has them: GRANT/REVOKE SELECT,
-- INSERT, UPDATE, REFERENCES (col, …) ON t, enforced on select lists,
-- WHERE, *, count(*), RETURNING, UPDATE SET, INSERT column lists,
-- DELETE, views; has_column_privilege, has_any_column_privilege,
-- pg_attribute.attacl, \dp's column privileges, a table-level REVOKE
-- taking column grants with it. "-- as NAME" switches sessions.
-- as postgres
CREATE ROLE alice LOGIN;
CREATE ROLE bob LOGIN;
CREATE TABLE emp (id int PRIMARY KEY, name text, salary int, dept text);
INSERT INTO emp VALUES (1, 'ann', 100, 'x'), (2, 'ben', 200, 'y');
GRANT SELECT (id, name), UPDATE (name), INSERT (id, name) ON emp TO alice;
GRANT SELECT (id) ON emp TO bob WITH GRANT OPTION;
SELECT attname, attacl FROM pg_attribute WHERE attrelid = 'emp'::regclass AND attnum > 0 ORDER BY attnum;
SELECT relacl FROM pg_class WHERE relname = 'emp';
SELECT has_column_privilege('alice', 'emp', 'name', 'SELECT'), has_column_privilege('alice', 'emp', 'salary', 'SELECT');
SELECT has_column_privilege('alice', 'emp', 'name', 'UPDATE'), has_column_privilege('alice', 'emp', 2::int2, 'INSERT');
SELECT has_column_privilege('bob', 'emp', 'id', 'SELECT WITH GRANT OPTION'), has_column_privilege('bob', 'emp', 'nosuch', 'SELECT');
SELECT has_column_privilege('alice', 'emp', 99::int2, 'SELECT') IS NULL;
SELECT has_any_column_privilege('alice', 'emp', 'SELECT'), has_any_column_privilege('alice', 'emp', 'DELETE');
SELECT has_table_privilege('alice', 'emp', 'SELECT');
GRANT DELETE (id) ON emp TO alice;
GRANT SELECT (nosuch) ON emp TO alice;
GRANT SELECT (id) ON SEQUENCE emp TO alice;
-- as alice
SELECT id, name FROM emp ORDER BY id;
SELECT name FROM emp WHERE id = 2;
SELECT salary FROM emp;
SELECT id FROM emp WHERE salary > 100;
SELECT * FROM emp;
SELECT count(*) FROM emp;
SELECT e.id FROM emp e ORDER BY e.id;
SELECT id FROM emp ORDER BY salary;
SELECT (SELECT max(name) FROM emp);
UPDATE emp SET name = 'bea' WHERE id = 2;
UPDATE emp SET name = name || '!' WHERE id = 1 RETURNING id, name;
UPDATE emp SET salary = 0 WHERE id = 1;
UPDATE emp SET name = 'z' WHERE salary = 100;
UPDATE emp SET name = 'z' RETURNING salary;
INSERT INTO emp (id, name) VALUES (3, 'cal');
INSERT INTO emp (id, name) VALUES (4, 'dan') RETURNING id, name;
INSERT INTO emp (id, name, salary) VALUES (5, 'eve', 1);
INSERT INTO emp VALUES (6, 'fay', 1, 'z');
INSERT INTO emp (id, name) VALUES (7, 'gus') RETURNING *;
DELETE FROM emp WHERE id = 3;
GRANT SELECT (id) ON emp TO bob;
-- as bob
SELECT id FROM emp ORDER BY id;
SELECT name FROM emp;
GRANT SELECT (id) ON emp TO alice;
GRANT SELECT (name) ON emp TO alice;
-- as postgres
SELECT attname, attacl FROM pg_attribute WHERE attrelid = 'emp'::regclass AND attnum > 0 ORDER BY attnum;
SELECT c.relname AS "Name", pg_catalog.array_to_string(c.relacl, E'\n') AS "Access privileges",
  pg_catalog.array_to_string(ARRAY(
    SELECT attname || E':\n  ' || pg_catalog.array_to_string(attacl, E'\n  ')
    FROM pg_catalog.pg_attribute a
    WHERE attrelid = c.oid AND NOT attisdropped AND attacl IS NOT NULL
  ), E'\n') AS "Column privileges"
FROM pg_catalog.pg_class c WHERE c.relname = 'emp';
SELECT grantor, grantee, table_name, column_name, privilege_type, is_grantable
FROM information_schema.column_privileges WHERE table_name = 'emp' AND grantee IN ('alice', 'bob') ORDER BY 2, 4, 5, 1;
REVOKE SELECT (id) ON emp FROM bob;
REVOKE SELECT (id) ON emp FROM bob CASCADE;
REVOKE UPDATE (name) ON emp FROM alice;
-- as alice
UPDATE emp SET name = 'q' WHERE id = 1;
SELECT id FROM emp ORDER BY id;
-- as postgres
CREATE VIEW emp_names AS SELECT id, name FROM emp;
GRANT SELECT (name) ON emp_names TO bob;
-- as bob
SELECT name FROM emp_names ORDER BY name;
SELECT id FROM emp_names;
-- as postgres
REVOKE SELECT ON emp FROM alice;
SELECT attname, attacl FROM pg_attribute WHERE attrelid = 'emp'::regclass AND attnum > 0 ORDER BY attnum;
-- as alice
SELECT id FROM emp;
INSERT INTO emp (id, name) VALUES (8, 'hal');
-- as postgres
ALTER TABLE emp RENAME COLUMN name TO full_name;
SELECT attname, attacl FROM pg_attribute WHERE attrelid = 'emp'::regclass AND attnum > 0 ORDER BY attnum;
DROP VIEW emp_names;
DROP TABLE emp;
DROP ROLE alice;
DROP ROLE bob;
