-- corr, covar_pop/samp, regr_*, percentile_cont/disc with arrays of
-- fractions, mode(): float results must print as PostgreSQL's.
CREATE TABLE pts (id int PRIMARY KEY, g text, x float8, y float8, xi int, yn numeric);
INSERT INTO pts VALUES (1,'a',1,2,1,2.5),(2,'a',2,4.1,2,3.75),(3,'a',3,5.9,3,7),(4,'b',1.5,0.3,4,NULL),(5,'b',NULL,7,5,1),(6,'b',2.5,-1.25,6,0.1),(7,'c',4,4,7,7),(8,'a',10,21.7,8,30.2),(9,'d',1,1,9,9);
SELECT corr(y, x), covar_pop(y, x), covar_samp(y, x) FROM pts;
SELECT regr_count(y, x), regr_sxx(y, x), regr_syy(y, x), regr_sxy(y, x), regr_avgx(y, x), regr_avgy(y, x) FROM pts;
SELECT regr_r2(y, x), regr_slope(y, x), regr_intercept(y, x) FROM pts;
SELECT g, corr(y, x), covar_pop(y, x), covar_samp(y, x), regr_count(y, x), regr_slope(y, x), regr_intercept(y, x), regr_r2(y, x) FROM pts GROUP BY g ORDER BY g;
SELECT corr(yn, xi), covar_samp(xi, xi), regr_slope(yn, xi), regr_avgy(yn, xi) FROM pts;
SELECT corr(y, x), regr_count(y, x), regr_sxx(y, x), covar_pop(y, x) FROM pts WHERE false;
SELECT corr(x, x), regr_r2(y, x), regr_slope(y, x) FROM pts WHERE g = 'c';
SELECT corr(1, x), regr_r2(1, x), regr_slope(1, x), regr_intercept(1, x) FROM pts;
SELECT corr(y, x) FILTER (WHERE id > 2), regr_slope(DISTINCT y, x) FROM pts;
SELECT id, corr(y, x) OVER (ORDER BY id), regr_count(y, x) OVER (PARTITION BY g) FROM pts ORDER BY id;
SELECT covar_pop('NaN'::float8, x), corr(y, 'Infinity'::float8), regr_sxx(y, 'NaN') FROM pts;
SELECT pg_typeof(corr(y, x)), pg_typeof(regr_count(y, x)), pg_typeof(covar_pop(xi, xi)) FROM pts;
SELECT percentile_cont(ARRAY[0, 0.25, 0.5, 0.75, 1]) WITHIN GROUP (ORDER BY x) FROM pts;
SELECT percentile_disc(ARRAY[0, 0.25, 0.5, 0.75, 1]) WITHIN GROUP (ORDER BY y) FROM pts;
SELECT percentile_disc(ARRAY[0.5, NULL, 0.1]::float8[]) WITHIN GROUP (ORDER BY g), percentile_cont(ARRAY[0.3, NULL]::float8[]) WITHIN GROUP (ORDER BY xi) FROM pts;
SELECT g, percentile_cont(ARRAY[0.1, 0.9]) WITHIN GROUP (ORDER BY y DESC), percentile_disc(ARRAY[0.5]) WITHIN GROUP (ORDER BY yn) FROM pts GROUP BY g ORDER BY g;
SELECT percentile_cont(ARRAY[0.5]) WITHIN GROUP (ORDER BY x) FROM pts WHERE false;
SELECT percentile_cont(0.37) WITHIN GROUP (ORDER BY y), percentile_disc(0.37) WITHIN GROUP (ORDER BY x), mode() WITHIN GROUP (ORDER BY g) FROM pts;
SELECT g, mode() WITHIN GROUP (ORDER BY xi % 2), percentile_cont(0.5) WITHIN GROUP (ORDER BY yn) FROM pts GROUP BY g ORDER BY g;
SELECT pg_typeof(percentile_disc(ARRAY[0.5]) WITHIN GROUP (ORDER BY yn)), pg_typeof(percentile_cont(ARRAY[0.5]) WITHIN GROUP (ORDER BY xi)) FROM pts;
SELECT g, regr_count(y, x), regr_avgx(yn, xi), percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM pts GROUP BY ROLLUP (g) ORDER BY g;
-- errors
SELECT percentile_cont(ARRAY[0.5, 2]) WITHIN GROUP (ORDER BY x) FROM pts;
SELECT percentile_disc(ARRAY[-0.5]) WITHIN GROUP (ORDER BY x) FROM pts;
SELECT corr(y) FROM pts;
SELECT corr(g, x) FROM pts;
SELECT regr_slope(y, x, x) FROM pts;
SELECT corr(y, x) WITHIN GROUP (ORDER BY x) FROM pts;
SELECT mode(x) WITHIN GROUP (ORDER BY x) FROM pts;
SELECT id FROM pts WHERE corr(y, x) > 0;
