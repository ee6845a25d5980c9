-- extract from intervals (quarter/decade/century/millennium; week is 0A000 as in
-- PostgreSQL) and more to_char patterns (TH, FFn, SSSS, WW, W, CC, J, RM, Y,YYY).
SELECT extract(minute from interval '1 day 02:03:04.5'), extract(second from interval '-1:2:3.25'), extract(milliseconds from interval '1.5 s'), extract(microseconds from interval '1 min'), extract(quarter from interval '7 months'), extract(decade from interval '25 years'), extract(century from interval '250 years'), extract(millennium from interval '2500 years');
SELECT extract(week from interval '1 day');
SELECT extract(dow from interval '1 day');
SELECT date_part('hour', interval '49 hours'), date_part('day', interval '49 hours'), date_part('year', interval '18 months');
SELECT to_char(now(), 'Y,YYY') IS NOT NULL;
SELECT to_char(date '2021-03-04', 'DDTH Mon YYYY'), to_char(date '2021-03-01', 'fmDDth');
SELECT to_char(timestamp '2021-03-04 05:06:07.891', 'YYYY-MM-DD"T"HH24:MI:SS.FF3'), to_char(timestamp '2021-03-04 05:06:07.891', 'SSSS');
SELECT to_char(date '2021-03-04', 'WW W CC J RM rm');
SELECT to_char(date '2021-01-01', 'DDTH DDth FMDDth MMth YYYYth'), to_char(date '2021-01-02', 'DDth'), to_char(date '2021-01-03', 'DDth'), to_char(date '2021-01-11', 'DDth'), to_char(date '2021-01-22', 'FMDDTH'), to_char(date '2021-01-13', 'DDth');
SELECT to_char(timestamp '2021-03-04 05:06:07.891234', 'FF1 FF2 FF3 FF4 FF5 FF6 SSSS SSSSS'), to_char(timestamp '2021-12-31 23:59:59', 'SSSS WW W CC J');
SELECT to_char(date '2021-09-15', 'RM|rm|FMRM|'), to_char(date '2000-01-01', 'CC'), to_char(date '2001-01-01', 'CC'), to_char(date '2021-01-07', 'WW W'), to_char(date '2021-01-08', 'WW W');
SELECT to_char(date '12021-01-01', 'Y,YYY'), to_char(date '2021-06-15', 'Y,YYY');
