-- a time of day (and zone) after a date is read and dropped
select '2024-02-29T00:00:00.000+00:00'::date;
select '2024-02-29 13:45:00'::date;
select '2024-02-29T00:00:00.000Z'::date;
select '1999-12-31T00:00:00.000+00:00 BC'::date;
select '2024-02-29 25:00:00'::date;
select '2024-02-29 junk'::date;
select '2024-02-29T10:00:00-05:00'::date;
-- and a date (and zone) around a time of day
select '0001-01-01 12:34:56.5Z BC'::time;
select '2024-02-29 23:59:59.999999+05'::time;
select '2024-02-29T01:02:03'::time;
select '2024-02-29 junk'::time;
select '1999-12-31 00:00:00 BC'::time;
-- a zone after a date or a time of day (pgjdbc's java.sql.Date and Time)
select '2024-02-29 +00'::date;
select '1999-12-31 +00 BC'::date;
select '2024-02-29 -08:00'::date;
select '23:59:59+00'::time;
select '12:34:56.5+05:30'::time;
select '23:59:59.999999+00'::time;
select '10:00:00Z'::time;
select '10:00:00 +0530'::time;
select '25:00:00+00'::time;
