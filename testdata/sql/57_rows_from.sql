-- ROWS FROM (…): the functions' rows side by side, shorter results padded
-- with NULLs; WITH ORDINALITY numbers the zipped rows; an alias names the
-- columns in order, leaving the rest named after their functions.
SELECT * FROM ROWS FROM (generate_series(1, 2), generate_series(1, 3));
SELECT * FROM ROWS FROM (generate_series(1, 3), unnest(array['a', 'b'])) WITH ORDINALITY AS t(n, s, o);
SELECT * FROM ROWS FROM (generate_series(1, 2)) AS t(x);
SELECT * FROM ROWS FROM (generate_series(1, 2)) WITH ORDINALITY;
SELECT t.* FROM ROWS FROM (unnest(array[10, 20]), generate_series(5, 7)) AS t(a);
SELECT * FROM ROWS FROM (upper('x'), generate_series(1, 2), json_array_elements('[1, "a"]'));
SELECT * FROM ROWS FROM (generate_series(1, 0), unnest(array[]::int[])) WITH ORDINALITY;
SELECT r.n + 1, r.ordinality FROM ROWS FROM (generate_series(4, 6)) WITH ORDINALITY AS r(n) ORDER BY 2 DESC;
SELECT count(*) FROM ROWS FROM (generate_series(1, 5000), generate_series(1, 3));
SELECT * FROM ROWS FROM (unnest(array[1, 2], array['a', 'b', 'c']), generate_series(7, 7));
SELECT * FROM ROWS FROM (generate_series(1, 2)) AS t(x, y);
SELECT * FROM ROWS FROM (generate_series(1, 2), generate_series(1, 2)) AS t(a, b), ROWS FROM (generate_series(1, 2)) AS t(c);
