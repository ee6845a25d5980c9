-- JSON and arrays.
CREATE TABLE docs (id int PRIMARY KEY, j json, jb jsonb, tags text[], nums int[]);
INSERT INTO docs VALUES
 (1, '{"a": 1, "b": [1, 2, {"c": "x"}]}', '{"name": "alice", "age": 30, "tags": ["x", "y"], "nested": {"k": true}}', '{red,green}', '{1,2,3}'),
 (2, '[1, "two", null]', '[1, "two", null, 4.50]', '{}', '{5}'),
 (3, '"scalar"', '"s"', NULL, NULL),
 (4, 'null', '{"b": 2, "a": 1, "a": 3}', '{"with space","quote\"d",NULL}', '{1,NULL,3}');
SELECT * FROM docs ORDER BY id;
SELECT id, j -> 'a', j -> 'b', j ->> 'a', jb -> 'name', jb ->> 'name', jb -> 'tags' -> 0, jb -> 'tags' ->> 1 FROM docs ORDER BY id;
SELECT id, j -> 0, j -> 1, j ->> 1, jb -> -1, jb -> 10 FROM docs ORDER BY id;
SELECT id, jb #> '{nested,k}', jb #>> '{tags,1}', j #> '{b,2,c}', j #>> '{b,2,c}' FROM docs ORDER BY id;
SELECT id, jb ? 'name', jb ? 'zzz', jb @> '{"age": 30}', jb @> '{"tags": ["y"]}', '{"age": 30}' <@ jb FROM docs ORDER BY id;
SELECT id, jsonb_typeof(jb), json_typeof(j) FROM docs ORDER BY id;
SELECT jsonb_array_length('[1,2,3]'), json_array_length('[]');
SELECT jsonb_array_length('{}');
SELECT '{"b":1, "a":2}'::jsonb, '{"b":1, "a":2}'::json, '[1, 2.0, 1e2, -0.5]'::jsonb, '{"a": {"c": 1, "b": 2}}'::jsonb;
SELECT '{bad json'::jsonb;
SELECT '{"a":1}'::jsonb = '{"a": 1}'::jsonb, '{"a":1}'::jsonb || '{"b":2}'::jsonb, '[1]'::jsonb || '[2]'::jsonb;
SELECT jsonb_build_object('a', 1, 'b', 'two', 'c', NULL, 'd', true, 'e', 1.50), json_build_object('a', 1, 'b', 'x');
SELECT jsonb_build_array(1, 'a', NULL, 2.5), json_build_array(1, 'a', false);
SELECT jsonb_build_object('k', ARRAY[1, 2]), json_build_object('t', '2024-01-01 10:00:00'::timestamp), to_jsonb('x'::text), to_json(42), to_jsonb(ARRAY['a', 'b']), to_json(ARRAY[1, 2]);
SELECT jsonb_build_object('a');
SELECT json_agg(id ORDER BY id), jsonb_agg(jb -> 'age') FROM docs;
SELECT jsonb_agg(x) FROM (VALUES (1), (NULL), (3)) v(x);
SELECT id, tags, nums, tags[1], nums[2], nums[10], array_length(nums, 1), cardinality(tags) FROM docs ORDER BY id;
SELECT ARRAY[1, 2] || ARRAY[3], ARRAY[1] || 2, 0 || ARRAY[1], ARRAY['a'] || 'b'::text, array_append(ARRAY[1, 2], 3), array_prepend(0, ARRAY[1]), array_cat(ARRAY[1], ARRAY[2, 3]);
SELECT ARRAY[1, 2, 3] @> ARRAY[2], ARRAY[1, 2] <@ ARRAY[1, 2, 3], ARRAY[1, 2] && ARRAY[2, 5], ARRAY[1] && ARRAY[3];
SELECT ARRAY[1, 2] = ARRAY[1, 2], ARRAY[1, 2] < ARRAY[1, 3], ARRAY[1, 2] < ARRAY[1, 2, 0], ARRAY[]::int[] = '{}'::int[];
SELECT array_position(ARRAY['a', 'b', 'c'], 'b'), array_position(ARRAY[1, 2], 5), array_upper(ARRAY[1, 2, 3], 1), array_lower(ARRAY[1], 1);
SELECT '{1,2,3}'::int[], '{a,"b c",NULL}'::text[], '{}'::text[], '{1.5, 2}'::numeric[], '{t,f}'::bool[];
SELECT '{1,2'::int[];
SELECT ARRAY['x', NULL, ''], ARRAY[1.5, 2], ARRAY[NULL::int], ARRAY['a"b', 'c\d'];
SELECT 3 = ANY(nums), 3 = ALL(nums), 1 < ANY('{0,5}'::int[]), 'red' = ANY(tags) FROM docs ORDER BY id;
SELECT id FROM docs WHERE 'green' = ANY(tags);
SELECT unnest(ARRAY[1, 2, 3]);
SELECT * FROM unnest(ARRAY['a', 'b']) AS u(v);
SELECT id, unnest(nums) FROM docs WHERE id < 3 ORDER BY 1, 2;
SELECT generate_series(1, 2), unnest(ARRAY['a', 'b', 'c']);
SELECT x, o FROM unnest(ARRAY['p', 'q']) WITH ORDINALITY AS t(x, o);
SELECT array_agg(x ORDER BY x DESC) FROM unnest(ARRAY[3, 1, 2]) x;
SELECT ARRAY(SELECT id FROM docs ORDER BY id DESC), ARRAY(SELECT 1 WHERE false);
SELECT array_to_string(ARRAY(SELECT name FROM (VALUES ('a'), ('b')) v(name)), '+');
-- unsupported
SELECT (ARRAY[[1, 2], [3, 4]]);
SELECT nums[1:2] FROM docs;
-- unsupported
SELECT nums[1:2][1] FROM docs;
SELECT string_agg(t, ',') FROM docs, unnest(tags) t;
SELECT * FROM jsonb_array_elements('[1, "a", null, {"b": 2}]');
SELECT * FROM json_array_elements('[1, "a" ,  {"b":2}]');
SELECT value FROM jsonb_array_elements_text('[1, "a", null, true]') AS t(value);
SELECT * FROM json_array_elements_text('["x", 2, null]');
SELECT jsonb_object_keys('{"b": 1, "a": 2, "aa": 3}'), json_object_keys('{"b": 1, "a": 2}');
SELECT id, jsonb_array_elements(jb -> 'tags') FROM docs WHERE id = 1;
SELECT d.id, e FROM docs d, jsonb_array_elements_text(d.jb -> 'tags') e ORDER BY 1, 2;
SELECT count(*) FROM docs, jsonb_object_keys(jb) k WHERE jsonb_typeof(jb) = 'object';
SELECT * FROM jsonb_array_elements('{"a": 1}');
SELECT * FROM jsonb_object_keys('[1]');
SELECT * FROM jsonb_each('{"b": [1, 2], "a": 1, "c": null}');
SELECT * FROM json_each('{"b": [1,  2], "a": "x"}');
SELECT key, value FROM jsonb_each_text('{"b": "two", "a": 1, "n": null, "o": {"k": 1}}') ORDER BY key;
SELECT * FROM json_each_text('{"x": "s", "y": 1.50, "z": [1, 2]}') AS e(k, v);
SELECT * FROM jsonb_each('[1]');
