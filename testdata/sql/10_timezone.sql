-- timestamptz behaviour under a non-UTC session TimeZone (DST transitions).
CREATE TABLE tzt (id int PRIMARY KEY, t timestamptz, l timestamp);
INSERT INTO tzt VALUES (1, '2024-03-10 06:30:00+00', '2024-03-10 01:30:00'), (2, '2024-11-03 05:30:00+00', '2024-11-03 01:30:00'), (3, '2024-07-04 12:00:00+00', '2024-07-04 12:00:00');
SET TimeZone = 'America/New_York';
SELECT id, t, l FROM tzt ORDER BY id;
SELECT id, t::text, t::date, t::timestamp, l::timestamptz FROM tzt ORDER BY id;
SELECT id, t + interval '1 day', t + interval '24 hours', t - interval '1 month' FROM tzt ORDER BY id;
SELECT id, date_trunc('day', t), date_trunc('hour', t), extract(hour FROM t), extract(timezone FROM t) FROM tzt ORDER BY id;
SELECT '2024-03-10 02:30:00'::timestamptz, '2024-11-03 01:30:00'::timestamptz, '2024-06-01 12:00:00 Europe/Paris'::timestamptz;
SELECT '2024-01-01 00:00:00+00'::timestamptz AT TIME ZONE 'Asia/Tokyo', '2024-01-01 00:00:00'::timestamp AT TIME ZONE 'UTC';
SELECT t AT TIME ZONE 'UTC', l AT TIME ZONE 'America/Los_Angeles' FROM tzt ORDER BY id;
SELECT '2024-03-09'::date::timestamptz, '2024-03-09'::date + interval '1 day';
SELECT * FROM generate_series('2024-03-09 12:00:00-05'::timestamptz, '2024-03-11 12:00:00-04'::timestamptz, '12 hours');
SELECT to_timestamp(1710052200), now() - now();
SET TimeZone = 'Asia/Kolkata';
SELECT id, t FROM tzt ORDER BY id;
SELECT '2024-01-01 10:00:00'::timestamptz, extract(timezone FROM '2024-01-01'::timestamptz);
