-- Column privileges on INSERT … ON CONFLICT (the conflict target, DO
-- UPDATE's SET columns and what it reads, excluded's columns), MERGE
-- (join condition, WHEN conditions, SET, INSERT columns, DELETE) and
-- SELECT … FOR UPDATE/SHARE (UPDATE on any column), and the
-- information_schema views of column grants, as PostgreSQL 15 has them.
-- "-- as NAME" switches sessions.
-- as postgres
CREATE ROLE cu LOGIN;
CREATE ROLE cv LOGIN;
CREATE ROLE cg;
GRANT cg TO cv;
CREATE TABLE ct (id int PRIMARY KEY, a text, b text, n int, CONSTRAINT ct_a_key UNIQUE (a));
INSERT INTO ct VALUES (1, 'x', 'y', 0);
GRANT INSERT (id, a) ON ct TO cu;
-- as cu
INSERT INTO ct (id, a) VALUES (1, 'z') ON CONFLICT DO NOTHING;
INSERT INTO ct (id, a) VALUES (1, 'z') ON CONFLICT (id) DO NOTHING;
INSERT INTO ct (id, a) VALUES (1, 'z') ON CONFLICT ON CONSTRAINT ct_pkey DO NOTHING;
INSERT INTO ct (id, a) VALUES (1, 'z') ON CONFLICT (id) DO UPDATE SET a = excluded.a;
INSERT INTO ct (id, b) VALUES (1, 'z') ON CONFLICT DO NOTHING;
-- as postgres
GRANT SELECT (id) ON ct TO cu;
-- as cu
INSERT INTO ct (id, a) VALUES (1, 'z') ON CONFLICT (id) DO NOTHING;
INSERT INTO ct (id, a) VALUES (1, 'z') ON CONFLICT ON CONSTRAINT ct_pkey DO NOTHING;
INSERT INTO ct (id, a) VALUES (1, 'x') ON CONFLICT (a) DO NOTHING;
INSERT INTO ct (id, a) VALUES (1, 'x') ON CONFLICT ON CONSTRAINT ct_a_key DO NOTHING;
INSERT INTO ct (id, a) VALUES (1, 'z') ON CONFLICT (id) DO UPDATE SET a = excluded.a;
-- as postgres
GRANT UPDATE (a) ON ct TO cu;
-- as cu
INSERT INTO ct (id, a) VALUES (1, 'z') ON CONFLICT (id) DO UPDATE SET a = 'k';
INSERT INTO ct (id, a) VALUES (1, 'z') ON CONFLICT (id) DO UPDATE SET a = excluded.id::text;
INSERT INTO ct (id, a) VALUES (1, 'z') ON CONFLICT (id) DO UPDATE SET a = excluded.a;
INSERT INTO ct (id, a) VALUES (1, 'z') ON CONFLICT (id) DO UPDATE SET a = ct.a || 'q';
INSERT INTO ct (id, a) VALUES (1, 'z') ON CONFLICT (id) DO UPDATE SET a = 'w' WHERE ct.n > 0;
INSERT INTO ct (id, a) VALUES (1, 'z') ON CONFLICT (id) DO UPDATE SET a = 'w' WHERE excluded.b IS NULL;
INSERT INTO ct (id, a) VALUES (1, 'z') ON CONFLICT (id) DO UPDATE SET b = 'w';
INSERT INTO ct (id, a) VALUES (1, 'z') ON CONFLICT (id) DO UPDATE SET a = 'r' RETURNING id;
INSERT INTO ct (id, a) VALUES (1, 'z') ON CONFLICT (id) DO UPDATE SET a = 'r' RETURNING a;
INSERT INTO ct AS c (id, a) VALUES (1, 'z') ON CONFLICT (id) DO UPDATE SET a = c.a;
-- as postgres
GRANT SELECT (a) ON ct TO cu;
-- as cu
INSERT INTO ct (id, a) VALUES (1, 'z') ON CONFLICT (id) DO UPDATE SET a = excluded.a;
INSERT INTO ct AS c (id, a) VALUES (1, 'z') ON CONFLICT (id) DO UPDATE SET a = c.a || '!' RETURNING id, a;
INSERT INTO ct (id, a) VALUES (1, 'z') ON CONFLICT (id) DO UPDATE SET a = 'w' WHERE ct.n > 0;
-- as postgres
SELECT * FROM ct ORDER BY id;
REVOKE SELECT (a) ON ct FROM cu;
-- SELECT … FOR UPDATE/SHARE: SELECT on what is read, UPDATE on any column
-- as cu
BEGIN;
SELECT id FROM ct FOR UPDATE;
ROLLBACK;
BEGIN;
SELECT id FROM ct FOR SHARE;
ROLLBACK;
BEGIN;
SELECT id FROM ct FOR KEY SHARE;
ROLLBACK;
BEGIN;
SELECT a FROM ct FOR UPDATE;
ROLLBACK;
-- as postgres
REVOKE UPDATE (a) ON ct FROM cu;
-- as cu
BEGIN;
SELECT id FROM ct FOR UPDATE;
ROLLBACK;
SELECT id FROM ct;
-- as postgres
GRANT UPDATE (n) ON ct TO cu;
-- as cu
BEGIN;
SELECT id FROM ct FOR NO KEY UPDATE;
ROLLBACK;
-- MERGE
-- as postgres
REVOKE UPDATE (n) ON ct FROM cu;
GRANT UPDATE (a) ON ct TO cu;
-- as cu
MERGE INTO ct USING (SELECT 1 AS id) s ON ct.id = s.id WHEN MATCHED THEN UPDATE SET a = 'm';
MERGE INTO ct USING (SELECT 1 AS id) s ON ct.id = s.id WHEN MATCHED THEN UPDATE SET b = 'm';
MERGE INTO ct USING (SELECT 1 AS id) s ON ct.id = s.id WHEN MATCHED THEN UPDATE SET a = ct.b;
MERGE INTO ct USING (SELECT 1 AS id) s ON ct.id = s.id WHEN MATCHED AND ct.n > 0 THEN UPDATE SET a = 'm';
MERGE INTO ct USING (SELECT 5 AS id) s ON ct.id = s.id WHEN NOT MATCHED THEN INSERT (id, a) VALUES (s.id, 'q');
MERGE INTO ct USING (SELECT 6 AS id) s ON ct.id = s.id WHEN NOT MATCHED THEN INSERT (id, b) VALUES (s.id, 'q');
MERGE INTO ct USING (SELECT 7 AS id) s ON ct.id = s.id WHEN NOT MATCHED THEN INSERT VALUES (s.id, 'q7');
MERGE INTO ct USING (SELECT 8 AS id) s ON ct.id = s.id WHEN NOT MATCHED THEN INSERT VALUES (s.id, 'q8', 'z');
MERGE INTO ct USING (SELECT 1 AS id) s ON ct.id = s.id WHEN MATCHED THEN DELETE;
MERGE INTO ct USING (SELECT 1 AS id) s ON ct.a = 'x' WHEN MATCHED THEN DO NOTHING;
MERGE INTO ct USING (SELECT 1 AS id) s ON true WHEN MATCHED THEN DO NOTHING;
MERGE INTO ct t USING (SELECT 1 AS id) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET a = 'mm';
MERGE INTO ct t USING (SELECT 9 AS id) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET a = 'x9' WHEN NOT MATCHED THEN INSERT (id) VALUES (s.id);
-- as postgres
GRANT DELETE ON ct TO cu;
-- as cu
MERGE INTO ct USING (SELECT 9 AS id) s ON ct.id = s.id WHEN MATCHED THEN DELETE;
-- as postgres
SELECT * FROM ct ORDER BY id;
-- the information_schema views of column grants
GRANT SELECT (b), REFERENCES (n) ON ct TO cg WITH GRANT OPTION;
GRANT UPDATE (b) ON ct TO PUBLIC;
SELECT grantor, grantee, table_name, column_name, privilege_type, is_grantable
FROM information_schema.column_privileges WHERE table_name = 'ct' ORDER BY 2, 4, 5, 1;
SELECT grantor, grantee, table_name, column_name, privilege_type, is_grantable
FROM information_schema.role_column_grants WHERE table_name = 'ct' ORDER BY 2, 4, 5, 1;
-- as cu
SELECT grantor, grantee, table_name, column_name, privilege_type, is_grantable
FROM information_schema.column_privileges WHERE table_name = 'ct' ORDER BY 2, 4, 5, 1;
SELECT grantor, grantee, table_name, column_name, privilege_type, is_grantable
FROM information_schema.role_column_grants WHERE table_name = 'ct' ORDER BY 2, 4, 5, 1;
-- as cv
SELECT grantor, grantee, table_name, column_name, privilege_type, is_grantable
FROM information_schema.column_privileges WHERE table_name = 'ct' ORDER BY 2, 4, 5, 1;
SELECT grantor, grantee, table_name, column_name, privilege_type, is_grantable
FROM information_schema.role_column_grants WHERE table_name = 'ct' ORDER BY 2, 4, 5, 1;
GRANT SELECT (b) ON ct TO cu;
SELECT grantor, grantee, table_name, column_name, privilege_type, is_grantable
FROM information_schema.role_column_grants WHERE table_name = 'ct' ORDER BY 2, 4, 5, 1;
-- as postgres
GRANT SELECT ON ct TO cv;
SELECT grantor, grantee, table_name, column_name, privilege_type, is_grantable
FROM information_schema.role_column_grants WHERE table_name = 'ct' AND grantee = 'cv' ORDER BY 2, 4, 5, 1;
-- as cv
SELECT grantor, grantee, table_name, column_name, privilege_type, is_grantable
FROM information_schema.role_column_grants WHERE table_name = 'ct' ORDER BY 2, 4, 5, 1;
SELECT count(*) FROM information_schema.column_privileges WHERE table_name = 'ct';
