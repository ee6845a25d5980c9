-- Catalog relations and functions psql's describe commands and other
-- tools read; pggraph has no policies, triggers, rules, publications or
-- partitions, so these are empty for user tables as in PostgreSQL.
CREATE TABLE parent (id int PRIMARY KEY, name text);
CREATE TABLE child (id int PRIMARY KEY, parent_id int REFERENCES parent(id));
SELECT pg_size_pretty(0::int8), pg_size_pretty(1::int8), pg_size_pretty(10239::int8), pg_size_pretty(10240::int8), pg_size_pretty(10752::int8), pg_size_pretty(1048575::int8);
SELECT pg_size_pretty(10485759::int8), pg_size_pretty(10485760::int8), pg_size_pretty(123456789012::int8), pg_size_pretty(-10240::int8), pg_size_pretty(-5::int8), pg_size_pretty(9223372036854775807);
SELECT pg_size_pretty(NULL::int8);
SELECT pg_relation_is_publishable('child'::regclass);
SELECT pg_partition_ancestors('child'::regclass);
SELECT a.relid, a.depth FROM pg_partition_ancestors('child'::regclass) WITH ORDINALITY AS a(relid, depth);
SELECT count(*) FROM pg_constraint c WHERE confrelid IN (SELECT pg_catalog.pg_partition_ancestors('parent') UNION ALL VALUES ('parent'::pg_catalog.regclass)) AND contype = 'f' AND conparentid = 0;
SELECT relname, relhastriggers, relhasrules, relrowsecurity, relispartition, relkind, relpersistence, relreplident FROM pg_class WHERE relname IN ('parent', 'child') ORDER BY 1;
SELECT count(*) FROM pg_policy WHERE polrelid = 'child'::regclass;
SELECT pol.polname, pol.polpermissive, CASE WHEN pol.polroles = '{0}' THEN NULL ELSE pg_catalog.array_to_string(array(select rolname from pg_catalog.pg_roles where oid = any (pol.polroles) order by 1),',') END FROM pg_catalog.pg_policy pol WHERE pol.polrelid = 'child'::regclass ORDER BY 1;
SELECT stxname, 'd' = any(stxkind) AS ndist_enabled, stxstattarget FROM pg_catalog.pg_statistic_ext WHERE stxrelid = 'child'::regclass ORDER BY 1;
SELECT count(*) FROM pg_trigger WHERE tgrelid = 'child'::regclass AND NOT tgisinternal;
SELECT count(*) FROM pg_inherits WHERE inhparent = 'parent'::regclass OR inhrelid = 'child'::regclass;
SELECT count(*) FROM pg_rewrite WHERE ev_class = 'child'::regclass;
SELECT count(*) FROM pg_publication;
SELECT count(*) FROM pg_publication_rel;
SELECT count(*) FROM pg_publication_namespace;
SELECT count(*) FROM pg_partitioned_table;
SELECT count(*) FROM pg_foreign_table;
SELECT count(*) FROM pg_foreign_server;
SELECT count(*) FROM pg_event_trigger;
SELECT count(*) FROM pg_sequence;
SELECT n.nspname, pg_get_userbyid(n.nspowner) FROM pg_namespace n WHERE n.nspname !~ '^pg_' AND n.nspname <> 'information_schema' ORDER BY 1;
SELECT e.extname, e.extversion, c.description FROM pg_extension e LEFT JOIN pg_description c ON c.objoid = e.oid AND c.classoid = 'pg_catalog.pg_extension'::regclass ORDER BY 1;
SELECT a.attname, a.attstorage, t.typstorage FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid WHERE a.attrelid = 'parent'::regclass AND a.attnum > 0 ORDER BY a.attnum;
SELECT typname, typstorage FROM pg_type WHERE typname IN ('int4', 'text', 'numeric', 'bool', 'varchar', 'bytea', 'jsonb', 'uuid', 'timestamptz', 'name', '_int4') ORDER BY 1;
