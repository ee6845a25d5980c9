-- pg_class rows of each kind of user relation, in the columns that mean
-- the same here as in PostgreSQL (sizes and OIDs differ by design).
CREATE TABLE cls_parent (id int PRIMARY KEY, name text UNIQUE, n int CHECK (n > 0), m int CHECK (m < 10));
CREATE TABLE cls_child (id int PRIMARY KEY, parent int REFERENCES cls_parent (id));
CREATE TABLE cls_plain (a int, b text);
CREATE INDEX cls_plain_a ON cls_plain (a);
CREATE VIEW cls_view AS SELECT id, name FROM cls_parent;
CREATE SEQUENCE cls_seq;
SELECT relname, relkind, relpersistence, relnatts, relchecks, relhasindex, relhasrules, relhastriggers, relhassubclass, relispopulated, relreplident, relispartition, relam <> 0 AS has_am, relfilenode <> 0 AS has_storage, reltype <> 0 AS has_rowtype, reloftype, relrowsecurity, relisshared, relacl, reloptions FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relname LIKE 'cls%' ORDER BY relname;
SELECT relname, relpages, reltuples FROM pg_class WHERE relname IN ('cls_view', 'cls_seq') ORDER BY relname;
SELECT c.relname, c.relkind, c.relisshared, c.relpersistence FROM pg_class c WHERE c.relname IN ('pg_class', 'pg_database', 'pg_tables', 'pg_authid') ORDER BY 1;
