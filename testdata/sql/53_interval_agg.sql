-- interval equality classes in DISTINCT, ordering, interval / float as PostgreSQL
-- (microsecond-rounded day cascade), sum/avg over interval (grouped, windowed).
SELECT DISTINCT x FROM (VALUES ('1 day'::interval), ('24 hours'), ('1 mon'), ('30 days')) v(x);
SELECT count(DISTINCT x) FROM (VALUES ('1 day'::interval), ('24 hours'), ('1 mon'), ('30 days'), ('720 hours')) v(x);
SELECT x FROM (VALUES ('25 hours'::interval), ('1 day'), ('1 day 1 second'), ('-1 day')) v(x) ORDER BY x;
SELECT '-1 day 02:00'::interval, '1 day -02:00'::interval, '-1 mon 1 day'::interval, '-00:30'::interval, '1:2:3'::interval, '1.5'::interval, '10'::interval;
SELECT interval '1 hour' / 7, interval '1 month' / 7, interval '-1 day' * 0.5, interval '1 year' / 12;
SELECT sum(x), avg(x), min(x), max(x) FROM (VALUES ('1 day'::interval), ('2 hours')) v(x);
SELECT '2021-01-31'::date + '1 month'::interval * 2, age('2021-03-31', '2021-02-28'), age('2020-02-29'::date, '2021-02-28'::date);
SELECT g, sum(x), avg(x) FROM (VALUES (1, '1 mon'::interval), (1, '1 day 10:00'), (1, NULL), (2, '-3 hours'), (3, NULL)) v(g, x) GROUP BY g ORDER BY g;
SELECT avg(x) FROM (VALUES ('1 mon'::interval), ('0'), ('0')) v(x);
SELECT sum(x) FROM (VALUES ('2147483647 days'::interval), ('1 day')) v(x);
SELECT sum(x) OVER (ORDER BY n), avg(x) OVER (ORDER BY n ROWS 1 PRECEDING) FROM (VALUES (1, '1 hour'::interval), (2, '2 days'), (3, '30 min')) v(n, x) ORDER BY n;
SELECT interval '1 month' / 3, interval '1 year 1 day' / 5, interval '-1 mon -1 day' / 4, interval '3 days' / 1.5, interval '1 day' / -7;
