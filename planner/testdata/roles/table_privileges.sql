-- Table and view privileges as PostgreSQL 15 enforces them: a matrix of
-- roles (owner, granted, ungranted, through a group, PUBLIC) × relations
-- (table, view) × statements, around grants and revokes. "-- as NAME"
-- switches to a session of that user (opened on first use).
-- as postgres
CREATE ROLE alice LOGIN;
CREATE ROLE bob LOGIN;
CREATE ROLE carol LOGIN;
CREATE ROLE readers;
GRANT readers TO carol;
GRANT CREATE ON SCHEMA public TO alice;
CREATE TABLE pt (id int PRIMARY KEY, v text);
INSERT INTO pt VALUES (1, 'a'), (2, 'b');
CREATE TABLE child (id int PRIMARY KEY, p int REFERENCES pt (id) ON DELETE CASCADE);
INSERT INTO child VALUES (10, 1), (11, 2);
CREATE VIEW pv AS SELECT id, v FROM pt;
SELECT relname, relacl, pg_get_userbyid(relowner) FROM pg_class WHERE relname IN ('pt', 'pv', 'child') ORDER BY 1;
SELECT has_table_privilege('bob', 'pt', 'SELECT'), has_table_privilege('pt', 'SELECT, INSERT'), has_table_privilege('bob', 'pv', 'SELECT WITH GRANT OPTION');
SELECT has_table_privilege('bob', 'pt', 'FLY');
SELECT has_table_privilege('bob', 'nope', 'SELECT');
-- as bob
SELECT * FROM pt;
SELECT count(*) FROM pt;
SELECT * FROM pv;
SELECT 1 FROM pt, child;
SELECT (SELECT count(*) FROM pt);
WITH pt AS (SELECT 1 AS id) SELECT * FROM pt;
INSERT INTO pt VALUES (3, 'c');
INSERT INTO pt SELECT 3, 'c';
UPDATE pt SET v = 'x';
UPDATE pt SET v = 'x' WHERE id = 1;
DELETE FROM pt;
DELETE FROM pt WHERE id = 1;
TRUNCATE pt;
TRUNCATE child;
DROP TABLE pt;
DROP VIEW pv;
DROP TABLE nope;
ALTER TABLE pt ADD COLUMN w int;
ALTER TABLE pt RENAME COLUMN v TO v2;
CREATE INDEX ON pt (v);
DROP INDEX pt_pkey;
ALTER INDEX pt_pkey RENAME TO pk2;
COMMENT ON TABLE pt IS 'x';
COMMENT ON COLUMN pt.v IS 'x';
COMMENT ON VIEW pv IS 'x';
GRANT SELECT ON pt TO bob;
REVOKE SELECT ON pt FROM carol;
SELECT has_table_privilege('pt', 'SELECT'), has_table_privilege('pt', 'INSERT');
-- as postgres
GRANT SELECT ON pt TO bob;
GRANT INSERT, UPDATE ON TABLE pt TO readers;
GRANT SELECT ON pv TO PUBLIC;
GRANT USAGE ON pt TO bob;
GRANT CONNECT ON pt TO bob;
GRANT FLY ON pt TO bob;
GRANT SELECT ON nope TO bob;
GRANT SELECT ON pt TO nobody;
SELECT relname, relacl FROM pg_class WHERE relname IN ('pt', 'pv') ORDER BY 1;
-- as bob
SELECT * FROM pt ORDER BY id;
SELECT * FROM pv ORDER BY id;
SELECT * FROM pt FOR UPDATE;
INSERT INTO pt VALUES (3, 'c');
UPDATE pt SET v = 'x' WHERE id = 1;
SELECT has_table_privilege('pt', 'SELECT'), has_table_privilege('pt', 'INSERT'), has_table_privilege('bob', 'pv', 'SELECT'), has_column_privilege('pt', 'v', 'SELECT'), has_any_column_privilege('pt', 'UPDATE');
-- as carol
INSERT INTO pt VALUES (3, 'c');
INSERT INTO pt VALUES (4, 'd') RETURNING id;
UPDATE pt SET v = 'z';
UPDATE pt SET v = v || 'z';
UPDATE pt SET v = 'z' WHERE id = 3;
INSERT INTO pt SELECT id + 100, v FROM pt;
INSERT INTO pt SELECT 100, 'q' WHERE EXISTS (SELECT FROM pt);
UPDATE pt SET v = 'q' FROM pt p2;
WITH x AS (SELECT 1 FROM pt) UPDATE pt SET v = 'q';
DELETE FROM pt WHERE id = 3;
SELECT * FROM pv ORDER BY id;
SELECT * FROM pt;
SELECT has_table_privilege('pt', 'INSERT'), has_table_privilege('carol', 'pt', 'UPDATE'), has_table_privilege('readers', 'pt', 'UPDATE');
-- as postgres
REVOKE SELECT ON pv FROM PUBLIC;
GRANT SELECT ON pv TO bob;
REVOKE SELECT ON pt FROM bob;
SELECT relname, relacl FROM pg_class WHERE relname IN ('pt', 'pv') ORDER BY 1;
-- as bob
SELECT * FROM pv ORDER BY id;
SELECT * FROM pt;
-- as carol
SELECT * FROM pv;
-- as postgres
GRANT SELECT ON pt TO alice WITH GRANT OPTION;
-- as alice
GRANT SELECT ON pt TO bob;
GRANT DELETE ON pt TO bob;
GRANT SELECT, DELETE ON pt TO bob;
-- as bob
SELECT count(*) FROM pt;
-- as postgres
SELECT relacl FROM pg_class WHERE relname = 'pt';
REVOKE SELECT ON pt FROM alice;
REVOKE GRANT OPTION FOR SELECT ON pt FROM alice CASCADE;
SELECT relacl FROM pg_class WHERE relname = 'pt';
-- as bob
SELECT count(*) FROM pt;
-- as alice
SELECT count(*) FROM pt;
-- (the planner's foreign key checks and cascades are not the user's queries)
-- as postgres
GRANT SELECT, DELETE ON pt TO bob;
GRANT INSERT ON child TO bob;
-- as bob
DELETE FROM pt WHERE id = 1;
INSERT INTO child VALUES (12, 2);
INSERT INTO child VALUES (13, 99);
DELETE FROM pt USING child WHERE child.p = pt.id AND pt.id < 0;
DELETE FROM pt WHERE id IN (SELECT p FROM child) AND id < 0;
DELETE FROM pt WHERE id < 0 RETURNING *;
MERGE INTO pt USING child ON pt.id = child.p WHEN MATCHED THEN DELETE;
MERGE INTO pt USING (SELECT -1 AS id) s ON pt.id = s.id WHEN MATCHED THEN DELETE;
MERGE INTO pt USING (SELECT -1 AS id) s ON pt.id = s.id WHEN NOT MATCHED THEN INSERT VALUES (s.id, 'm');
-- as postgres
SELECT * FROM child ORDER BY id;
-- ownership
-- as alice
CREATE TABLE at (id int);
INSERT INTO at VALUES (1);
SELECT relname, pg_get_userbyid(relowner), relacl FROM pg_class WHERE relname = 'at';
SELECT tableowner FROM pg_tables WHERE tablename = 'at';
GRANT SELECT ON at TO bob;
SELECT relacl FROM pg_class WHERE relname = 'at';
REVOKE ALL ON at FROM alice;
SELECT * FROM at;
GRANT ALL ON at TO alice;
SELECT * FROM at;
CREATE SEQUENCE aseq;
SELECT pg_get_userbyid(relowner), relkind FROM pg_class WHERE relname = 'aseq';
-- as bob
ALTER SEQUENCE aseq RESTART;
DROP SEQUENCE aseq;
-- as alice
DROP SEQUENCE aseq;
-- as bob
SELECT * FROM at;
INSERT INTO at VALUES (2);
DROP TABLE at;
ALTER TABLE at OWNER TO bob;
-- as alice
ALTER TABLE at OWNER TO bob;
ALTER TABLE at OWNER TO alice;
-- as postgres
ALTER TABLE at OWNER TO nobody;
ALTER TABLE at OWNER TO bob;
SELECT pg_get_userbyid(relowner), relacl FROM pg_class WHERE relname = 'at';
-- as alice
SELECT * FROM at;
DROP TABLE at;
-- as bob
INSERT INTO at VALUES (2);
DROP TABLE at;
-- REFERENCES on the referenced table, EXPLAIN as the query
-- as alice
CREATE TABLE fk1 (id int PRIMARY KEY, p int REFERENCES pt (id));
CREATE TABLE fk2 (id int PRIMARY KEY);
ALTER TABLE fk2 ADD FOREIGN KEY (id) REFERENCES pt (id);
EXPLAIN (COSTS OFF) SELECT * FROM child;
EXPLAIN (COSTS OFF) DELETE FROM child;
EXPLAIN (COSTS OFF) INSERT INTO pt SELECT * FROM pt;
-- as postgres
GRANT REFERENCES ON pt TO alice;
-- as alice
CREATE TABLE fk1 (id int PRIMARY KEY, p int REFERENCES pt (id));
DROP TABLE fk1, fk2;
-- a view reads its relations with its owner's privileges
-- as alice
CREATE VIEW av AS SELECT id FROM pt;
GRANT SELECT ON av TO bob;
-- as bob
SELECT * FROM av ORDER BY id;
-- as postgres
REVOKE SELECT ON pt FROM alice;
-- as bob
SELECT * FROM av ORDER BY id;
-- as alice
SELECT * FROM av ORDER BY id;
DROP VIEW av;
-- as postgres
GRANT SELECT ON pt TO alice;
-- views and sequences change owner too
-- as postgres
CREATE SEQUENCE ps;
ALTER VIEW pv OWNER TO alice;
ALTER SEQUENCE ps OWNER TO alice;
SELECT relname, pg_get_userbyid(relowner), relacl FROM pg_class WHERE relname IN ('pv', 'ps') ORDER BY 1;
-- as alice
ALTER VIEW pv OWNER TO carol;
SELECT * FROM pv ORDER BY id;
-- as postgres
ALTER VIEW pv OWNER TO postgres;
DROP SEQUENCE ps;
-- the information_schema views
-- as postgres
GRANT SELECT ON pt TO carol WITH GRANT OPTION;
GRANT UPDATE ON pv TO PUBLIC;
SELECT grantor, grantee, table_name, privilege_type, is_grantable, with_hierarchy FROM information_schema.table_privileges WHERE table_schema = 'public' ORDER BY table_name, grantee, privilege_type;
SELECT grantor, grantee, table_name, privilege_type, is_grantable FROM information_schema.role_table_grants WHERE table_schema = 'public' ORDER BY table_name, grantee, privilege_type;
SELECT grantor, grantee, table_name, column_name, privilege_type, is_grantable FROM information_schema.column_privileges WHERE table_schema = 'public' ORDER BY table_name, column_name, grantee, privilege_type, grantor;
SELECT grantor, grantee, table_name, column_name, privilege_type, is_grantable FROM information_schema.role_column_grants WHERE table_schema = 'public' ORDER BY table_name, column_name, grantee, privilege_type, grantor;
-- as carol
SELECT grantor, grantee, table_name, privilege_type, is_grantable, with_hierarchy FROM information_schema.table_privileges WHERE table_schema = 'public' ORDER BY table_name, grantee, privilege_type;
SELECT grantor, grantee, table_name, privilege_type, is_grantable FROM information_schema.role_table_grants WHERE table_schema = 'public' ORDER BY table_name, grantee, privilege_type;
SELECT grantor, grantee, table_name, column_name, privilege_type, is_grantable FROM information_schema.column_privileges WHERE table_schema = 'public' ORDER BY table_name, column_name, grantee, privilege_type, grantor;
SELECT grantor, grantee, table_name, column_name, privilege_type, is_grantable FROM information_schema.role_column_grants WHERE table_schema = 'public' ORDER BY table_name, column_name, grantee, privilege_type, grantor;
-- as postgres
REVOKE UPDATE ON pv FROM PUBLIC;
REVOKE SELECT ON pt FROM carol;
GRANT ALL ON ALL TABLES IN SCHEMA public TO carol;
GRANT SELECT ON ALL TABLES IN SCHEMA nope TO carol;
SELECT relname, relacl FROM pg_class WHERE relname IN ('pt', 'pv', 'child') ORDER BY 1;
-- as carol
TRUNCATE child;
SELECT count(*) FROM child;
-- as postgres
CREATE TABLE gc (id int REFERENCES child (id));
-- as carol
TRUNCATE pt CASCADE;
-- as postgres
DROP TABLE gc;
-- as postgres
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM carol, readers;
REVOKE ALL ON pt FROM PUBLIC;
SELECT relname, relacl FROM pg_class WHERE relname IN ('pt', 'pv', 'child') ORDER BY 1;
SELECT n.nspname as "Schema",
  c.relname as "Name",
  CASE c.relkind WHEN 'r' THEN 'table' WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view' WHEN 'S' THEN 'sequence' WHEN 'f' THEN 'foreign table' WHEN 'p' THEN 'partitioned table' END as "Type",
  pg_catalog.array_to_string(c.relacl, E'\n') AS "Access privileges",
  pg_catalog.array_to_string(ARRAY(
    SELECT attname || E':\n  ' || pg_catalog.array_to_string(attacl, E'\n  ')
    FROM pg_catalog.pg_attribute a
    WHERE attrelid = c.oid AND NOT attisdropped AND attacl IS NOT NULL
  ), E'\n') AS "Column privileges",
  pg_catalog.array_to_string(ARRAY(
    SELECT polname
    || CASE WHEN NOT polpermissive THEN
       E' (RESTRICTIVE)'
       ELSE '' END
    || CASE WHEN polcmd != '*' THEN
           E' (' || polcmd::pg_catalog.text || E'):'
       ELSE E':'
       END
    || CASE WHEN polqual IS NOT NULL THEN
           E'\n  (u): ' || pg_catalog.pg_get_expr(polqual, polrelid)
       ELSE E''
       END
    || CASE WHEN polwithcheck IS NOT NULL THEN
           E'\n  (c): ' || pg_catalog.pg_get_expr(polwithcheck, polrelid)
       ELSE E''
       END    || CASE WHEN polroles <> '{0}' THEN
           E'\n  to: ' || pg_catalog.array_to_string(
               ARRAY(
                   SELECT rolname
                   FROM pg_catalog.pg_roles
                   WHERE oid = ANY (polroles)
                   ORDER BY 1
               ), E', ')
       ELSE E''
       END
    FROM pg_catalog.pg_policy pol
    WHERE polrelid = c.oid), E'\n')
    AS "Policies"
FROM pg_catalog.pg_class c
     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r','v','m','S','f','p')
  AND n.nspname !~ '^pg_' AND pg_catalog.pg_table_is_visible(c.oid)
ORDER BY 1, 2;
-- as bob
SELECT * FROM pv ORDER BY id;
-- a role that owns relations or holds grants cannot be dropped (alice
-- is not dropped here: PostgreSQL records her CREATE on schema public,
-- which pggraph does not keep)
-- as postgres
DROP ROLE bob;
REVOKE ALL ON pt, pv, child FROM bob;
ALTER TABLE pt OWNER TO bob;
SELECT relname, relacl, pg_get_userbyid(relowner) FROM pg_class WHERE relname IN ('pt', 'pv', 'child') ORDER BY 1;
DROP ROLE bob;
ALTER TABLE pt OWNER TO postgres;
SELECT relname, relacl, pg_get_userbyid(relowner) FROM pg_class WHERE relname IN ('pt', 'pv', 'child') ORDER BY 1;
DROP ROLE bob;
