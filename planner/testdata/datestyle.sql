-- Differential script: every DateStyle output style and field order for
-- date, timestamp, timestamptz and time (as columns, casts to text and in
-- arrays and records), every IntervalStyle's output, and the non-ISO text
-- input PostgreSQL reads (field order from DateStyle, month names, Julian
-- days, the other styles' own output, ISO 8601 and SQL-standard intervals).
create table dt (id int4 primary key, d date, ts timestamp, tz timestamptz, t time);
create view ivs as select * from (values
  (1, interval '1 year 2 mons 3 days 04:05:06'),
  (2, interval '-1 year -2 mons +3 days -04:05:06.5'),
  (3, interval '0'),
  (4, interval '-3 days 02:00'),
  (5, interval '1 day -00:00:01')) v(id, iv);
insert into dt values
  (1, '2024-12-31', '2024-12-31 10:00:00', '2024-12-31 10:00:00.5+00', '10:00:00'),
  (2, '2024-01-02', '2024-01-02 23:59:59.123456', '2024-07-01 12:34:56+02', '23:59:59.999'),
  (3, '0044-03-15 BC', '0044-03-15 12:00 BC', '0044-03-15 12:00+00 BC', '00:00'),
  (4, '12345-06-07', '1999-02-28 00:00:01', '1970-01-01 00:00:00+00', '12:34:56.789'),
  (5, null, null, null, null);
set datestyle = 'SQL, MDY';
show datestyle;
select id, d, ts, tz, t from dt order by id;
select d::text, ts::text, tz::text, 'at ' || d, array[d, d + 1], row(d, ts) from dt where id = 1;
set datestyle = 'SQL, DMY';
show datestyle;
select id, d, ts, tz, t from dt order by id;
select d::text, ts::text, tz::text, array[ts], row(tz) from dt where id = 1;
set datestyle = 'SQL, YMD';
select id, d, ts, tz from dt order by id;
set datestyle = 'Postgres, MDY';
show datestyle;
select id, d, ts, tz, t from dt order by id;
select d::text, ts::text, tz::text, array[tz], array_to_string(array[d], ',') from dt where id = 1;
set datestyle = 'Postgres, DMY';
select id, d, ts, tz from dt order by id;
set datestyle = 'Postgres, YMD';
select id, d, ts, tz from dt order by id;
set datestyle = german;
show datestyle;
select id, d, ts, tz, t from dt order by id;
select d::text, ts::text, concat(tz, '!') from dt where id = 1;
set datestyle = 'German, MDY';
show datestyle;
select id, d, ts, tz from dt order by id;
set datestyle = 'ISO, DMY';
select id, d, ts, tz from dt order by id;
set datestyle = 'ISO, MDY';
-- the zone's abbreviation in the non-ISO styles
set timezone = 'Europe/Berlin';
set datestyle = sql;
select id, tz from dt order by id;
set datestyle = postgres;
select id, tz from dt order by id;
set datestyle = german;
select id, tz from dt order by id;
set timezone = 'Asia/Kolkata';
select tz from dt where id = 1;
set timezone = '<+04>-04';
select tz from dt where id = 1;
set timezone = 'UTC';
-- a style alone keeps the order, an order alone keeps the style
set datestyle = 'sql, dmy';
set datestyle = postgres;
show datestyle;
set datestyle = ymd;
show datestyle;
set datestyle = 'german, mdy';
show datestyle;
set datestyle = default;
show datestyle;
set datestyle = 'iso, sql';
set datestyle = 'dmy, mdy';
set datestyle = 'klingon';
set datestyle = 'euro';
show datestyle;
set datestyle = 'us, postgres';
show datestyle;
reset datestyle;
-- IntervalStyle output
set intervalstyle = postgres;
select id, iv from ivs order by id;
select interval '-1 year 2 mons -3 days', interval '1 mon -1 day', interval '-1 day +2 hours', interval '-00:00:01.5', interval '100 hours';
set intervalstyle = postgres_verbose;
show intervalstyle;
select id, iv, iv::text from ivs order by id;
select interval '-1 year 2 mons -3 days', interval '1 mon -1 day', interval '-1 day +2 hours', interval '-00:00:01.5', interval '1 second', interval '00:00:00.000001', interval '-1 min 1 sec';
set intervalstyle = sql_standard;
show intervalstyle;
select id, iv, iv::text, array[iv] from ivs order by id;
select interval '1 year 2 mons', interval '-1 year -2 mons', interval '3 days', interval '-3 days -04:05:06', interval '04:05:06.789', interval '-04:05:06', interval '1 day -1 second', interval '100 hours';
set intervalstyle = iso_8601;
show intervalstyle;
select id, iv, iv::text from ivs order by id;
select interval '-1 year 2 mons -3 days', interval '-00:00:01.5', interval '1.5 seconds', interval '-1 day +2 hours', interval '10 mins';
reset intervalstyle;
show intervalstyle;
-- text input in the forms PostgreSQL reads besides ISO 8601
set datestyle = 'ISO, MDY';
select '12/31/2024'::date, '01/02/2024'::date, '01/02/24'::date, '12-31-2024'::date, '31.12.2024'::date;
select 'Dec 31 2024'::date, 'December 31, 2024'::date, '31 Dec 2024'::date, '2024-Dec-31'::date, '31-Dec-2024'::date, 'Dec-31-2024'::date, 'dec 31, 99'::date;
select 'J2451187'::date, '20241231'::date, 'epoch'::date, '2024-12-31 AD'::date, 'Dec 31 0044 BC'::date, '2024/12/31'::date;
select '01/02/2024 10:00'::timestamp, 'Dec 31 2024 10:00:00'::timestamp, 'Tue Dec 31 10:00:00.5 2024'::timestamp, '12/31/2024 10:00:00 UTC'::timestamptz, 'Tue Dec 31 10:00:00 2024 CET'::timestamptz, 'J2451187 12:00'::timestamp;
select '0044-03-15 12:00 BC'::timestamp, 'Mar 15 12:00:00 0044 BC'::timestamp, '03/15/0044 12:00:00 UTC BC'::timestamptz;
select '13/01/2024'::date;
select '02/30/2024'::date;
select 'Dec 32 2024'::date;
select 'Foo 31 2024'::date;
set datestyle = 'ISO, DMY';
select '12/31/2024'::date;
select '01/02/2024'::date, '31/12/2024'::date, '01/02/24'::date, '31.12.2024 10:00'::timestamp, '2024/01/02'::date;
select '01/02/2024 10:00:00+02'::timestamptz, 'Tue 31 Dec 10:00:00.5 2024 UTC'::timestamptz;
set datestyle = 'ISO, YMD';
select '2024/01/02'::date, '24/01/02'::date, '01/02/03'::date;
set datestyle = 'SQL, DMY';
select '01/02/2024'::date, '01/02/2024'::date::text::date;
set datestyle = 'Postgres, MDY';
select now()::date = (now()::date)::text::date, (timestamp '2024-12-31 10:00:00.5')::text::timestamp, (timestamptz '2024-12-31 10:00:00.5+00')::text::timestamptz;
set datestyle = 'German';
select '31.12.2024'::date, (timestamp '2024-12-31 10:00:00.5')::text::timestamp;
set datestyle = default;
-- interval input in every style's form
set intervalstyle = postgres;
select interval 'P1Y2M3DT4H5M6S', interval 'P-1Y-2M3DT-4H-5M-6.5S', interval 'PT0S', interval 'P1W', interval 'PT1.5S';
select interval '1-2', interval '-1-2', interval '3 4:05:06', interval '-3 4:05:06', interval '+1-2 +3 +4:05:06', interval '-1-2 +3 -4:05:06.5';
select interval '@ 1 year 2 mons', interval '@ 1 year 2 mons -3 days 4 hours 5 mins 6.5 secs ago', interval '@ 1 day -1 sec', interval '@ 0';
select interval '-1 year 2 mons', interval '-1 2:03:04';
set intervalstyle = sql_standard;
select interval '-1 year 2 mons', interval '-1 2:03:04', interval '-1 +2:03:04', interval '-1-2', interval '1 day 02:00';
select interval '1 year 2 mons 3 days 04:05:06'::text::interval, interval '-1 year -2 mons'::text::interval;
set intervalstyle = postgres_verbose;
select interval '1 year 2 mons 3 days 04:05:06'::text::interval, interval '-1 year -2 mons +3 days -04:05:06.5'::text::interval;
set intervalstyle = iso_8601;
select interval '1 year 2 mons 3 days 04:05:06'::text::interval, interval '-1 year -2 mons +3 days -04:05:06.5'::text::interval;
reset intervalstyle;
-- JSON and to_char do not follow DateStyle
set datestyle = 'SQL, DMY';
set intervalstyle = sql_standard;
select to_json(d), to_jsonb(ts), json_build_object('tz', tz), to_char(ts, 'YYYY-MM-DD'), extract(day from d) from dt where id = 1;
select row_to_json(x) from (select d, ts from dt where id = 2) x;
select d, ts from dt where d = '02/01/2024' and ts > '01/01/2024';
select '1 day'::interval + '01/02/2024'::date, '31/12/2024'::date - '01/12/2024'::date, date_trunc('month', '15/03/2024'::timestamp);
reset datestyle;
reset intervalstyle;
select '2024-12-31T10:00:00Z'::timestamptz, '2024-12-31 10:00:00.123456789'::timestamp, '2024-12-31 UTC'::date, 'today'::date = current_date, 'yesterday'::date = current_date - 1;
select interval 'P0001-02-03T04:05:06', interval 'P1Y2M', interval 'PT36H';
select '1999-01-08 04:05:06 -8:00'::timestamptz, 'January 8, 1999 04:05 PST'::timestamptz, '1/8/1999'::date, '1999-Jan-08'::date, 'Jan-08-1999'::date, '08-Jan-1999'::date, '19990108'::date, '990108'::date;
-- a year and day of year
select '1999.008'::date, '2024.366'::date, '1999-008'::date, '2023.366'::date, '2024.060 10:00'::timestamp, '2024.060 10:00+02'::timestamptz, '0044.060 BC'::date;
select '99.008'::date;
select '1999.08'::date;
select '2024.0'::date;
select '2024.367'::date;
select 'Jan 1999.008'::date;
-- zone abbreviations in the SQL, Postgres and German styles: the tz
-- database's verbatim, a POSIX setting's own, none for a bare POSIX offset
set datestyle = 'SQL, MDY';
set timezone = 'Asia/Kathmandu';
select '2024-01-02 10:00+00'::timestamptz || '|', to_char('2024-01-02 10:00+00'::timestamptz, 'TZ|tz|OF');
set timezone = '<+0330>-03:30';
select '2024-01-02 10:00+00'::timestamptz || '|', to_char('2024-01-02 10:00+00'::timestamptz, 'TZ|tz|OF');
set timezone = '-03:30';
select '2024-01-02 10:00+00'::timestamptz || '|', to_char('2024-01-02 10:00+00'::timestamptz, 'TZ|tz|OF'), row('2024-01-02 10:00+00'::timestamptz);
set datestyle = 'Postgres, MDY';
select '2024-01-02 10:00+00'::timestamptz || '|';
set datestyle = 'German';
select '2024-01-02 10:00+00'::timestamptz || '|';
set timezone = '+05:30';
select '2024-01-02 10:00+00'::timestamptz || '|';
set timezone = '<+03:30>-03:30';
select '2024-01-02 10:00+00'::timestamptz || '|';
set timezone = '-3.5';
select '2024-01-02 10:00+00'::timestamptz || '|', to_char('2024-01-02 10:00+00'::timestamptz, 'TZ|tz|OF');
set timezone = '7';
select '2024-01-02 10:00+00'::timestamptz || '|';
set timezone = 'EST5';
select '2024-01-02 10:00+00'::timestamptz || '|';
reset timezone;
reset datestyle;
