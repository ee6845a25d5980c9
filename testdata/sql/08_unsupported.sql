-- Features the engine does not implement must fail loudly with 0A000.
CREATE TABLE u (id int PRIMARY KEY, v text, n int);
INSERT INTO u VALUES (1, 'a', 10), (2, 'b', 20), (3, NULL, 30);
SELECT * FROM u, LATERAL (SELECT u.n * 2) s ORDER BY 1;
SELECT * FROM u LEFT JOIN LATERAL (SELECT u.n * 2 AS d) s ON true;
SELECT v, count(*) FROM u GROUP BY ROLLUP (v);
SELECT v, count(*) FROM u GROUP BY GROUPING SETS ((v), ());
SELECT (1, 2) = ANY(SELECT 1, 2);
SELECT mode() WITHIN GROUP (ORDER BY n) FROM u;
SELECT sum(n) OVER w FROM u WINDOW w AS (ORDER BY id);
SELECT sum(n) OVER (ORDER BY id GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM u;
SELECT sum(n) OVER (ORDER BY n RANGE BETWEEN 5 PRECEDING AND CURRENT ROW) FROM u;
-- unsupported
SELECT ARRAY[[1, 2], [3, 4]];
-- unsupported
SELECT '{{1,2},{3,4}}'::int[];
SELECT (ARRAY[1, 2, 3])[1:2];
-- unsupported
SELECT ('{{1,2},{3,4}}'::int[])[1:2];
-- unsupported
SELECT 'a' COLLATE "en_US";
-- unsupported
SELECT B'101';
-- unsupported
SELECT v FROM u ORDER BY v USING <;
-- unsupported
SELECT * FROM u TABLESAMPLE SYSTEM (10);
-- unsupported
SELECT * FROM ROWS FROM (generate_series(1, 2), json_to_record('{"a": 1}') AS (a int));
-- unsupported
SELECT json_each('{"a": 1}');
-- supported now (expanded syntax): compared with PostgreSQL
SELECT * FROM regexp_matches('abc', 'b', 'x');
-- unsupported
SELECT * FROM regexp_matches('abc', 'b', 'p');
SELECT interval '1' day;
-- unsupported
SELECT 2::numeric ^ 0.5::numeric * 0 + 'NaN'::numeric::int;
SELECT format('%5s', 'x');
SELECT regexp_replace('abc', 'b', 'x', 'n');
-- unsupported
SELECT regexp_replace('abc', 'b', 'x', 'w');
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3) SEARCH DEPTH FIRST BY n SET ord SELECT * FROM t;
-- unsupported
WITH d AS (DELETE FROM u RETURNING *) SELECT * FROM d;
SELECT n FROM u ORDER BY id FETCH FIRST 1 ROWS WITH TIES;
SELECT * FROM ((SELECT 1 AS x) a JOIN (SELECT 2 AS y) b ON true) AS j;
SELECT count(*) FROM u GROUP BY CUBE (v, n);
SELECT '1 day'::interval day to second;
SELECT to_char(date '2021-03-01', 'DDTH');
SELECT to_char(date '2021-01-03', 'IDDD'), to_char(date '2021-12-31', 'IDDD IYYY');
-- unsupported
SELECT to_char(now(), 'YYYY AD');
SELECT to_char(12.5, '999.99');
-- unsupported
SELECT '1.50'::money;
-- unsupported
SELECT '127.0.0.1'::inet;
-- unsupported
SELECT '[1,5)'::int4range;
-- unsupported
SELECT 'a fat cat'::tsvector;
-- unsupported
SELECT '10:00+02'::timetz;
-- unsupported
SELECT rank(2) WITHIN GROUP (ORDER BY n) FROM u;
