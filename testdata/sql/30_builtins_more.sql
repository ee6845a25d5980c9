-- json(b)_extract_path[_text], json #> verbatim, sha224/384/512, trim_scale, min_scale, width_bucket
CREATE TABLE jx (id int PRIMARY KEY, j jsonb, t json);
INSERT INTO jx VALUES (1, '{"a": {"b": [10, "x"]}, "c": null}', '{"a": {"b": [10, "x"]}}'), (2, '[1, 2]', '[1, 2]'), (3, NULL, NULL);
SELECT id, jsonb_extract_path(j, 'a', 'b'), jsonb_extract_path_text(j, 'a', 'b', '1'), json_extract_path(t, 'a'), json_extract_path_text(t, 'a', 'b', '0'), jsonb_extract_path(j, '1') FROM jx ORDER BY id;
SELECT jsonb_extract_path_text(j, 'c') IS NULL, json_extract_path_text('{"x": "y"}', 'x') FROM jx WHERE id = 1;
SELECT encode(sha224('abc'), 'hex'), encode(sha384('abc'), 'hex'), encode(sha512(''), 'hex');
SELECT trim_scale(1.2300), trim_scale(100.00), trim_scale(0.000), trim_scale(-5.50), min_scale(1.2300), min_scale(100), min_scale(0.00), trim_scale(1e3::numeric);
SELECT width_bucket(5.35, 0.024, 10.06, 5), width_bucket(-1, 0, 10, 5), width_bucket(10, 0, 10, 5), width_bucket(5, 10, 0, 5), width_bucket(0, 10, 0, 5), width_bucket(3.0::float8, 0, 10, 4);
SELECT width_bucket(1, 1, 1, 5);
SELECT width_bucket(1, 0, 2, 0);
SELECT jsonb_extract_path('{}'::jsonb);
SELECT t #> '{a}', t #> '{a,b,1}', t #>> '{a,b,1}', t #> '{a,b,9}', t #> '{}' FROM jx ORDER BY id;
SELECT '{"a" :  [1,  2]}'::json #> '{a}', '[{"x":  1}]'::json #> '{0}', '[{"x":  1}]'::json #>> '{0,x}', '{"a": null}'::json #>> '{a}';
SELECT array_fill(0, ARRAY[3]), array_fill('x'::text, ARRAY[2]), array_fill(NULL::int, ARRAY[2]), array_fill(1, ARRAY[0]), array_fill(7, ARRAY[2], ARRAY[1]);
SELECT array_fill(1, NULL);
-- unsupported
SELECT array_fill(1, ARRAY[2, 2]);
