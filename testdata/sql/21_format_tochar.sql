-- format() with positions, widths and flags; to_char for numbers and intervals.
CREATE TABLE ft (id int PRIMARY KEY, s text, n numeric(12,3), i int, f float8, iv interval);
INSERT INTO ft VALUES (1, 'abc', 1234.567, 42, 3.14159, '1 day 02:03:04'), (2, NULL, -0.5, -7, -1234.5, '-3 hours'), (3, 'héllo', 0, 0, 0, '1 year 2 mons 3 days'),
 (4, 'x y', 98765432.1, 2147483647, 1e10, '00:00:00.123456'), (5, '', NULL, NULL, NULL, NULL);
SELECT format('%5s|%-5s|', 'a', 'b'), format('%s, %s', 'a', 'b'), format('%2$s %1$s', 'a', 'b'), format('%1$s %1$s %s', 'x', 'y');
SELECT format('|%*s|', 6, 'ab'), format('|%-*s|', 6, 'ab'), format('|%*s|', -6, 'ab'), format('|%*2$s|', 'ab', 7), format('|%1$*2$s|', 'ab', 4);
SELECT format('|%10I|', 'My Col'), format('|%-10L|', 'it''s'), format('|%5L|', NULL), format('|%5s|', NULL), format('%3s', 'toolong');
SELECT id, format('[%-6s][%6s][%L]', s, i, n) FROM ft ORDER BY id;
SELECT format('%%|%s%%', 'x'), format('no args'), format('%s %s %s', 1, 2.5, true);
SELECT format('%s %s', 'a');
SELECT format('%0$s', 'a');
SELECT format('%z', 'a');
SELECT format('%', 'a');
SELECT format('%-', 'a');
SELECT format('%*', 'a');
SELECT format('%*1', 'a');
SELECT format('%I', NULL);
SELECT format('|%*s|', NULL, 'x');
SELECT format('|%3$s|%s|', 'a', 'b', 'c', 'd');
SELECT format(NULL, 'a'), format('%s', NULL::text);
SELECT to_char(1234.5, '9,999.99'), to_char(-12, 'S999'), to_char(5, 'FM000'), to_char(-5.5, '99.9PR'), to_char(3, 'L9');
SELECT to_char(485, '999'), to_char(-485, '999'), to_char(485, '9 9 9'), to_char(1485, '9,999'), to_char(1485, '9G999'), to_char(148.5, '999.999'), to_char(148.5, 'FM999.999'), to_char(148.5, 'FM999.990');
SELECT to_char(-485, '999S'), to_char(-485, '999MI'), to_char(485, '999MI'), to_char(485, 'FM999MI'), to_char(485, 'PL999'), to_char(485, 'SG999'), to_char(-485, 'SG999'), to_char(-485, '9SG99'), to_char(-485, '999PR'), to_char(485, '999PR');
SELECT to_char(485, '"Good number:"999'), to_char(485.8, '"Pre:"999" Post:" .999'), to_char(0.1, '0.9'), to_char(12, '9990999.9'), to_char(-0.1, 'FM9.99'), to_char(0.1, 'FM9.99'), to_char(0, '9.99'), to_char(0, 'FM9.99');
SELECT to_char(12345, '999'), to_char(-12345, '99.9'), to_char(0.5, '.99'), to_char(0.5, '9'), to_char(-0.5, '9'), to_char(1.5, 'FM9'), to_char(100, 'FM999.'), to_char(100, '999D99');
SELECT to_char(485, 'S999'), to_char(485, 'FMS999'), to_char(-485, 'FMS999'), to_char(3.5, 'S9.9'), to_char(3.5, '9.9S'), to_char(-3.5, 'FM9.9S'), to_char(-1234567, 'FM9,999,999'), to_char(1234567, '9,999,999'), to_char(1234567, '999,999');
SELECT id, to_char(n, 'FM999,999,990.00') AS a, to_char(n, '000000000.000') AS b, to_char(i, 'S0000000000') AS c, to_char(f, '99999999999.99') AS d, to_char(i, 'FM9999999999PR') AS e FROM ft ORDER BY id;
SELECT to_char(i::bigint, '999,999,999,999'), to_char(f::real, '999.999'), to_char(n, 'L999,999,999.99') FROM ft ORDER BY id;
SELECT to_char(1e300::float8, '9.9'), to_char('NaN'::float8, '99.9'), to_char(123456789012345678::float8, '999999999999999999.99'), to_char(0.000001::float8, '0.9999999');
SELECT to_char(12, '99V999');
SELECT to_char(485, 'RN');
-- unsupported
SELECT to_char(0.0004859, '9.99EEEE');
SELECT to_char(1, '9.9.9');
SELECT to_char(1, 'S9S');
SELECT to_char(-1, '99PR9');
SELECT to_char(interval '1 day 02:03:04', 'DD HH24:MI:SS'), to_char(interval '-3 hours', 'HH24:MI'), to_char(interval '27 hours 5 minutes', 'HH24 HH12 HH MI AM'), to_char(interval '1 year 2 mons 3 days', 'YYYY-MM-DD');
SELECT id, to_char(iv, 'FMDD "days" FMHH24 "h" MI "m" SS.MS "s"') FROM ft ORDER BY id;
SELECT to_char(interval '0.123456 seconds', 'SS.US'), to_char(interval '-1 year -2 mons -3 days -04:05:06', 'YYYY MM DD HH24 MI SS'), to_char(interval '49 hours', 'HH12 PM');
SELECT to_char(interval '1 day', 'Day');
SELECT v, f, to_char(v, f) FROM (VALUES (0::numeric), (1), (-1), (0.5), (-0.05), (12.345), (-999.999), (1000), (123456.789), (0.001)) a(v),
 (VALUES ('999'), ('FM999'), ('990.99'), ('FM990.99'), ('S9,990.0'), ('9,999PR'), ('FM9,999.00PR'), ('MI999.9'), ('999.9MI'), ('PL99.99'), ('SG9.9'), ('0000.00'), ('FM0000.00'), ('9.999'), ('99V99'), ('FMRN'), ('L9G999D99'), ('.999'), ('9.'), ('FM9.'), ('"$"999,999.99'), ('999,999,999.999S')) b(f) ORDER BY 1, 2;
SELECT v, f, to_char(v, f) FROM (VALUES (0), (7), (-7), (42), (-1234), (99999), (2147483647), (-2147483648)) a(v),
 (VALUES ('999'), ('FM999'), ('9,999'), ('S9999'), ('9999S'), ('0999'), ('FM0999'), ('9999PR'), ('99.99'), ('FM99.99'), ('RN'), ('rn'), ('99V9'), ('SG9999'), ('PL9999'), ('9999MI')) b(f) ORDER BY 1, 2;
SELECT v, f, to_char(v, f) FROM (VALUES (0::float8), (0.5), (-0.5), (3.14159), (-2.5), (1234.5678), (1e15), (1.5e-7)) a(v),
 (VALUES ('999'), ('FM999.99'), ('990.999'), ('S9.99999999'), ('9,999.9'), ('FM99999999999999999.99'), ('RN')) b(f) ORDER BY 1, 2;
