-- make_timestamp/make_timestamptz/make_time/make_interval (named args), date_bin, regexp_count/substr/instr
SET TimeZone = 'UTC';
SELECT make_interval(days => 3), make_interval(1, 2, 3, 4, 5, 6, 7.5), make_interval(hours => 2, mins => 30), make_interval(secs => 1.25), make_interval(weeks => -1, years => 1);
SELECT make_timestamp(2024, 1, 2, 3, 4, 5.5), make_timestamptz(2024, 1, 2, 3, 4, 5.5, 'UTC'), make_timestamptz(2024, 7, 2, 3, 4, 5, 'America/New_York'), make_time(1, 2, 3.5), make_timestamptz(2024, 1, 2, 3, 4, 5);
SELECT make_timestamp(2024, 2, 30, 0, 0, 0);
SELECT make_time(25, 0, 0);
SELECT date_bin('15 minutes', TIMESTAMP '2020-02-11 15:44:17', TIMESTAMP '2001-01-01'), date_bin('1 day', timestamptz '2024-03-10 15:00+00', timestamptz '2024-01-01 00:00+00'), date_bin('1 hour', TIMESTAMP '1999-12-31 23:30', TIMESTAMP '2001-01-01 00:10');
SELECT date_bin('1 month', TIMESTAMP '2020-02-11', TIMESTAMP '2001-01-01');
SELECT date_bin('0 minutes', TIMESTAMP '2020-02-11', TIMESTAMP '2001-01-01');
SELECT regexp_count('ABCABC', 'B'), regexp_substr('abc123def', '\d+'), regexp_instr('abc123', '\d'), regexp_count('ABCABC', 'B', 3), regexp_substr('a1b22c333', '\d+', 4), regexp_instr('héllo1', '\d', 2), regexp_substr('abc', 'x');
SELECT regexp_count('abc', 'b', 0);
