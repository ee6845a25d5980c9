-- aggregates over NULLs/NaN, FILTER, DISTINCT/ORDER BY, empty input, HAVING,
-- result types, bit_xor; unsupported statistics answer 0A000.
CREATE TABLE t (id int PRIMARY KEY, g text, x int, f float8, n numeric, b bool, s text);
INSERT INTO t VALUES (1,'a',1,1.5,1.10,true,'x'),(2,'a',NULL,NULL,NULL,NULL,NULL),(3,'b',3,-0.5,2.25,false,'y'),(4,'b',4,2.5,3,true,'z'),(5,NULL,5,'NaN',NULL,false,'w');
SELECT count(*), count(x), sum(x), avg(x), min(s), max(s), bool_and(b), bool_or(b), every(b), string_agg(s, ',' ORDER BY s DESC) FROM t;
SELECT g, count(*) FILTER (WHERE x > 2), sum(n) FILTER (WHERE b), array_agg(x ORDER BY x NULLS FIRST) FROM t GROUP BY g ORDER BY g NULLS FIRST;
SELECT sum(f), avg(f), max(f), min(f), stddev(f), variance(n), stddev_samp(x), var_pop(x) FROM t;
SELECT sum(x), avg(n), count(DISTINCT g), count(DISTINCT (g, b)) FROM t WHERE false;
SELECT g, sum(x) FROM t GROUP BY g HAVING sum(x) > 3 ORDER BY 1;
SELECT max(id) FROM t HAVING count(*) > 10;
SELECT 1 FROM t HAVING true;
SELECT count(*) FROM t GROUP BY ();
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x), percentile_disc(0.5) WITHIN GROUP (ORDER BY x), mode() WITHIN GROUP (ORDER BY g) FROM t;
-- unsupported
SELECT percentile_cont(ARRAY[0.25, 0.75]) WITHIN GROUP (ORDER BY f) FROM t;
SELECT bit_and(x), bit_or(x), bit_xor(x) FROM t;
SELECT json_agg(x ORDER BY id), jsonb_agg(s), json_object_agg(id, s), string_agg(DISTINCT g, '|') FROM t;
SELECT count(*) OVER (), sum(x) OVER (PARTITION BY g) FROM t ORDER BY id;
SELECT sum(x) FILTER (WHERE x IS NULL), avg(x) FILTER (WHERE false), array_agg(x) FILTER (WHERE false) FROM t;
SELECT avg(x::int8), sum(x::int2), pg_typeof(sum(x::int2)), pg_typeof(sum(x::int8)), pg_typeof(avg(f)), pg_typeof(sum(n)) FROM t;
SELECT sum(x) FROM t GROUP BY g ORDER BY sum(x) DESC NULLS LAST;
SELECT g, x FROM t GROUP BY g;
SELECT count(x, x) FROM t;
SELECT sum(s) FROM t;
SELECT avg(b) FROM t;
SELECT string_agg(x, ',') FROM t;
SELECT min(x) FILTER (WHERE x > 1) OVER (ORDER BY id) FROM t ORDER BY id;
SELECT array_agg(DISTINCT x ORDER BY x DESC) FROM t;
SELECT array_agg(DISTINCT x ORDER BY id) FROM t;
-- unsupported
SELECT corr(x, f) FROM t;
SELECT any_value(x) FROM t;
-- unsupported
SELECT regr_count(x, f) FROM t;
SELECT bit_xor(x), bit_xor(x::int8) FILTER (WHERE x > 1), bit_xor(x::int2) FROM t WHERE x IS NOT NULL;
SELECT g, bit_xor(id) FROM t GROUP BY g ORDER BY g;
SELECT bit_xor(s) FROM t;
