-- Schema USAGE enforced on name lookups as PostgreSQL 15 does: without
-- USAGE on public an unqualified name finds nothing there (42P01, 42704,
-- 3F000 for creating), a public-qualified one is refused (42501), in
-- queries, DML, DDL and utility statements; a view's query keeps
-- working for whoever may use the view's schema; REVOKE and GRANT USAGE
-- take effect at once. "-- as NAME" switches sessions.
-- as postgres
CREATE ROLE alice LOGIN;
CREATE ROLE bob LOGIN;
CREATE ROLE grp;
GRANT grp TO bob;
CREATE TABLE t (id int PRIMARY KEY, v text);
INSERT INTO t VALUES (1, 'one');
GRANT ALL ON t TO alice, bob;
CREATE SEQUENCE s;
GRANT ALL ON s TO alice, bob;
CREATE VIEW vw AS SELECT * FROM t;
GRANT ALL ON vw TO alice, bob;
CREATE TYPE e AS ENUM ('a', 'b');
CREATE EXTENSION "uuid-ossp";
GRANT CREATE ON SCHEMA public TO alice;
-- as alice
SELECT * FROM t;
SELECT * FROM public.t;
SELECT nextval('s');
SELECT 'a'::e;
-- as postgres
REVOKE USAGE ON SCHEMA public FROM PUBLIC;
SELECT nspacl FROM pg_namespace WHERE nspname = 'public';
SELECT has_schema_privilege('alice', 'public', 'USAGE'), has_schema_privilege('bob', 'public', 'USAGE');
SELECT * FROM t;
SELECT * FROM public.vw;
-- as alice
SELECT has_schema_privilege('public', 'USAGE');
SELECT * FROM t;
SELECT * FROM public.t;
SELECT * FROM vw;
SELECT * FROM public.vw;
SELECT * FROM public.nosuch;
SELECT * FROM nosuch;
SELECT * FROM public.t JOIN public.vw USING (id);
SELECT uuid_nil();
SELECT public.uuid_nil();
SELECT uuid_generate_v4() IS NOT NULL;
SELECT id FROM t WHERE id IN (SELECT id FROM public.t);
WITH t AS (SELECT 1 AS a) SELECT * FROM t;
SELECT count(*) FROM pg_class WHERE relname = 't';
SELECT relname FROM pg_class WHERE relname IN ('t', 'vw', 's') ORDER BY 1;
SELECT nextval('s');
SELECT nextval('public.s');
SELECT currval('s');
SELECT setval('public.s', 5);
SELECT 't'::regclass;
SELECT 'public.t'::regclass;
SELECT 'pg_class'::regclass;
SELECT 'a'::e;
SELECT 'a'::public.e;
SELECT CAST('a' AS public.e);
SELECT 1::public.int4;
SELECT 1::pg_catalog.int4;
SELECT public.nosuchfn();
INSERT INTO t VALUES (2, 'two');
INSERT INTO public.t VALUES (2, 'two');
INSERT INTO t SELECT * FROM public.t;
UPDATE t SET v = 'x';
UPDATE public.t SET v = 'x';
DELETE FROM t;
DELETE FROM public.t;
MERGE INTO t USING (SELECT 1 AS id) s ON t.id = s.id WHEN MATCHED THEN DELETE;
MERGE INTO public.t USING (SELECT 1 AS id) s ON t.id = s.id WHEN MATCHED THEN DELETE;
CREATE TABLE n1 (id int);
CREATE VIEW v3 AS SELECT 1 AS x;
CREATE SEQUENCE s3;
CREATE TABLE t3 AS SELECT 1 AS x;
SELECT 1 AS x INTO t4;
CREATE TYPE e2 AS ENUM ('x');
CREATE VIEW public.v4 AS SELECT * FROM public.t;
CREATE VIEW public.v5 AS SELECT * FROM t;
CREATE TABLE public.t5 AS SELECT * FROM public.t;
CREATE TABLE public.t6 (id int REFERENCES public.t);
CREATE TABLE public.t7 (id int REFERENCES t);
CREATE TABLE public.n2 (id int);
SELECT * FROM public.n2;
CREATE INDEX ON t (v);
CREATE INDEX ON public.t (v);
ALTER TABLE t ADD COLUMN z int;
ALTER TABLE public.t ADD COLUMN z int;
ALTER TABLE IF EXISTS t ADD COLUMN z int;
ALTER TABLE t RENAME TO t9;
ALTER VIEW vw RENAME TO vw9;
ALTER SEQUENCE s RESTART;
ALTER TABLE t OWNER TO alice;
DROP TABLE t;
DROP TABLE public.t;
DROP TABLE IF EXISTS t;
DROP TABLE IF EXISTS t, public.t;
DROP VIEW vw;
DROP VIEW IF EXISTS vw;
DROP SEQUENCE s;
DROP TYPE e;
DROP TYPE public.e;
DROP INDEX t_pkey;
TRUNCATE t;
TRUNCATE public.t;
COMMENT ON TABLE t IS 'x';
COMMENT ON TABLE public.t IS 'x';
GRANT SELECT ON t TO PUBLIC;
GRANT SELECT ON public.t TO PUBLIC;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO PUBLIC;
BEGIN;
LOCK TABLE t;
ROLLBACK;
BEGIN;
LOCK TABLE public.t;
ROLLBACK;
-- bob has no USAGE either until his group gets it
-- as bob
SELECT * FROM t;
-- as postgres
GRANT USAGE ON SCHEMA public TO grp;
SELECT nspacl FROM pg_namespace WHERE nspname = 'public';
-- as bob
SELECT * FROM t;
SELECT * FROM public.vw;
SELECT nextval('public.s') > 0;
SELECT 'b'::e;
INSERT INTO t VALUES (3, 'three');
-- as alice
SELECT * FROM t;
-- a view owned by a role without USAGE still reads its tables
-- as postgres
CREATE VIEW av AS SELECT id FROM t;
ALTER VIEW av OWNER TO alice;
GRANT SELECT ON av TO bob;
-- as bob
SELECT * FROM av ORDER BY id;
-- as postgres
REVOKE USAGE ON SCHEMA public FROM grp;
-- as bob
SELECT * FROM t;
-- as postgres
GRANT USAGE ON SCHEMA public TO PUBLIC;
-- as alice
SELECT * FROM t ORDER BY id;
SELECT 'a'::public.e;
SELECT uuid_nil(), public.uuid_nil();
-- as postgres
DROP EXTENSION "uuid-ossp";
DROP VIEW av;
DROP TABLE n2;
