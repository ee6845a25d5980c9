-- Functions migration tools, ORMs and GUI clients send besides catalog
-- relations: serial sequences, subscripts, settings, server state.
CREATE TABLE s (id serial PRIMARY KEY, name text, "Mixed" int);
CREATE TABLE t2 (id bigserial, v int DEFAULT 1);
SELECT pg_get_serial_sequence('s', 'id'), pg_get_serial_sequence('public.s', 'name'), pg_get_serial_sequence('t2', 'id'), pg_get_serial_sequence('t2', 'v');
SELECT pg_get_serial_sequence('"s"', 'id');
SELECT pg_get_serial_sequence('nosuch', 'id');
SELECT pg_get_serial_sequence('s', 'nosuch');
SELECT pg_get_serial_sequence(NULL, 'id');
SELECT generate_subscripts(ARRAY[10, 20, 30], 1);
SELECT generate_subscripts(ARRAY[10, 20, 30], 1, true);
SELECT generate_subscripts(ARRAY['a'], 2);
SELECT generate_subscripts('{}'::int[], 1);
SELECT s, a[s] FROM (SELECT ARRAY[5, 6, 7] AS a) x, generate_subscripts(x.a, 1) AS s ORDER BY s;
SELECT i.indkey::text, generate_subscripts(i.indkey, 1) FROM pg_index i WHERE i.indrelid = 's'::regclass;
SELECT a.attname FROM pg_attribute a JOIN (SELECT unnest(ix.indkey) attnum, generate_subscripts(ix.indkey, 1) ord FROM pg_index ix WHERE ix.indrelid = 's'::regclass AND ix.indisprimary) k ON a.attnum = k.attnum WHERE a.attrelid = 's'::regclass ORDER BY k.ord;
SELECT current_setting('server_encoding'), current_setting('max_identifier_length')::int, current_setting('integer_datetimes'), current_setting('standard_conforming_strings');
SELECT current_setting('nosuch.setting', true), current_setting('DateStyle'), current_setting('datestyle');
SELECT current_setting('nosuch_setting');
SELECT pg_is_in_recovery();
SELECT pg_postmaster_start_time() <= now(), pg_conf_load_time() <= now();
SELECT 'r'::"char", 'xyz'::"char", ''::"char" IS NULL, 'a'::"char" < 'b'::"char", 'r'::"char"::text;
SELECT relkind, relkind = 'r', relkind::text FROM pg_class WHERE relname = 's';
