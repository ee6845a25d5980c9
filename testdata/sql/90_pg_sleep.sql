-- pg_sleep waits per row and returns void; NULL and non-positive
-- durations return at once. (statement_timeout cancelling the wait with
-- 57014 is the wire layer's: cmd/pgproxy TestWriteProgress's server.)
SELECT pg_sleep(0), pg_sleep(NULL), pg_sleep(-1), pg_sleep('NaN');
SELECT pg_sleep(0.01) IS NULL AS is_null, pg_typeof(pg_sleep(0));
SELECT count(*) FROM generate_series(1, 3) g WHERE pg_sleep(0.001) IS NOT NULL;
SELECT pg_sleep('soon');
SELECT 1;
SELECT pg_sleep_for('10 milliseconds'), pg_sleep_for(NULL), pg_sleep_for('-1 hour');
SELECT pg_sleep_until(now() - interval '1 day'), pg_sleep_until(NULL);
SELECT pg_sleep_until(clock_timestamp() + interval '5 milliseconds') IS NOT NULL AS waited;
SELECT pg_typeof(pg_sleep_for('0')), pg_typeof(pg_sleep_until('2000-01-01'));
