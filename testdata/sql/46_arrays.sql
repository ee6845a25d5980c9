-- arrays: subscripts, one-dimensional slices, array_position with a start,
-- anyarray operators need one array type, multidimensional arrays answer 0A000.
SELECT (ARRAY[1,2,3])[2], (ARRAY[1,2,3])[0], (ARRAY[1,2,3])[4], (ARRAY[1,2,3])[NULL], ('{a,b}'::text[])[1];
SELECT array_append(ARRAY[1], 2), array_prepend(0, ARRAY[1]), array_cat(ARRAY[1], ARRAY[2,3]), ARRAY[1] || 2, 0 || ARRAY[1], ARRAY[1] || ARRAY[2], ARRAY[1] || NULL::int[];
SELECT array_position(ARRAY['a','b','a'], 'a'), array_position(ARRAY['a','b','a'], 'a', 2), array_positions(ARRAY[1,2,1], 1), array_remove(ARRAY[1,NULL,1], NULL), array_replace(ARRAY[1,2,1], 1, 9);
SELECT array_length(ARRAY[1,2], 1), array_length(ARRAY[1,2], 2), array_upper(ARRAY[1,2], 1), array_lower('{}'::int[], 1), array_ndims(ARRAY[1]), array_dims(ARRAY[1,2,3]), cardinality(ARRAY[1,2]);
SELECT ARRAY[1,2] = ARRAY[1,2], ARRAY[1,2] < ARRAY[1,3], ARRAY[1,2] < ARRAY[1,2,0], ARRAY[1,NULL] = ARRAY[1,NULL], ARRAY[NULL]::int[] IS NULL, ARRAY[1,2] @> ARRAY[2], ARRAY[1] && ARRAY[2];
SELECT 1 = ANY(ARRAY[1,2]), 3 = ALL(ARRAY[3,3]), 1 = ANY('{}'::int[]), 1 = ALL('{}'::int[]), NULL = ANY(ARRAY[1]), 1 = ANY(ARRAY[NULL,1]), 2 = ANY(ARRAY[NULL,1]), 2 <> ALL(ARRAY[1,NULL]);
SELECT array_to_string(ARRAY[1,NULL,3], '-'), array_to_string(ARRAY[1,NULL,3], '-', 'N'), string_to_array('1 2', ' ')::int[], '{1,2,3}'::int[], '{"a b","c\"d",NULL,"NULL"}'::text[];
SELECT array_agg(x ORDER BY x DESC), array_agg(DISTINCT x) FROM (VALUES (2), (1), (2), (NULL)) v(x);
SELECT unnest(ARRAY[1,2]), unnest(ARRAY['a','b','c']);
SELECT x, o FROM unnest(ARRAY['a','b']) WITH ORDINALITY AS u(x, o);
SELECT ARRAY(SELECT generate_series(1,3)), ARRAY(SELECT 'a' WHERE false);
SELECT '{1,2}'::int[] IS DISTINCT FROM '{1,2}'::int[], array_fill(7, ARRAY[3]);
-- unsupported
SELECT array_fill('x'::text, ARRAY[2], ARRAY[0]);
-- unsupported
SELECT ARRAY[[1,2],[3,4]];
-- unsupported
SELECT '{{1,2},{3,4}}'::int[];
-- unsupported
SELECT array_fill(0, ARRAY[2,2]);
-- unsupported
SELECT '[0:2]={1,2,3}'::int[];
SELECT ARRAY[1,2]::text[], ARRAY['1','2']::int[], ARRAY[1.5]::int[], ARRAY['x']::int[];
SELECT pg_typeof(ARRAY[1]::int8[]), ARRAY[1,2]::float8[], '{t,f}'::bool[];
SELECT ARRAY['a','b'] = '{a,b}', '{1,2}' = ARRAY[1,2], array_to_json(ARRAY[1,2]), to_jsonb(ARRAY['a',NULL]);
SELECT ARRAY[1] = ARRAY[1.0];
SELECT ARRAY[1]::numeric[] = ARRAY[1.00];
SELECT (ARRAY[1,2,3])[2:3], (ARRAY[1,2,3])[:2], (ARRAY[1,2,3])[2:], (ARRAY[1,2,3])[3:2], (ARRAY[1,2,3])[0:10], (ARRAY[1,2,3])[NULL:2], (ARRAY[1,2,3])[-5:1], (ARRAY['a','b'])[:];
SELECT x[2:], pg_typeof(x[1:1]), array_length(x[2:3], 1) FROM (VALUES (ARRAY[10,20,30]), (NULL::int[]), ('{}'::int[])) v(x);
SELECT array_position(ARRAY['a','b','a'], 'a', 2), array_position(ARRAY[1,2,1], 1, 4), array_position(ARRAY[1,2,1], 1, -3);
SELECT array_position(ARRAY[1], 1, NULL);
SELECT ARRAY['a'::varchar] = ARRAY['a'::text];
SELECT ARRAY[1::int2] = ARRAY[1];
SELECT ARRAY[1] @> ARRAY[1::int8];
SELECT ARRAY[1] || ARRAY[1.5], ARRAY[1::int2] || ARRAY[2], '{1}'::int[] = ARRAY[1], ARRAY[1] < '{2}';
