-- Dates, timestamps (TimeZone UTC), intervals.
CREATE TABLE ev (id int PRIMARY KEY, d date, ts timestamp, tz timestamptz, iv interval);
INSERT INTO ev VALUES
 (1, '2024-01-31', '2024-01-31 10:30:00', '2024-01-31 10:30:00+00', '1 day'),
 (2, '2024-02-29', '2024-02-29 23:59:59.123456', '2024-02-29 23:59:59.5+05:30', '1 mon 2 days 03:04:05'),
 (3, '1999-12-31', '1999-12-31 00:00:00', '1999-12-31 00:00:00-08', '-1 year'),
 (4, NULL, NULL, NULL, NULL),
 (5, '2000-01-01', '2000-01-01 12:00:00.5', '2000-06-15 12:00:00+02', '36 hours');
SELECT * FROM ev ORDER BY id;
SELECT '2024-03-15'::date, '2024-03-15 14:30:00'::timestamp, '2024-03-15 14:30:00+01'::timestamptz, '2024-03-15T14:30:00Z'::timestamptz;
SELECT '2024-02-30'::date;
SELECT 'garbage'::date;
SELECT '2024-13-01'::timestamp;
SELECT '0001-01-01'::date, '2024-01-01 00:00:00.000001'::timestamp, '1970-01-01'::date;
SELECT d + 1, d - 1, d + 30, d - '2000-01-01'::date FROM ev ORDER BY id;
SELECT d + interval '1 month', d - interval '1 day', d + '2 hours'::interval FROM ev WHERE id <= 3 ORDER BY id;
SELECT ts + iv, ts - iv, tz + iv, tz - interval '1 hour' FROM ev ORDER BY id;
SELECT ts - '2024-01-01'::timestamp, tz - '2024-01-01 00:00:00+00'::timestamptz FROM ev ORDER BY id;
SELECT '2024-01-31'::date + interval '1 month', '2024-03-31'::timestamp - interval '1 month', '2023-01-31'::timestamp + interval '1 month';
SELECT interval '1 day' + interval '2 hours', interval '1 day' - interval '36 hours', interval '1 hour' * 2.5, interval '1 day' / 4;
SELECT interval '1 year 2 months 3 days 04:05:06', interval '-1 day', interval '1 day -1 hour', interval '0', interval '90 minutes';
SELECT interval '1.5 days', interval '1.5 months', interval '2 weeks', interval '1 millisecond', interval '100 years ago';
SELECT '1 day'::interval = '24 hours'::interval, '1 mon'::interval = '30 days'::interval, '1 day'::interval < '25 hours'::interval;
SELECT -interval '1 day 2 hours', interval '1 day' * -1;
SELECT extract(year FROM d), extract(month FROM d), extract(day FROM d), extract(dow FROM d), extract(doy FROM d) FROM ev ORDER BY id;
SELECT extract(hour FROM ts), extract(minute FROM ts), extract(second FROM ts), extract(epoch FROM ts) FROM ev ORDER BY id;
SELECT extract(epoch FROM tz), extract(year FROM tz), extract(week FROM d), extract(quarter FROM d), extract(isodow FROM d) FROM ev ORDER BY id;
SELECT extract(century FROM d), extract(decade FROM d), extract(millennium FROM d), extract(microseconds FROM ts), extract(milliseconds FROM ts) FROM ev ORDER BY id;
SELECT extract(day FROM iv), extract(hour FROM iv), extract(month FROM iv), extract(year FROM iv), extract(epoch FROM iv) FROM ev ORDER BY id;
SELECT date_part('year', ts), date_part('hour', tz), date_part('day', iv) FROM ev ORDER BY id;
SELECT extract(hour FROM d) FROM ev;
SELECT date_trunc('month', ts), date_trunc('day', tz), date_trunc('year', d), date_trunc('hour', ts), date_trunc('week', ts), date_trunc('quarter', ts) FROM ev ORDER BY id;
SELECT date_trunc('minute', ts), date_trunc('second', ts), date_trunc('decade', ts), date_trunc('century', ts), date_trunc('millennium', ts) FROM ev ORDER BY id;
SELECT date_trunc('day', interval '1 day 5 hours'), date_trunc('hour', interval '3 days 04:05:06');
SELECT date_trunc('fortnight', now());
SELECT make_date(2024, 2, 29), make_date(2023, 2, 29);
SELECT to_timestamp(0), to_timestamp(1700000000.5);
SELECT age('2024-03-15'::timestamp, '2020-01-20'::timestamp), age('2024-01-01'::timestamp, '2024-03-31'::timestamp), age('2024-03-01'::timestamp, '2024-01-31'::timestamp);
SELECT justify_days(interval '65 days'), justify_hours(interval '50 hours');
SELECT d::timestamp, d::timestamptz, ts::date, tz::date, ts::timestamptz, tz::timestamp, ts::time FROM ev ORDER BY id;
SELECT d::text, ts::text, tz::text, iv::text FROM ev ORDER BY id;
SELECT '10:30'::time, '23:59:59.999'::time, '10:30'::time + interval '1 hour';
SELECT d FROM ev WHERE d > '2000-01-01' ORDER BY d;
SELECT ts FROM ev WHERE ts BETWEEN '2000-01-01' AND '2024-02-01' ORDER BY ts;
SELECT count(*) FROM ev WHERE tz < '2024-01-01 00:00:00+00';
SELECT d = ts, d < tz FROM ev ORDER BY id;
SELECT min(d), max(ts), min(tz), max(iv), min(iv) FROM ev;
SELECT id FROM ev ORDER BY iv NULLS FIRST, id;
SELECT * FROM generate_series('2024-01-01'::timestamp, '2024-01-03'::timestamp, '12 hours');
SELECT * FROM generate_series('2024-01-30'::date, '2024-04-30'::date, interval '1 month');
SELECT date '2024-01-01', timestamp '2024-01-01 10:00', interval '1 day', time '10:00';
SELECT '2024-01-01'::date - 1, 1 + '2024-01-01'::date, '2024-01-01'::date + time '10:00';
SELECT '2024-06-01 12:00:00+00'::timestamptz AT TIME ZONE 'UTC';
SELECT to_char(ts, 'YYYY-MM-DD HH24:MI:SS'), to_char(ts, 'DD Mon YYYY'), to_char(ts, 'FMMonth FMDD, YYYY'), to_char(ts, 'Day Dy DY day') FROM ev ORDER BY id;
SELECT to_char(ts, 'HH12:MI AM'), to_char(ts, 'hh:mi pm'), to_char(ts, 'YY/Q/DDD/D'), to_char(ts, 'SS.MS.US'), to_char(ts, '"Year" YYYY "at" HH24') FROM ev ORDER BY id;
SELECT to_char(tz, 'YYYY-MM-DD HH24:MI'), to_char(d, 'MONTH month'), to_char(ts, 'FMHH12 FMMM/FMDD') FROM ev ORDER BY id;
