-- to_timestamp(text, template) and to_date
SET TimeZone = 'UTC';
SELECT to_timestamp('2024-03-10 12:00', 'YYYY-MM-DD HH24:MI'), to_date('10.03.2024', 'DD.MM.YYYY');
SELECT to_date('20240310', 'YYYYMMDD'), to_date('2024/3/7', 'YYYY/MM/DD'), to_date('  2024-03-10', 'YYYY-MM-DD'), to_date('March 5, 2024', 'Month DD, YYYY'), to_date('05 mar 24', 'DD Mon YY');
SELECT to_timestamp('2024-03-10 01:02:03.456', 'YYYY-MM-DD HH24:MI:SS.MS'), to_timestamp('2024-03-10 01:02:03.123456', 'YYYY-MM-DD HH24:MI:SS.US'), to_timestamp('10/03/2024 3:04 PM', 'DD/MM/YYYY HH:MI AM'), to_timestamp('12:30 am', 'HH12:MI am');
SELECT to_date('2024-060', 'YYYY-DDD'), to_date('99-01-02', 'YY-MM-DD'), to_date('2024 Jan 2', 'YYYY Mon DD'), to_date('2024-01-02T', 'YYYY-MM-DD'), to_timestamp('2024-01-02T03:04:05', 'YYYY-MM-DD"T"HH24:MI:SS');
SELECT to_date('2024-13-01', 'YYYY-MM-DD');
SELECT to_date('2024-02-30', 'YYYY-MM-DD');
SELECT to_date('2024-xx-01', 'YYYY-MM-DD');
SELECT to_timestamp('13:00 PM', 'HH12:MI PM');
SELECT to_date('Foo 1 2024', 'Mon DD YYYY');
SELECT to_date('2024', 'YYYY'), to_date('03', 'MM');
SELECT to_timestamp('2024-03-10 25:00', 'YYYY-MM-DD HH24:MI');
SELECT to_date(NULL, 'YYYY'), to_timestamp('2024', NULL);
SET TimeZone = 'America/New_York';
SELECT to_timestamp('2024-03-10 12:00', 'YYYY-MM-DD HH24:MI'), to_timestamp('2024-07-01', 'YYYY-MM-DD');
-- unsupported
SELECT to_date('2024 10', 'YYYY WW');
