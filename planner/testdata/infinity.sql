-- Differential script: 'infinity' and '-infinity' dates and timestamps —
-- text input and output (every DateStyle), storage in a table, ordering,
-- min/max, comparisons across date/timestamp/timestamptz, the casts among
-- them, arithmetic, extract/date_part, date_trunc, to_char, isfinite,
-- AT TIME ZONE, JSON, arrays and records.
create table inf (id int4 primary key, d date, ts timestamp, tz timestamptz, ts3 timestamp(3));
insert into inf values
  (1, 'infinity', 'infinity', 'infinity', 'infinity'),
  (2, '-infinity', '-infinity', '-infinity', '-infinity'),
  (3, '2024-02-29', '2024-02-29 12:34:56.789', '2024-02-29 12:34:56.789+02', '2024-02-29 12:34:56.7891'),
  (4, ' Infinity ', 'INFINITY', '-Infinity', 'infinity'),
  (5, null, null, null, null);
select * from inf order by id;
select id, d, ts, tz from inf order by d, id;
select id from inf order by ts desc nulls last, id;
select id from inf where d > '2024-01-01' order by id;
select id from inf where ts < '1900-01-01' order by id;
select id from inf where tz = 'infinity' order by id;
select id from inf where d = 'infinity'::timestamp order by id;
select min(d), max(d), min(ts), max(ts), min(tz), max(tz) from inf;
select count(distinct d), count(distinct ts) from inf;
select 'infinity'::date, '-infinity'::date, 'infinity'::timestamp, '-infinity'::timestamptz;
select '+infinity'::date;
select '+infinity'::timestamp;
select 'inf'::date;
select 'infinity'::date > '2024-01-01'::date, '-infinity'::timestamp < '1900-01-01'::timestamp, 'infinity'::date = 'infinity'::date;
select '2024-01-01'::date < 'infinity'::timestamp, 'infinity'::date = 'infinity'::timestamp, '-infinity'::date < '-infinity'::timestamptz;
select 'infinity'::date::timestamp, '-infinity'::timestamp::date, 'infinity'::timestamptz::timestamp, 'infinity'::timestamp::timestamptz, '-infinity'::date::timestamptz;
select 'infinity'::timestamp::time is null, '-infinity'::timestamptz::time is null;
select 'infinity'::date + 1, 'infinity'::date - 7, '-infinity'::date + 1, 1 + 'infinity'::date;
select 'infinity'::timestamp + interval '1 day', '-infinity'::timestamptz - interval '1 month', 'infinity'::date + interval '1 hour', interval '1 year' + '-infinity'::timestamp;
select 'infinity'::date + time '10:00', '-infinity'::date + time '00:00';
select 'infinity'::date - '2024-01-01'::date;
select '2024-01-01'::date - '-infinity'::date;
select 'infinity'::timestamp - '2024-01-01'::timestamp;
select now() - '-infinity'::timestamptz;
select isfinite('infinity'::date), isfinite('2024-01-01'::date), isfinite('-infinity'::timestamp), isfinite('infinity'::timestamptz), isfinite(now());
select extract(year from 'infinity'::timestamp), extract(month from 'infinity'::timestamp), extract(epoch from '-infinity'::timestamptz), extract(julian from 'infinity'::date);
select extract(dow from 'infinity'::date), extract(isoyear from '-infinity'::date), extract(century from 'infinity'::date), extract(day from 'infinity'::date), extract(millennium from '-infinity'::timestamptz), extract(decade from 'infinity'::timestamp);
select extract(timezone from 'infinity'::timestamptz), extract(hour from 'infinity'::timestamp);
select extract(hour from 'infinity'::date);
select date_part('year', 'infinity'::date), date_part('epoch', '-infinity'::timestamp), date_part('month', 'infinity'::timestamptz);
select date_trunc('day', 'infinity'::timestamp), date_trunc('month', '-infinity'::timestamptz), date_trunc('year', 'infinity'::date);
select to_char('infinity'::timestamp, 'YYYY') is null, to_char('-infinity'::timestamptz, 'YYYY-MM-DD') is null, to_char('infinity'::date, 'YYYY') is null;
select 'infinity'::timestamp at time zone 'UTC', '-infinity'::timestamptz at time zone 'America/New_York';
select to_json('infinity'::date), to_jsonb('-infinity'::timestamp), to_json('infinity'::timestamptz), json_build_object('d', '-infinity'::date);
select row('infinity'::date, '-infinity'::timestamp), array['infinity'::timestamptz, '2024-01-01 00:00+00'], array['-infinity', 'infinity']::date[];
select 'infinity'::date::text, cast('-infinity'::timestamp as varchar), 'x' || 'infinity'::date;
select '{infinity,-infinity,2024-01-01}'::date[], '{"-infinity","2024-01-01 10:00"}'::timestamp[];
select greatest('infinity'::date, '2024-01-01'), least('-infinity'::timestamp, '2024-01-01'), coalesce(null, 'infinity'::date);
select case when d = 'infinity' then 'inf' when d = '-infinity' then '-inf' else 'finite' end from inf order by id;
select 'infinity'::timestamp(1), '-infinity'::timestamptz(2);
set datestyle = 'SQL, DMY';
select 'infinity'::date, '-infinity'::timestamptz, 'infinity'::timestamp, array['infinity'::date];
set datestyle = 'Postgres, MDY';
select d, ts, tz from inf order by id;
set datestyle = 'German';
select d, ts, tz from inf order by id;
set datestyle = 'ISO, MDY';
set timezone = 'Asia/Kolkata';
select tz, tz::date, tz::timestamp from inf order by id;
update inf set d = d + 1, ts = ts - interval '1 day' where id in (1, 2);
select id, d, ts from inf where id in (1, 2) order by id;
