-- differential: postgresql (PostgreSQL 15 must print the same transcript)
-- copy.sql: COPY FROM STDIN is all or nothing — a bad row (duplicate key,
-- unparsable value, missing endpoint) loads nothing; defaults fill
-- omitted columns; csv quoting options; COPY in a transaction rolls back
-- with it.
\ir social.psql
COPY people (id, name) FROM STDIN;
10	Alan
1	Ada again
\.
COPY people (id, name, age) FROM STDIN WITH (FORMAT csv);
11,Alonzo,33
12,Kurt,not a number
\.
COPY knows (src, dst) FROM STDIN;
1	4
4	404
\.
SELECT count(*) AS people, (SELECT count(*) FROM knows) AS knows FROM people;
COPY works_at (src, dst) FROM STDIN WITH (FORMAT csv);
4,1
5,1
\.
SELECT src, dst, role FROM works_at WHERE dst = 1 ORDER BY src;
COPY companies (id, name, founded) FROM STDIN WITH (FORMAT csv, DELIMITER ';', QUOTE '''', NULL '-');
4;'Semicolon; Ltd';2001-01-01
5;Dash Co;-
\.
SELECT id, name, founded FROM companies WHERE id >= 4 ORDER BY id;
BEGIN;
COPY people (id, name) FROM STDIN;
20	Temp
21	Porary
\.
SELECT count(*) FROM people;
ROLLBACK;
SELECT count(*) FROM people;
COPY (SELECT p.name, c.name FROM works_at w JOIN people p ON p.id = w.src JOIN companies c ON c.id = w.dst WHERE w.dst = 1 ORDER BY p.name) TO STDOUT WITH (FORMAT csv, HEADER true);
