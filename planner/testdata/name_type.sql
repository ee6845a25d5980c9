-- Columns of type name (PostgreSQL's identifier type, collation "C",
-- input truncated to 63 bytes), as PostgreSQL's regression tables onek
-- and tenk1 declare them.
CREATE TABLE nt (id int PRIMARY KEY, n name, ns name[]);
INSERT INTO nt VALUES (1, 'beta', '{a,b}'), (2, 'Alpha', NULL), (3, repeat('xy', 40), '{}');
INSERT INTO nt VALUES (4, repeat('é', 40), ARRAY['p', 'q']::name[]);
SELECT id, n, length(n), octet_length(n), pg_typeof(n), ns FROM nt ORDER BY n;
SELECT n FROM nt WHERE n = 'beta'::text;
SELECT n FROM nt WHERE n < 'b' ORDER BY n DESC;
SELECT n || '!', upper(n), n::text, n::varchar(3) FROM nt WHERE id = 1;
UPDATE nt SET n = 'gamma' WHERE id = 2 RETURNING n, pg_typeof(n);
SELECT max(n), min(n), count(DISTINCT n) FROM nt;
SELECT a.attname, a.atttypid::regtype, a.attlen, a.attcollation, t.typcollation FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid WHERE a.attrelid = 'nt'::regclass AND a.attnum > 0 ORDER BY a.attnum;
SELECT typname, typcollation FROM pg_type WHERE typname IN ('name', 'text', 'char', 'varchar') ORDER BY typname;
SELECT column_name, data_type, udt_name, collation_name FROM information_schema.columns WHERE table_name = 'nt' ORDER BY ordinal_position;
CREATE TABLE nt2 AS SELECT n, id FROM nt;
SELECT n, pg_typeof(n) FROM nt2 ORDER BY id;
ALTER TABLE nt ALTER COLUMN n TYPE text;
SELECT pg_typeof(n) FROM nt WHERE id = 1;
