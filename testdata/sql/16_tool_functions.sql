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
CREATE SEQUENCE counter_seq AS int4 START 10 INCREMENT 5 MAXVALUE 1000 CYCLE;
SELECT c.relname, c.relkind, c.relnatts FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'S' ORDER BY 1;
SELECT format_type(s.seqtypid, NULL), s.seqstart, s.seqincrement, s.seqmin, s.seqmax, s.seqcache, s.seqcycle FROM pg_sequence s WHERE s.seqrelid = 'counter_seq'::regclass;
SELECT schemaname, sequencename, data_type, start_value, min_value, max_value, increment_by, cycle, cache_size, last_value FROM pg_sequences ORDER BY sequencename;
SELECT sequence_schema, sequence_name, data_type, numeric_precision, numeric_precision_radix, numeric_scale, start_value, minimum_value, maximum_value, increment, cycle_option FROM information_schema.sequences ORDER BY sequence_name;
SELECT relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE relkind = 'S' AND n.nspname = 'public' AND relname = 'nosuch';
SELECT 's_pkey'::regclass::text, 's_id_seq'::regclass::text, 'public.counter_seq'::regclass::text;
SELECT pg_advisory_lock(42), pg_try_advisory_lock(42), pg_advisory_unlock(42), pg_advisory_unlock(42), pg_advisory_unlock(42);
SELECT pg_try_advisory_lock(1, 2), pg_try_advisory_lock(1, 2), pg_advisory_unlock_all(), pg_advisory_unlock(1, 2);
SELECT pg_advisory_lock(NULL::int8);
-- unsupported
SELECT pg_advisory_xact_lock(1);
